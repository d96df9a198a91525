#!/bin/bash
# make demo: run every tool once, on this machine only, so a newcomer sees each
# one work. No other host is needed:
#   esxperf  server and client over loopback for 3 seconds
#   esxmtu   a jumbo (MTU 9000) check and a path-MTU discovery against 127.0.0.1
#   esxpart  a generated ESXi-like disk (partitions 1,5,6,7,8 in a sparse file)
#   esxdiag-selftest  what this machine's kernel gives the tools (loopback only)
# A tool that is not built yet is skipped with a note. Exit 1 if any tool failed.
set -u
cd "$(dirname "$0")/../.." || exit 2
BIN=out/bin
work=$(mktemp -d "${TMPDIR:-/tmp}/esxdiag-demo.XXXXXX")
server_pid=''
cleanup() {
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT INT TERM

ran=0 failed=0 skipped=0
title() { printf '\n== %s: %s\n' "$1" "$2"; }
show() { printf '$ %s\n' "$*"; }
# run_step CMD...: print, run, count a failure (exit codes 0 and 1 are answers)
run_step() {
    show "$*"
    "$@"
    local rc=$?
    if [ "$rc" -gt 1 ]; then
        printf '(exit %d)\n' "$rc"
        return 1
    fi
    return 0
}
have() {
    if [ -x "$BIN/$1" ]; then return 0; fi
    title "$1" "not built yet: skipped (make $BIN/$1)"
    skipped=$((skipped + 1))
    return 1
}
result() { # $1 = tool, $2 = 0 ok / else failed
    ran=$((ran + 1))
    [ "$2" = 0 ] || { failed=$((failed + 1)); printf '%s: FAILED\n' "$1"; }
}

echo "esxdiag demo: each tool once, on this machine only ($(uname -n), $(date -u '+%F %T') UTC)"

# ---- esxpart: the ESXi 7/8 boot disk of the esxpart tests (160 GiB sparse, a few
# MB on disk), made by the same builder: test/lib/esxpart-images.sh mk_esxi7
demo_esxpart() {
    local img=$work/esxi-boot.img
    # shellcheck disable=SC1091  # test/lib/esxpart-images.sh: followed only with shellcheck -x
    . test/lib/esxpart-images.sh && mk_esxi7 "$img" || return 1
    echo "(disk image: $img, $(du -h "$img" | cut -f1) on disk, partitions 1 ESP, 5/6 bootbanks, 7 OSDATA, 8 VMFS)"
    run_step "$BIN/esxpart" "$img" && run_step "$BIN/esxpart" --partedutil "$img"
}

# ---- esxmtu: loopback carries 64 KiB packets, so MTU 9000 must pass
demo_esxmtu() {
    run_step "$BIN/esxmtu" 127.0.0.1 && run_step "$BIN/esxmtu" --discover -c 1 127.0.0.1
}

# ---- esxperf: a one-off server in the background, a 3-second client
demo_esxperf() {
    local port=$((20000 + $$ % 20000))
    show "$BIN/esxperf -s -1 -p $port --idle-timeout 15 &"
    "$BIN/esxperf" -s -1 -p "$port" --idle-timeout 15 > "$work/server.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 50); do   # up to 5 s for the server to listen
        ss -Hltn "sport = :$port" 2>/dev/null | grep -q . && break
        sleep 0.1
    done
    run_step "$BIN/esxperf" -c 127.0.0.1 -p "$port" -t 3
    local rc=$?
    wait "$server_pid"
    local src=$?
    server_pid=''
    if [ "$rc" != 0 ] || [ "$src" != 0 ]; then
        echo "(server exited $src; its output:)"
        sed 's/^/  | /' "$work/server.log"
        return 1
    fi
    echo "(the server side saw the same test and exited 0)"
}

demo_selftest() {
    run_step "$BIN/esxdiag-selftest"
}

for t in esxperf esxmtu esxpart esxdiag-selftest; do
    have "$t" || continue
    case $t in
        esxperf) title esxperf "throughput over loopback, 3 seconds" ;;
        esxmtu) title esxmtu "jumbo-frame check and path MTU against 127.0.0.1" ;;
        esxpart) title esxpart "partitions of a generated ESXi-like boot disk" ;;
        esxdiag-selftest) title esxdiag-selftest "each syscall and socket option the tools use, tried on loopback" ;;
    esac
    "demo_${t#esxdiag-}"
    result "$t" $?
done
# tools without a demo of their own yet: show that they run
for b in "$BIN"/*; do
    [ -x "$b" ] || continue
    t=$(basename "$b")
    case $t in esxperf | esxmtu | esxpart | esxdiag-selftest) continue ;; esac
    title "$t" "no demo yet: its version"
    run_step "$b" --version
    result "$t" $?
done

printf '\ndemo: %d tools ran, %d failed, %d skipped\n' "$ran" "$failed" "$skipped"
[ "$failed" = 0 ]
