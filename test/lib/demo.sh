#!/bin/bash
# make demo: run every tool once, on this machine only, so a newcomer sees each
# one work. No other host is needed:
#   esxperf  server and client over loopback for 3 seconds
#   esxmtu   a jumbo (MTU 9000) check and a path-MTU discovery against 127.0.0.1
#   esxpart  a generated ESXi-like disk (partitions 1,5,6,7,8 in a sparse file)
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

# ---- esxpart: an ESXi 8-like boot disk, 16 GiB sparse (a few MB on disk)
demo_esxpart() {
    local img=$work/esxi-boot.img
    local esp=C12A7328-F81F-11D2-BA4B-00A0C93EC93B basic=EBD0A0A2-B9E5-4433-87C0-68B6B72699C7
    local vmfsl=4EB2EA39-7855-4790-A79E-FAE495E21F8D vmfs=AA31E02A-400F-11DB-9590-000C2911D1B8
    truncate -s 16G "$img"
    # layout as ESXi 7/8 writes it (sectors of 512 bytes), with 1 GiB bootbanks
    sgdisk -a 1 \
        -n 1:64:204863 -t 1:$esp \
        -n 5:208896:2306047 -t 5:$basic \
        -n 6:2308096:4405247 -t 6:$basic \
        -n 7:4407296:21184511 -t 7:$vmfsl \
        -n 8:21186560:0 -t 8:$vmfs "$img" >/dev/null || return 1
    # content: FAT16 bootbanks, and the VMFS-L / VMFS magics where ESXi puts them
    mkfs.vfat -F 16 -n BOOTBANK1 --offset=208896 "$img" 1048576 >/dev/null 2>&1 || return 1
    mkfs.vfat -F 16 -n BOOTBANK2 --offset=2308096 "$img" 1048576 >/dev/null 2>&1 || return 1
    write_magic "$img" $((4407296 * 512)) 2fabf15f   # OSDATA: VMFS-L FS info
    write_magic "$img" $((21186560 * 512)) 2fabf15e  # datastore: VMFS6 FS info
    echo "(disk image: $img, $(du -h "$img" | cut -f1) on disk, partitions 1 ESP, 5/6 bootbanks, 7 OSDATA, 8 VMFS)"
    run_step "$BIN/esxpart" "$img" && run_step "$BIN/esxpart" --partedutil "$img"
}
# write_magic IMG PART_BYTE_OFFSET MAGIC_HEX: VMFS volume header (+1 MiB, version 6)
# and FS info (+19 MiB) with the given magic, both little-endian on disk
write_magic() {
    local m=$3
    printf '\x0d\xd0\x01\xc0\x06\x00\x00\x00' | dd of="$1" bs=1 seek=$(($2 + 0x100000)) conv=notrunc status=none
    printf '%b' "\\x${m:6:2}\\x${m:4:2}\\x${m:2:2}\\x${m:0:2}\\x18\\x00\\x00\\x00\\x06" | dd of="$1" bs=1 seek=$(($2 + 0x1300000)) conv=notrunc status=none
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

for t in esxperf esxmtu esxpart; do
    have "$t" || continue
    case $t in
        esxperf) title esxperf "throughput over loopback, 3 seconds" ;;
        esxmtu) title esxmtu "jumbo-frame check and path MTU against 127.0.0.1" ;;
        esxpart) title esxpart "partitions of a generated ESXi-like boot disk" ;;
    esac
    "demo_$t"
    result "$t" $?
done
# tools without a demo of their own yet: show that they run
for b in "$BIN"/*; do
    [ -x "$b" ] || continue
    t=$(basename "$b")
    case $t in esxperf | esxmtu | esxpart) continue ;; esac
    title "$t" "no demo yet: its version"
    run_step "$b" --version
    result "$t" $?
done

printf '\ndemo: %d tools ran, %d failed, %d skipped\n' "$ran" "$failed" "$skipped"
[ "$failed" = 0 ]
