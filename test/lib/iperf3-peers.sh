#!/bin/bash
# iperf3 peers for the tests and benchmarks: Debian 12's own iperf3 3.12 (installed by
# build/deps.sh), and Debian's iperf3 3.18 (trixie) and 3.22 (sid) unpacked under
# .cache/ with trixie's libc, so they run on this Debian 12 machine without touching it.
#
# How 3.18 and 3.22 are fetched (once; offline after that):
#   - apt-get with an apt configuration of its own (sources list, lists, cache and an
#     empty dpkg status under .cache/iperf3-apt/): the machine's sources and lists stay
#     untouched; the mirror is the machine's deb.debian.org, and apt checks the trixie
#     and sid Release signatures against the machine's debian-archive-keyring (an
#     unsigned or wrongly signed mirror is refused: the peers are then skipped);
#   - `apt-get download` of iperf3 and libiperf0 from the suite, and libc6, libgcc-s1,
#     libssl3t64, libsctp1, libzstd1, zlib1g from trixie (apt checks each .deb's hash);
#   - `dpkg -x` of each into .cache/iperf3-<version>/root, then a check with the tree's
#     own loader (`ld-linux-x86-64.so.2 --list`) that every library iperf3 needs
#     resolves inside the tree, and that `iperf3 --version` says the expected version.
# The runner .cache/iperf3-<version>/iperf3 runs the binary through the tree's own
# loader (`ld-linux-x86-64.so.2 --library-path ...`); it is an ordinary command (for
# `timeout`, `ip netns exec`, `run`), its pid is iperf3's own.
#
# Use (bash; the tests load it, the benchmarks source it):
#   source test/lib/iperf3-peers.sh
#   iperf3_peers_fetch || echo "$IPERF3_PEERS_ERROR"   # fetch if needed; 1 = unavailable
#   bin=$(iperf3_peer 3.22)                             # runner path (3.12: /usr/bin/iperf3)
# or from a shell:  test/lib/iperf3-peers.sh fetch | list | run 3.22 --version
# IPERF3_PEERS_REFRESH=1 throws the cached peers away and fetches them again.

