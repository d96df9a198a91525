#!/bin/bash
# compare-tools.sh DIR_BEFORE DIR_AFTER [CASE...]: the same fixed list of esxmtu and
# esxpart runs with the binaries of each folder (DIR/esxmtu, DIR/esxpart): --help,
# --version, usage errors, esxmtu on loopback only (127.0.0.1 and ::1), esxpart on
# small sparse disk images made here (sgdisk, sfdisk, via esxpart-images.sh) in a
# temporary folder. stdout, stderr and the exit code of each, with what a run cannot
# repeat masked (the commit in --version; esxmtu's round-trip times and every other
# decimal figure). Prints each case's verdict, then the diff of every case that
# differs; exits 0 when all are identical, 1 otherwise. Esxperf has its own:
# compare-output.sh.
#
# A case that differs is run again (up to TRIES times in all, default 3) before it
# counts: a probe may be late on a loaded machine. What differs every time is a
# change of behaviour. esxmtu's probe cases need root (raw sockets); without it they
# compare the refusal both binaries print.
set -u
[ $# -ge 2 ] || { echo "usage: $0 DIR_BEFORE DIR_AFTER [CASE...]" >&2; exit 2; }
BEFORE=$(readlink -f "$1") AFTER=$(readlink -f "$2")
shift 2
ONLY=("$@")
for d in "$BEFORE" "$AFTER"; do
    for t in esxmtu esxpart; do
        [ -x "$d/$t" ] || { echo "compare-tools: $d/$t is not an executable" >&2; exit 2; }
    done
done
for t in sgdisk sfdisk mkfs.vfat timeout; do
    command -v "$t" >/dev/null || { echo "compare-tools: $t missing (build/deps.sh installs it)" >&2; exit 2; }
done
HERE=$(cd "$(dirname "$0")" && pwd)
TRIES=${TRIES:-3}
W=$(mktemp -d /tmp/compare-tools.XXXXXX)
trap 'rm -rf "$W"' EXIT
trap 'exit 2' INT TERM

# images: {G} a small GPT, {M} an MBR with an extended partition, {Y} a hybrid MBR,
# {B} a GPT whose primary header is gone (the backup is read), {N} not a disk
. "$HERE/esxpart-images.sh"
mk_small_gpt "$W/gpt.img"
mk_msdos "$W/mbr.img"
mk_hybrid "$W/hybrid.img"
mk_bad_primary "$W/badprimary.img"
mkdir "$W/dir"
printf '127.0.0.1\n' >"$W/peers.txt"
: >"$W/empty.txt"

# NAME | TOOL ARGS ({G} {M} {Y} {B} {N} as above)
CASES=(
    "mtu_help|esxmtu --help"
    "mtu_h|esxmtu -h"
    "mtu_version|esxmtu --version"
    "mtu_noargs|esxmtu"
    "mtu_c_missing|esxmtu -c"
    "mtu_W_missing|esxmtu 127.0.0.1 -W"
    "mtu_method_missing|esxmtu --method"
    "mtu_hops_missing|esxmtu --max-hops"
    "mtu_hops_prefix|esxmtu --max"
    "mtu_json_value|esxmtu --json=yes 127.0.0.1"
    "mtu_json_prefix_value|esxmtu --js=1 127.0.0.1"
    "mtu_unknown_letter|esxmtu -x 127.0.0.1"
    "mtu_unknown_long|esxmtu --bogus 127.0.0.1"
    "mtu_unknown_long_value|esxmtu --bogus=3 127.0.0.1"
    "mtu_ambiguous|esxmtu --m 127.0.0.1"
    "mtu_letters|esxmtu -qz 127.0.0.1"
    "mtu_letters_after_long|esxmtu --json -xz 127.0.0.1"
    "mtu_m_range|esxmtu -m 10 127.0.0.1"
    "mtu_m_s|esxmtu -m 1500 -s 1472 127.0.0.1"
    "mtu_46|esxmtu -4 -6 127.0.0.1"
    "mtu_family|esxmtu -6 127.0.0.1"
    "mtu_method_bad|esxmtu --method carrier-pigeon 127.0.0.1"
    "mtu_hops_no_trace|esxmtu --max-hops 5 -c 1 127.0.0.1"
    "mtu_file_missing|esxmtu -f {W}/no-such-file"
    "mtu_file_dir|esxmtu -f {N}"
    "mtu_v4|esxmtu -c 2 127.0.0.1"
    "mtu_v6|esxmtu -c 2 ::1"
    "mtu_both_json|esxmtu -J -c 2 127.0.0.1 ::1"
    "mtu_quiet|esxmtu -q -m 1500 127.0.0.1 ::1"
    "mtu_size|esxmtu -s 1472 -c 1 127.0.0.1"
    "mtu_discover|esxmtu --discover -c 1 ::1"
    "mtu_trace|esxmtu --trace -c 1 127.0.0.1"
    "mtu_trace_json|esxmtu -J --trace -c 1 --max-hops 3 ::1"
    "mtu_m_junk|esxmtu -m 9k 127.0.0.1"
    "mtu_s_range|esxmtu -s 65508 127.0.0.1"
    "mtu_c_zero|esxmtu -c 0 127.0.0.1"
    "mtu_c_over|esxmtu -c 101 127.0.0.1"
    "mtu_i_junk|esxmtu -i soon 127.0.0.1"
    "mtu_i_over|esxmtu -i 61 127.0.0.1"
    "mtu_W_zero|esxmtu -W 0 127.0.0.1"
    "mtu_t_zero|esxmtu -t 0 127.0.0.1"
    "mtu_t_over|esxmtu -t 256 127.0.0.1"
    "mtu_hops_zero|esxmtu --trace --max-hops 0 127.0.0.1"
    "mtu_hops_over|esxmtu --trace --max-hops=65 127.0.0.1"
    "mtu_method_value|esxmtu --method=dgram -c 1 -i 0.01 -W 0.5 -t 9 -d 127.0.0.1"
    "mtu_netstack_alone|esxmtu -S vmotion 127.0.0.1"
    "mtu_netstack_missing|esxmtu --netstack"
    "mtu_netstack_prefix|esxmtu --net=vmotion 127.0.0.1"
    "mtu_I_missing_iface|esxmtu -I no-such-if0 127.0.0.1"
    "mtu_B_bad|esxmtu -B not-an-address.invalid 127.0.0.1"
    "mtu_files|esxmtu -c 1 -4 -f {W}/peers.txt -f {W}/peers.txt"
    "mtu_files_empty|esxmtu -f {W}/peers.txt -f {W}/empty.txt"
    "mtu_file_empty|esxmtu -f {W}/empty.txt"
    "part_help|esxpart --help"
    "part_h|esxpart -h"
    "part_version|esxpart --version"
    "part_V|esxpart -V"
    "part_unknown_long|esxpart --bogus {G}"
    "part_unknown_long_value|esxpart --bogus=3 {G}"
    "part_unknown_letter|esxpart -x {G}"
    "part_s_missing|esxpart -s"
    "part_sector_missing|esxpart --sector-size"
    "part_sector_prefix|esxpart --sec"
    "part_sector_bad|esxpart --sector-size 1000 {G}"
    "part_json_value|esxpart --json=yes {G}"
    "part_json_prefix_value|esxpart --js=1 {G}"
    "part_ambiguous|esxpart --v {G}"
    "part_p_u|esxpart -p -u {G}"
    "part_gpt|esxpart {G}"
    "part_gpt_json|esxpart -J {G}"
    "part_partedutil|esxpart -p {G}"
    "part_usable|esxpart -u {G}"
    "part_showguids|esxpart -g"
    "part_verify|esxpart -v {G} {B}"
    "part_verify_json|esxpart -v -J {B}"
    "part_mbr|esxpart {M}"
    "part_mbr_json|esxpart --json {M}"
    "part_hybrid|esxpart --verify {Y}"
    "part_4096|esxpart -s 4096 {G}"
    "part_not_a_disk|esxpart {N} {G}"
    "part_missing|esxpart {W}/no-such.img"
    "part_s_bad|esxpart -s 1 {G}"
    "part_s_glued|esxpart -s512 {G}"
    "part_usable_value|esxpart --usable=1 {G}"
    "part_long_flags|esxpart --types --verify --json --partedutil {G}"
    "part_V_bundle|esxpart -vV {G}"
    "part_letters|esxpart -Jvx {G}"
)

# masks what a run cannot repeat: the commit, and decimal figures (rtt, seconds)
mask() {
    sed -E -e 's/commit [0-9a-f]+(-dirty)?/commit C/' -e 's/[0-9]+\.[0-9]+/#/g'
}

# run_case DIR NAME ARGS: stdout, stderr and exit code into $W/out/DIR-NAME.*
run_case() {
    local bin=$1 name=$2 args=$3 tool rest
    args=${args//\{G\}/$W/gpt.img}
    args=${args//\{M\}/$W/mbr.img}
    args=${args//\{Y\}/$W/hybrid.img}
    args=${args//\{B\}/$W/badprimary.img}
    args=${args//\{N\}/$W/dir}
    args=${args//\{W\}/$W}
    tool=${args%% *}
    rest=${args#"$tool"}
    local o=$W/out/$name.${bin##*/}
    # shellcheck disable=SC2086  # the case's words, split as written
    timeout 60 "$bin/$tool" $rest </dev/null >"$o.out" 2>"$o.err"
    echo "exit $?" >>"$o.err"
    mask <"$o.out" >"$o.out.m"
    mask <"$o.err" >"$o.err.m"
}

mkdir -p "$W/out"
ln -s "$BEFORE" "$W/before"
ln -s "$AFTER" "$W/after"
same=0 differ=0 failed=()
for c in "${CASES[@]}"; do
    IFS='|' read -r name args <<<"$c"
    if [ ${#ONLY[@]} -gt 0 ] && ! printf '%s\n' "${ONLY[@]}" | grep -qx "$name"; then
        continue
    fi
    verdict=DIFFERS
    for ((try = 1; try <= TRIES; try++)); do
        run_case "$W/before" "$name" "$args"
        run_case "$W/after" "$name" "$args"
        if cmp -s "$W/out/$name.before.out.m" "$W/out/$name.after.out.m" &&
            cmp -s "$W/out/$name.before.err.m" "$W/out/$name.after.err.m"; then
            verdict=same
            break
        fi
    done
    if [ "$verdict" = same ]; then
        same=$((same + 1))
        printf '  same     %s\n' "$name"
    else
        differ=$((differ + 1))
        failed+=("$name")
        printf '  DIFFERS  %s (all %d attempts)\n' "$name" "$TRIES"
    fi
done
for name in "${failed[@]}"; do
    echo "== $name: before vs after (masked; last attempt)"
    diff -u --label before/out "$W/out/$name.before.out.m" --label after/out "$W/out/$name.after.out.m"
    diff -u --label before/err "$W/out/$name.before.err.m" --label after/err "$W/out/$name.after.err.m"
done
echo "$same cases identical, $differ differ"
[ "$differ" -eq 0 ]
