#!/bin/bash
# compare-output.sh BIN_BEFORE BIN_AFTER [CASE...]: the same fixed list of esxperf runs
# with each binary, on loopback only (127.0.0.1 and ::1), text and -J output of client
# and server, stderr and exit codes, with the run-dependent figures masked
# (compare-output.mask.py: rates, bytes, times, CPU, ports, cookies, timestamps,
# retransmits, cwnd, rtt). Prints each case's verdict, then the diff of every case that
# differs; exits 0 when all are identical, 1 otherwise.
#
# A case that differs is run again (up to TRIES times in all, default 3) before it
# counts: on a loaded machine an interval row may fall on either side of the end of
# the test. What differs every time is a change of behaviour.
# Peers besides the two binaries: Debian's iperf3 (3.12) in both roles, openssl for
# the RSA keys of the auth cases. Every process started here is killed on exit.
set -u
[ $# -ge 2 ] || { echo "usage: $0 BIN_BEFORE BIN_AFTER [CASE...]" >&2; exit 2; }
BEFORE=$(readlink -f "$1") AFTER=$(readlink -f "$2")
shift 2
ONLY=("$@")
for b in "$BEFORE" "$AFTER"; do
    [ -x "$b" ] || { echo "compare-output: $b is not an executable" >&2; exit 2; }
done
for t in iperf3 openssl python3 ss; do
    command -v "$t" >/dev/null || { echo "compare-output: $t missing (build/deps.sh installs it)" >&2; exit 2; }
done
HERE=$(cd "$(dirname "$0")" && pwd)
MASK="$HERE/compare-output.mask.py"
TRIES=${TRIES:-3}
W=$(mktemp -d /tmp/compare-output.XXXXXX)
PIDS=()
cleanup() {
    local p
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
    for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
    rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 2' INT TERM

# RSA keys and a users file (alice / s3cret) for the auth cases
K=$W/keys
mkdir -p "$K"
openssl genrsa -traditional -out "$K/priv.pem" 2048 2>/dev/null
openssl rsa -in "$K/priv.pem" -pubout -out "$K/pub.pem" 2>/dev/null
chmod 600 "$K/priv.pem"
printf 'alice,%s\n' "$(printf '%s' '{alice}s3cret' | sha256sum | cut -d' ' -f1)" >"$K/users.csv"

# free_port (below the ephemeral range, not bound now) and wait_port (bounded, 5 s)
# from the bats helpers; load is bats' way to source a file
load() { . "$1"; }
. "$HERE/common.bash"

# wait for pid $1 at most $2 tenths of a second, then kill it; its exit code in $REPLY
reap() {
    local i
    for ((i = 0; i < $2; i++)); do
        kill -0 "$1" 2>/dev/null || break
        sleep 0.1
    done
    kill "$1" 2>/dev/null
    wait "$1" 2>/dev/null
    REPLY=$?
}

# The cases: NAME | SERVER | CLIENT. SERVER: "-" none; "self ARGS" this binary -s -1;
# "multi ARGS" this binary -s (killed after the client: sweeps); "iperf3 ARGS" iperf3
# -s -1. CLIENT: args of this binary's client, or "@iperf3 ARGS" for iperf3's client.
# {P} is the port, {K} the key folder, {H} the host (127.0.0.1).
CASES=(
    "tcp|self|-c {H} -p {P} -t 1"
    "tcp_json|self|-c {H} -p {P} -t 1 -J"
    "tcp_srvjson|self -J|-c {H} -p {P} -t 1"
    "p2|self|-c {H} -p {P} -t 1 -P 2"
    "p2_json|self -J|-c {H} -p {P} -t 1 -P 2 -J"
    "reverse|self|-c {H} -p {P} -t 1 -R"
    "reverse_json|self -J|-c {H} -p {P} -t 1 -R -J"
    "bidir|self|-c {H} -p {P} -t 1 --bidir"
    "bidir_p2|self|-c {H} -p {P} -t 1 --bidir -P 2"
    "bidir_p2_json|self -J|-c {H} -p {P} -t 1 --bidir -P 2 -J"
    "udp|self|-c {H} -p {P} -t 1 -u -b 10M"
    "udp_json|self -J|-c {H} -p {P} -t 1 -u -b 10M -J"
    "udp_reverse|self|-c {H} -p {P} -t 1 -u -b 10M -R"
    "udp_bidir_json|self -J|-c {H} -p {P} -t 1 -u -b 10M --bidir -J"
    "udp_p2_64|self|-c {H} -p {P} -t 1 -u -b 5M -P 2 --udp-counters-64bit -l 1400"
    "udp_coarse|self|-c {H} -p {P} -t 1 -u -b 100k -l 60000"
    "bytes|self|-c {H} -p {P} -n 20M"
    "bytes_json|self -J|-c {H} -p {P} -n 20M -J"
    "blocks|self|-c {H} -p {P} -k 200"
    "blocks_udp_json|self|-c {H} -p {P} -u -b 20M -k 100 -J"
    "omit|self|-c {H} -p {P} -t 1 -O 1"
    "omit_json|self -J|-c {H} -p {P} -t 1 -O 1 -J"
    "interval_half|self|-c {H} -p {P} -t 2 -i 0.5"
    "interval_half_json|self|-c {H} -p {P} -t 2 -i 0.5 -J"
    "interval_none|self|-c {H} -p {P} -t 1 -i 0"
    "title|self|-c {H} -p {P} -t 1 -T mytitle"
    "title_json|self|-c {H} -p {P} -t 1 -T mytitle -J"
    "gso|self|-c {H} -p {P} -t 1 --get-server-output"
    "gso_json|self|-c {H} -p {P} -t 1 --get-server-output -J"
    "gso_srvjson|self -J|-c {H} -p {P} -t 1 --get-server-output"
    "gso_srvjson_json|self -J|-c {H} -p {P} -t 1 -u -b 5M --get-server-output -J"
    "verbose|self|-c {H} -p {P} -t 1 -V"
    "verbose_bytes|self|-c {H} -p {P} -n 10M -V -u -b 50M"
    "cooldown_json|self|-c {H} -p {P} -t 1 --cooldown 1 -J"
    "format_m|self|-c {H} -p {P} -t 1 -f m"
    "format_K|self|-c {H} -p {P} -t 1 -f K"
    "zerocopy|self|-c {H} -p {P} -t 1 -Z --skip-rx-copy -V"
    "window_json|self|-c {H} -p {P} -t 1 -w 256K -M 1400 -N -S 16 -J"
    "ipv6|self|-c ::1 -p {P} -t 1 -6"
    "sweep|multi|-c {H} -p {P} -t 1 --sweep-parallel 1,2"
    "sweep_csv|multi|-c {H} -p {P} -t 1 --sweep-parallel 1-2 --csv"
    "sweep_json|multi|-c {H} -p {P} -t 1 --sweep-parallel 1,2 -J"
    "sweep_window_csv|multi|-c {H} -p {P} -t 1 --sweep-window 64K,256K --csv"
    "iperf3s_tcp|iperf3|-c {H} -p {P} -t 1"
    "iperf3s_p2_json|iperf3|-c {H} -p {P} -t 1 -P 2 -J"
    "iperf3s_udp_reverse|iperf3|-c {H} -p {P} -t 1 -u -b 10M -R"
    "iperf3s_bidir_json|iperf3|-c {H} -p {P} -t 1 --bidir -J"
    "iperf3s_gso|iperf3|-c {H} -p {P} -t 1 --get-server-output"
    "iperf3s_gso_json|iperf3|-c {H} -p {P} -t 1 --get-server-output -J"
    "iperf3c_tcp|self|@iperf3 -c {H} -p {P} -t 1"
    "iperf3c_udp_reverse|self|@iperf3 -c {H} -p {P} -t 1 -u -b 10M -R"
    "iperf3c_bidir_json|self -J|@iperf3 -c {H} -p {P} -t 1 --bidir -J"
    "iperf3c_gso|self|@iperf3 -c {H} -p {P} -t 1 --get-server-output"
    "auth_ok|self --rsa-private-key-path {K}/priv.pem --authorized-users-path {K}/users.csv|-c {H} -p {P} -t 1 --username alice --rsa-public-key-path {K}/pub.pem"
    "auth_refused|self --rsa-private-key-path {K}/priv.pem --authorized-users-path {K}/users.csv|-c {H} -p {P} -t 1 --username mallory --rsa-public-key-path {K}/pub.pem"
    "auth_pkcs1|self --rsa-private-key-path {K}/priv.pem --authorized-users-path {K}/users.csv|-c {H} -p {P} -t 1 --username alice --rsa-public-key-path {K}/pub.pem --use-pkcs1-padding"
    "auth_refused_json|self -J --rsa-private-key-path {K}/priv.pem --authorized-users-path {K}/users.csv|-c {H} -p {P} -t 1 --username bob --rsa-public-key-path {K}/pub.pem -J"
    "server_error|self|-c {H} -p {P} -t 1 -P 128 -l 16M"
    "server_error_json|self -J|-c {H} -p {P} -t 1 -P 128 -l 16M -J"
    "max_duration|self --max-duration 2|-c {H} -p {P} -t 4 -i 0.8"
    "max_duration_json|self -J --max-duration 2|-c {H} -p {P} -t 4 -i 0.8 -J"
    "refused|-|-c {H} -p {P} -t 1"
    "refused_json|-|-c {H} -p {P} -t 1 -J"
    "unresolvable|-|-c no-such-host.invalid -p {P} -t 1"
    "idle_timeout|self --idle-timeout 1|-"
    "opt_help|-|--help"
    "opt_version|-|--version"
    "opt_none|-|"
    "opt_p0|-|-c {H} -P 0"
    "opt_rbidir|-|-c {H} -R --bidir"
    "opt_server_u|-|-s -u"
    "opt_client_1|-|-c {H} -1"
    "opt_unknown|-|-c {H} --nope"
    "opt_missing|-|-c {H} -p"
    "opt_flagvalue|-|-c {H} --bidir=1"
    "opt_t_n|-|-c {H} -t 1 -n 1M"
    "opt_rate|-|-c {H} -b fast"
    "opt_family|-|-c ::1 -4"
    "opt_cport|-|-c {H} --cport 65535 -P 2"
    "opt_cc|-|-c {H} -C nosuchcc"
    "opt_len_udp|-|-c {H} -u -l 8"
    "opt_interval|-|-c {H} -i 0.01"
    "opt_format|-|-c {H} -f x"
    "opt_csv_warn|self|-c {H} -p {P} -t 1 --csv -u -Z -b 1M"
    "opt_sweep_empty|-|-c {H} --sweep-parallel 1,,2"
    "opt_auth_half|-|-c {H} --username alice"
    "opt_extra_arg|-|-c {H} extra"
    "val_port|-|-c {H} -p 0"
    "val_bytes|-|-c {H} -n 1Q"
    "val_window|-|-c {H} -w 1"
    "val_affinity|-|-c {H} -A 9999"
    "val_control_timeout|-|-s --control-timeout 0"
    "val_skew|-|-s --time-skew-threshold -1"
    "val_sweep_window|-|-c {H} --sweep-window 1"
    "val_long_missing|-|-c {H} --time"
    "val_long_unknown|-|-c {H} --no-such-option=3"
)

# run one case with binary $1 into directory $2 (c.out c.err c.rc s.out s.err s.rc)
run_case() {
    local bin=$1 dir=$2 spec=$3 name srv cli port sargs kind cbin
    IFS='|' read -r name srv cli <<<"$spec"
    mkdir -p "$dir"
    port=$(free_port)
    srv=${srv//\{P\}/$port}; srv=${srv//\{K\}/$K}
    cli=${cli//\{P\}/$port}; cli=${cli//\{K\}/$K}; cli=${cli//\{H\}/127.0.0.1}
    kind=${srv%% *}
    sargs=""
    [ "$kind" != "$srv" ] && sargs=${srv#* }
    local spid=""
    : >"$dir/s.out"; : >"$dir/s.err"; echo - >"$dir/s.rc"
    case $kind in
        self) "$bin" -s -1 -p "$port" $sargs >"$dir/s.out" 2>"$dir/s.err" & spid=$! ;;
        multi) "$bin" -s -p "$port" $sargs >"$dir/s.out" 2>"$dir/s.err" & spid=$! ;;
        iperf3) iperf3 -s -1 -p "$port" $sargs >/dev/null 2>&1 & spid=$! ;;
    esac
    if [ -n "$spid" ]; then
        PIDS+=("$spid")
        wait_port "$port" || echo "compare-output: $name: the server did not listen" >>"$dir/s.err"
    fi
    cbin=$bin
    if [[ $cli == @iperf3* ]]; then
        cbin=iperf3
        cli=${cli#@iperf3 }
    fi
    if [ "$cli" = "-" ]; then
        echo - >"$dir/c.rc"; : >"$dir/c.out"; : >"$dir/c.err"
        reap "$spid" 50
    else
        # shellcheck disable=SC2086  # the args are words by design
        IPERF3_PASSWORD=s3cret timeout 60 "$cbin" $cli >"$dir/c.out" 2>"$dir/c.err" </dev/null
        echo $? >"$dir/c.rc"
        if [ -n "$spid" ]; then
            if [ "$kind" = multi ]; then reap "$spid" 5; else reap "$spid" 50; fi
        fi
    fi
    [ -n "$spid" ] && [ "$kind" != iperf3 ] && echo "$REPLY" >"$dir/s.rc"
    # the iperf3 peer's own output is not ours: only our side is compared
    local f
    for f in c.out c.err s.out s.err; do
        python3 "$MASK" "$port" <"$dir/$f" >"$dir/$f.m"
    done
    # the binary's own path appears in nothing; its commit does in --version
    return 0
}

# the two special cases: a client interrupted by SIGINT, and a busy server
run_special() {
    local bin=$1 dir=$2 name=$3 port
    mkdir -p "$dir"
    port=$(free_port)
    : >"$dir/s.out"
    "$bin" -s -1 -p "$port" >"$dir/s.out" 2>"$dir/s.err" &
    local spid=$!
    PIDS+=("$spid")
    wait_port "$port"
    case $name in
        special_sigint|special_sigint_json)
            local j=""
            [ "$name" = special_sigint_json ] && j=-J
            "$bin" -c 127.0.0.1 -p "$port" -t 5 $j >"$dir/c.out" 2>"$dir/c.err" &
            local cpid=$!
            sleep 1.7
            kill -INT "$cpid"
            reap "$cpid" 50
            echo "$REPLY" >"$dir/c.rc"
            ;;
        special_busy|special_busy_json)
            local j=""
            [ "$name" = special_busy_json ] && j=-J
            "$bin" -c 127.0.0.1 -p "$port" -t 2 >/dev/null 2>&1 &
            local apid=$!
            sleep 0.8
            timeout 30 "$bin" -c 127.0.0.1 -p "$port" -t 1 $j >"$dir/c.out" 2>"$dir/c.err"
            echo $? >"$dir/c.rc"
            reap "$apid" 50
            ;;
    esac
    reap "$spid" 50
    echo "$REPLY" >"$dir/s.rc"
    local f
    for f in c.out c.err s.out s.err; do
        python3 "$MASK" "$port" <"$dir/$f" >"$dir/$f.m"
    done
}
SPECIALS=(special_sigint special_sigint_json special_busy special_busy_json)

one() {   # one attempt of case $2 (spec or special name) as attempt $1; 0 = identical
    local spec=$2 name=${2%%|*}
    local d=$W/$name.$1
    rm -rf "$d"
    if [[ $spec == special_* ]]; then
        run_special "$BEFORE" "$d/before" "$name"
        run_special "$AFTER" "$d/after" "$name"
    else
        run_case "$BEFORE" "$d/before" "$spec"
        run_case "$AFTER" "$d/after" "$spec"
    fi
    local f
    for f in c.rc s.rc c.out.m c.err.m s.out.m s.err.m; do
        cmp -s "$d/before/$f" "$d/after/$f" || return 1
    done
    return 0
}

wanted() {
    [ ${#ONLY[@]} -eq 0 ] && return 0
    local n
    for n in "${ONLY[@]}"; do [ "$n" = "$1" ] && return 0; done
    return 1
}

main() {
local same=0 differ=0 diffs=() spec name ok try d f
for spec in "${CASES[@]}" "${SPECIALS[@]}"; do
    name=${spec%%|*}
    wanted "$name" || continue
    ok=0
    for ((try = 1; try <= TRIES; try++)); do
        if one "$try" "$spec"; then ok=1; break; fi
    done
    if [ $ok = 1 ]; then
        same=$((same + 1))
        printf '  same     %-22s%s\n' "$name" "$([ $try -gt 1 ] && echo " (attempt $try)")"
    else
        differ=$((differ + 1))
        diffs+=("$name")
        printf '  DIFFERS  %s (all %d attempts)\n' "$name" "$TRIES"
    fi
done
for name in "${diffs[@]}"; do
    d=$W/$name.$TRIES
    echo "== $name: before vs after (masked; last attempt)"
    for f in c.rc s.rc c.out.m c.err.m s.out.m s.err.m; do
        diff -u --label "before/$f" --label "after/$f" "$d/before/$f" "$d/after/$f"
    done
done
echo "$same cases identical, $differ differ"
[ "$differ" -eq 0 ]
}

# all of the above is read before anything runs: the script may be edited meanwhile
main "$@"; exit $?