IPERF3_PEERS_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
IPERF3_PEERS_CACHE=${IPERF3_PEERS_CACHE:-$IPERF3_PEERS_ROOT/.cache}
IPERF3_PEERS_MIRROR=${IPERF3_PEERS_MIRROR:-http://deb.debian.org/debian}
IPERF3_PEERS_KEYRING=${IPERF3_PEERS_KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}
IPERF3_PEERS_ERROR=""

# peer name | Debian suite of iperf3 and libiperf0 (the libraries always come from trixie)
IPERF3_PEERS_TABLE=(
    "3.18|trixie"
    "3.22|sid"
)
# the run-time libraries iperf3 and libiperf0 need, from trixie (libgcc-s1: glibc
# loads libgcc_s when a thread is cancelled, which iperf3 3.16+ does at the end of a test)
IPERF3_PEERS_LIBS="libc6 libgcc-s1 libssl3t64 libsctp1 libzstd1 zlib1g"

# iperf3_peers_setup_file (a bats file's setup_file): fetch the peers once; when they
# cannot be had, the reason goes to $BATS_FILE_TMPDIR/peers.skip for the tests to skip with
iperf3_peers_setup_file() {
    iperf3_peers_fetch 2>"$BATS_FILE_TMPDIR/fetch.log" ||
        echo "$IPERF3_PEERS_ERROR" >"$BATS_FILE_TMPDIR/peers.skip"
}

# iperf3_peer NAME: the command that runs peer NAME (3.12, 3.18, 3.22); 1 if absent
iperf3_peer() {
    local link
    if [ "$1" = 3.12 ]; then
        command -v iperf3 || return 1
        return 0
    fi
    link="$IPERF3_PEERS_CACHE/iperf3-peer-$1"
    [ -x "$link/iperf3" ] || return 1
    echo "$link/iperf3"
}

# iperf3_peer_version NAME: the peer's own answer to --version ("3.22")
iperf3_peer_version() {
    local bin
    bin=$(iperf3_peer "$1") || return 1
    "$bin" --version 2>/dev/null | sed -n '1s/^iperf \([0-9.]*\).*/\1/p'
}

# apt with our own configuration under $1 (the machine's sources and lists untouched),
# bounded in time (a mirror that stalls must not hang the suite)
iperf3_peers_apt() {
    local dir=$1
    shift
    timeout 300 apt-get -q -o Dir::Etc::sourcelist="$dir/sources.list" -o Dir::Etc::sourceparts=- \
        -o Dir::State::Lists="$dir/lists" -o Dir::Cache="$dir/cache" \
        -o Dir::State::status=/dev/null -o Dir::Etc::preferencesparts=- \
        -o Acquire::AllowInsecureRepositories=false -o Acquire::Retries=1 \
        -o Acquire::AllowDowngradeToInsecureRepositories=false "$@"
}

# the reason apt gives for its first failed download (the line under "Err:")
iperf3_peers_apt_reason() {
    awk '/^Err:/ { getline; sub(/^ +/, ""); print; exit } /^E: / { sub(/^E: /, ""); e = $0 }
         END { if (e != "" && !NR) print e }' | cut -c1-200
}

# iperf3_peers_apt_setup DIR: our sources (trixie and sid, signed-by the keyring) and
# `apt-get update` under DIR; 1 with IPERF3_PEERS_ERROR when the mirror is unreachable
# or its signatures do not verify
iperf3_peers_apt_setup() {
    local dir=$1 s out
    mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/debs"
    : >"$dir/sources.list"
    for s in trixie sid; do
        echo "deb [signed-by=$IPERF3_PEERS_KEYRING] $IPERF3_PEERS_MIRROR $s main" >>"$dir/sources.list"
    done
    # apt downloads as user _apt: let it write there (as root; otherwise apt warns only)
    [ "$(id -u)" = 0 ] && id _apt >/dev/null 2>&1 && chown -R _apt "$dir/lists" "$dir/cache" "$dir/debs"
    if ! out=$(iperf3_peers_apt "$dir" update 2>&1); then
        IPERF3_PEERS_ERROR="iperf3-peers: apt-get update of trixie and sid from $IPERF3_PEERS_MIRROR failed: $(iperf3_peers_apt_reason <<<"$out")"
        return 1
    fi
    if grep -qE 'NO_PUBKEY|not signed|GPG error' <<<"$out"; then
        IPERF3_PEERS_ERROR="iperf3-peers: signature check of trixie or sid failed: $(grep -m1 -E 'NO_PUBKEY|not signed|GPG error' <<<"$out")"
        return 1
    fi
    # apt-get update exits 0 when a mirror is unreachable (it only warns): a suite
    # whose signed InRelease did not arrive was not fetched
    for s in trixie sid; do
        ls "$dir/lists/"*"_dists_${s}_InRelease" >/dev/null 2>&1 && continue
        IPERF3_PEERS_ERROR="iperf3-peers: cannot reach the Debian mirror $IPERF3_PEERS_MIRROR for $s: $(iperf3_peers_apt_reason <<<"$out")"
        return 1
    done
}

# iperf3_peers_unpack DIR SUITE NAME: download, unpack and check one peer into
# IPERF3_PEERS_DST
iperf3_peers_unpack() {
    local dir=$1 suite=$2 name=$3 ver up dst p l bad lib
    local -a pkgs=("iperf3/$suite" "libiperf0/$suite")
    for lib in $IPERF3_PEERS_LIBS; do pkgs+=("$lib/trixie"); done
    ver=$(iperf3_peers_apt "$dir" --print-uris download "iperf3/$suite" 2>/dev/null |
        sed -n "s/.* iperf3_\([^ ]*\)_amd64\.deb .*/\1/p" | sed 's/%3a/:/')
    [ -n "$ver" ] || { IPERF3_PEERS_ERROR="iperf3-peers: no iperf3 in $suite on $IPERF3_PEERS_MIRROR"; return 1; }
    up=${ver#*:}
    up=${up%%-*}
    up=${up%%+*}
    [ "$up" = "$name" ] ||
        echo "iperf3-peers: $suite has iperf3 $ver now, not $name: using it as peer '$name'" >&2
    dst="$IPERF3_PEERS_CACHE/iperf3-$up"
    rm -rf "$dst" "$dir/debs"/*.deb
    (cd "$dir/debs" && iperf3_peers_apt "$dir" download "${pkgs[@]}") >"$dir/download.log" 2>&1 || {
        IPERF3_PEERS_ERROR="iperf3-peers: apt-get download of iperf3 $ver ($suite) failed: $(grep -m1 -E '^(E|Err)' "$dir/download.log")"
        return 1
    }
    mkdir -p "$dst/root"
    for p in "$dir"/debs/*.deb; do dpkg -x "$p" "$dst/root" || return 1; done
    l="$dst/root/usr/lib/x86_64-linux-gnu"
    # every library the binary needs must resolve inside the tree (ldd with its own loader)
    bad=$("$l/ld-linux-x86-64.so.2" --library-path "$l" --list "$dst/root/usr/bin/iperf3" 2>&1 |
        awk -v t="$dst/root/" '/=>/ && index($3, t) != 1 { print $1 " => " $3 }')
    if [ -n "$bad" ]; then
        IPERF3_PEERS_ERROR="iperf3-peers: iperf3 $ver needs libraries outside its tree: ${bad//$'\n'/, }"
        return 1
    fi
    cat >"$dst/iperf3" <<'EOF'
#!/bin/sh
# iperf3 unpacked from Debian packages by test/lib/iperf3-peers.sh, run by its own
# loader and libraries (see version.txt beside this file)
d=$(cd "$(dirname "$0")" && pwd)/root
l=$d/usr/lib/x86_64-linux-gnu
exec "$l/ld-linux-x86-64.so.2" --library-path "$l" --argv0 iperf3 "$d/usr/bin/iperf3" "$@"
EOF
    chmod 755 "$dst/iperf3"
    # shellcheck disable=SC2016 # dpkg-deb's own ${field} syntax
    for p in "$dir"/debs/*.deb; do dpkg-deb -W --showformat='${Package} ${Version}\n' "$p"; done \
        >"$dst/version.txt"
    if ! "$dst/iperf3" --version 2>&1 | head -n1 | grep -q "^iperf $up\b"; then
        IPERF3_PEERS_ERROR="iperf3-peers: $dst/iperf3 --version does not say $up: $("$dst/iperf3" --version 2>&1 | head -n1)"
        return 1
    fi
    IPERF3_PEERS_DST=$dst
}

# iperf3_peers_fetch: make sure 3.18 and 3.22 are unpacked (fetch once, then offline);
# 0 when both are usable, 1 with a one-line IPERF3_PEERS_ERROR otherwise
iperf3_peers_fetch() {
    local row name suite need="" dir dst rc=0
    IPERF3_PEERS_ERROR=""
    [ "${IPERF3_PEERS_REFRESH:-0}" = 1 ] && rm -f "$IPERF3_PEERS_CACHE"/iperf3-peer-*
    for row in "${IPERF3_PEERS_TABLE[@]}"; do
        iperf3_peer "${row%%|*}" >/dev/null || need="$need $row"
    done
    [ -z "$need" ] && return 0
    if ! command -v apt-get >/dev/null || ! command -v dpkg >/dev/null; then
        IPERF3_PEERS_ERROR="iperf3-peers: apt-get and dpkg are needed to fetch iperf3 3.18 and 3.22 (a Debian machine)"
        return 1
    fi
    mkdir -p "$IPERF3_PEERS_CACHE"
    # one fetch at a time per cache (a benchmark and a test may start together)
    exec {IPERF3_PEERS_LOCK}>"$IPERF3_PEERS_CACHE/iperf3-peers.lock"
    flock -w 600 "$IPERF3_PEERS_LOCK" || { IPERF3_PEERS_ERROR="iperf3-peers: lock busy"; return 1; }
    need=""
    for row in "${IPERF3_PEERS_TABLE[@]}"; do
        iperf3_peer "${row%%|*}" >/dev/null || need="$need $row"
    done
    if [ -n "$need" ]; then
        echo "iperf3-peers: fetching iperf3$(for row in $need; do printf ' %s (%s)' "${row%%|*}" "${row#*|}"; done) from Debian, once; cached in $IPERF3_PEERS_CACHE" >&2
        dir=$(mktemp -d "$IPERF3_PEERS_CACHE/iperf3-apt.XXXXXX")
        if iperf3_peers_apt_setup "$dir"; then
            for row in $need; do
                name=${row%%|*}
                suite=${row#*|}
                if iperf3_peers_unpack "$dir" "$suite" "$name"; then
                    dst=$IPERF3_PEERS_DST
                    ln -sfn "$(basename "$dst")" "$IPERF3_PEERS_CACHE/iperf3-peer-$name"
                    echo "iperf3-peers: peer $name: $("$dst/iperf3" --version | head -n1) ($dst)" >&2
                else
                    rc=1
                    break
                fi
            done
        else
            rc=1
        fi
        rm -rf "$dir"
    fi
    exec {IPERF3_PEERS_LOCK}>&-
    return $rc
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    case "${1:-}" in
    fetch)
        iperf3_peers_fetch || { echo "$IPERF3_PEERS_ERROR" >&2; exit 1; }
        ;&
    list)
        for n in 3.12 3.18 3.22; do
            printf '%-5s %-8s %s\n' "$n" "$(iperf3_peer_version "$n" || echo absent)" "$(iperf3_peer "$n")"
        done
        ;;
    run)
        bin=$(iperf3_peer "${2:-}") || { echo "iperf3-peers: no peer '${2:-}' (run: $0 fetch)" >&2; exit 2; }
        shift 2
        exec "$bin" "$@"
        ;;
    *)
        echo "usage: $0 fetch | list | run 3.12|3.18|3.22 [iperf3 options]" >&2
        exit 2
        ;;
    esac
fi
