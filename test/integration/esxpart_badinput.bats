#!/usr/bin/env bats
# esxpart on hostile inputs made at test time: a file that reads shorter than its
# size, an extended partition past the end of the disk, the admin's 4 TB RAID disk
# against partedUtil's own output, and a GPT written for the other sector size
# (forced with --sector-size, and on a loop device with 4096-byte sectors where the
# machine allows one). Each answer names the input, is counted in -J, with the
# documented exit code.
load ../lib/common

setup_file() {
    export IMGDIR; IMGDIR=$(mktemp -d /tmp/esxpart-bad.XXXXXX)
    . "$ESXDIAG_ROOT/test/lib/esxpart-images.sh"
    mk_small_gpt "$IMGDIR/good.img"
}

teardown_file() {
    rm -rf "$IMGDIR"
}

setup() {
    command -v jq >/dev/null || skip "needs jq"
    W=$(mktemp -d /tmp/esxpart-badw.XXXXXX)
    . "$ESXDIAG_ROOT/test/lib/esxpart-images.sh"
}
teardown() {
    [ -z "${LOOPDEV:-}" ] || losetup -d "$LOOPDEV" || true
    rm -rf "$W"
}

@test "esxpart: a file that reads shorter than its size (/sys) is unreadable: counted, -J error, exit 2 alone, 1 among good disks" {
    local f=/sys/class/net/lo/mtu
    [ -r "$f" ] || skip "no $f"
    local size; size=$(stat -c %s "$f")
    local real; real=$(wc -c < "$f")
    [ "$real" -lt "$size" ] || skip "$f reads as long as its size here"
    run "$BIN/esxpart" "$f"
    assert_status 2
    [ "$output" = "esxpart: $f: short read: only the first $real of its $size bytes can be read (a /proc or /sys file? name a disk or an image file)" ] || flunk "$output"
    run "$BIN/esxpart" -p "$IMGDIR/good.img" "$f"
    assert_status 1
    assert_contains "130 255 63 2097152"
    local json; json=$("$BIN/esxpart" -J "$IMGDIR/good.img" "$f" 2>/dev/null) && flunk "exit 0" || true
    [ "$(jq -r '.disks[1].error' <<< "$json")" = "short read: only the first $real of its $size bytes can be read (a /proc or /sys file? name a disk or an image file)" ] || flunk "$json"
    [ "$(jq -r '"\(.disks_read) \(.disks_unreadable) \(.exit_code)"' <<< "$json")" = "1 1 1" ] || flunk "$json"
}

@test "esxpart: an extended partition that starts past the end of the disk is said to lie beyond it, with the disk's size" {
    local img=$W/ext.img
    truncate -s 64M "$img"   # 131072 sectors
    # MBR entry 1: type 0x05, start 131172, 2048 sectors
    put_hex "$img" $((446 + 4)) 05
    put_hex "$img" $((446 + 8)) "$(le32 131172)$(le32 2048)"
    put_hex "$img" 510 55aa
    run "$BIN/esxpart" "$img"
    assert_status 0
    assert_contains "  error: partition 1 (131172-133219) extends beyond the end of the disk (131072 sectors)"
    assert_contains "  error: EBR at LBA 131172 lies beyond the end of the disk (131072 sectors of 512 bytes, 64 MiB): no logical partitions can be read"
    [[ "$output" != *"No error information"* ]] || flunk "$output"
    run "$BIN/esxpart" -v "$img"
    assert_status 1
}

@test "esxpart --partedutil: the admin's 4 TB Linux RAID disk prints what partedUtil printed, byte for byte; the table and -J keep linuxRaid" {
    local img=$W/raid4t.img raid=A19D880F-05FC-4D3B-A006-743F0F84911E
    truncate -s $((7814037168 * 512)) "$img"
    sgdisk -a 1 -n 1:8192:16785407 -t 1:$raid -n 2:16785408:20979711 -t 2:$raid \
        -n 3:21241856:7813832351 -t 3:$raid "$img" >/dev/null
    # partedUtil getptbl on that disk, as the admin posted it
    local want
    want=$(printf '%s\n' gpt "486401 255 63 7814037168" \
        "1 8192 16785407 A19D880F05FC4D3BA006743F0F84911E unknown 0" \
        "2 16785408 20979711 A19D880F05FC4D3BA006743F0F84911E unknown 0" \
        "3 21241856 7813832351 A19D880F05FC4D3BA006743F0F84911E unknown 0" | od -c)
    [ "$("$BIN/esxpart" --partedutil "$img" | od -c)" = "$want" ] || flunk "$("$BIN/esxpart" --partedutil "$img")"
    run "$BIN/esxpart" "$img"
    assert_status 0
    [[ "$output" =~ \ 1\ +8192\ +16785407\ +8\ GiB\ +linuxRaid\ +Linux\ RAID ]] || flunk "$output"
    [ "$("$BIN/esxpart" -J "$img" | jq -r '[.disks[0].partitions[] | "\(.type_name)/\(.partedutil_name)"] | join(" ")')" = "linuxRaid/unknown linuxRaid/unknown linuxRaid/unknown" ] || flunk "json"
}

@test "esxpart: a 512-byte GPT read with 4096-byte sectors (and a 4096-byte one with 512) says which size the table was written for" {
    run "$BIN/esxpart" --sector-size 4096 "$IMGDIR/good.img"
    assert_status 0
    assert_contains "  warning: GPT written for 512-byte sectors (header at byte 512), not for the 4096 given: on a 4096-byte device ESXi looks at byte 4096 and will not find it; read it with --sector-size 512"
    # the finding is an ordinary one in -J: same keys, level warning
    local json; json=$("$BIN/esxpart" -J --sector-size 4096 "$IMGDIR/good.img")
    [ "$(jq -r '[.disks[0].findings[] | select(.text | startswith("GPT written for 512-byte sectors")) | "\(keys_unsorted | join(",")) \(.level)"] | join(";")' <<< "$json")" = "level,text warning" ] || flunk "$json"
    local k=$W/4k.img
    truncate -s 64M "$k"
    printf 'g\nn\n1\n256\n\nw\n' | fdisk -b 4096 "$k" >/dev/null 2>&1
    run "$BIN/esxpart" --sector-size 512 "$k"
    assert_contains "  warning: GPT written for 4096-byte sectors (header at byte 4096), not for the 512 given: on a 512-byte device ESXi looks at byte 512 and will not find it; read it with --sector-size 4096"
    # read with the size it was written for: no such finding
    run "$BIN/esxpart" "$IMGDIR/good.img" "$k"
    assert_status 0
    assert_not_contains "GPT written for"
}

@test "esxpart: a 512-byte GPT on a block device with 4096-byte sectors is listed with a warning that ESXi will not find it" {
    [ "$(id -u)" = 0 ] && command -v losetup >/dev/null || skip "needs root and losetup"
    local img=$W/dev512.img
    mk_small_gpt "$img"
    LOOPDEV=$(losetup -f --show -b 4096 "$img" 2>/dev/null) || skip "no loop device with 4096-byte sectors here"
    [ "$(blockdev --getss "$LOOPDEV")" = 4096 ] || skip "loop device did not take 4096-byte sectors"
    run "$BIN/esxpart" "$LOOPDEV"
    assert_status 0
    assert_contains "sectors of 512 bytes, gpt, health: warning"
    assert_contains "  warning: GPT written for 512-byte sectors (header at byte 512) but the device has 4096-byte sectors: ESXi looks at byte 4096 and will not find it; rewrite the table for 4096-byte sectors"
    run "$BIN/esxpart" --verify "$LOOPDEV"
    assert_status 0   # a warning, not an error
}

@test "esxpart -p: a damaged GPT is never printed as a healthy table: one line on stderr, exit 1; a GPT read whole from its intact copy is printed, as partedUtil does" {
    local img out err rc
    # cut after its header; entry count 0xFFFFFFFF; entry size 0 (both copies, CRCs right)
    cp "$IMGDIR/good.img" "$W/trunc.img"; truncate -s 1024 "$W/trunc.img"
    cp "$IMGDIR/good.img" "$W/count.img"; gpt_patch_both "$W/count.img" 80 header ffffffff
    cp "$IMGDIR/good.img" "$W/esize.img"; gpt_patch_both "$W/esize.img" 84 header 00000000
    # cut after its header: a cut copy, no table printed for it either
    rc=0; out=$("$BIN/esxpart" -p "$W/trunc.img" 2>"$W/err") || rc=$?
    [ "$rc" = 1 ] && [ -z "$out" ] || flunk "trunc.img: exit $rc: $out"
    [ "$(cat "$W/err")" = "esxpart: $W/trunc.img: the disk is smaller than its GPT says (2097152 sectors expected, 2 present: a cut copy): no getptbl table for it; nothing printed (esxpart without -p lists the partitions)" ] || flunk "$(cat "$W/err")"
    for img in "$W/count.img" "$W/esize.img"; do
        rc=0; out=$("$BIN/esxpart" -p "$img" 2>"$W/err") || rc=$?
        [ "$rc" = 1 ] || flunk "$img: exit $rc: $out"
        [ -z "$out" ] || flunk "$img: a table printed: $out"
        err=$(cat "$W/err")
        [[ "$err" == "esxpart: $img: the partition table is damaged: "*"; nothing printed (esxpart without -p lists every finding)" ]] || flunk "$img: $err"
        [ "$(wc -l < "$W/err")" = 1 ] || flunk "$img: not one line: $err"
    done
    # the primary gone, the backup intact: its table, and the damage said, exit 1
    mk_bad_primary "$W/bp.img"
    run "$BIN/esxpart" -p "$W/bp.img"
    assert_status 1
    assert_contains "the partition table is damaged: primary GPT is damaged: no \"EFI PART\" signature at LBA 1; using the backup at LBA 2097151; its intact copy is printed"
    assert_contains "2 1050624 2097118 AA31E02A400F11DB9590000C2911D1B8 vmfs 0"
    # a good disk beside a damaged one: the good one printed, exit 1
    run "$BIN/esxpart" -p "$IMGDIR/good.img" "$W/trunc.img"
    assert_status 1
    assert_contains "130 255 63 2097152"
}

@test "esxpart: messages say what happened: an empty argument, an entry array over the GPT header, a file that shrank while read, no 'run as root' to root" {
    run "$BIN/esxpart" ''
    assert_status 2
    [ "$output" = "esxpart: '' (an empty argument): not a path (name a disk or an image file)" ] || flunk "$output"
    # entry array at LBA 1 (over the header) and 0 (over the MBR), both copies
    cp "$IMGDIR/good.img" "$W/a1.img"; gpt_patch_both "$W/a1.img" 72 header 0100000000000000
    run "$BIN/esxpart" "$W/a1.img"
    assert_contains "entry array at LBA 1 overlaps the GPT header (it starts at LBA 2 or later)"
    assert_not_contains "outside the disk"
    cp "$IMGDIR/good.img" "$W/a0.img"; gpt_patch_both "$W/a0.img" 72 header 0000000000000000
    run "$BIN/esxpart" "$W/a0.img"
    assert_contains "entry array at LBA 0 overlaps the MBR"
    # a file no one may read: another user is told to run as root; root itself
    # (euid 0 without the capabilities that pass over permissions, as under a
    # security module or in a container) is refused too and is not told so
    if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
        : > "$W/noperm.img"; chmod 000 "$W/noperm.img"
        run setpriv --reuid=65534 --regid=65534 --clear-groups "$BIN/esxpart" "$W/noperm.img"
        assert_contains "cannot open: Permission denied (run as root, or check its permissions)"
        run setpriv --bounding-set -dac_override,-dac_read_search "$BIN/esxpart" "$W/noperm.img"
        assert_status 2
        [ "$output" = "esxpart: $W/noperm.img: cannot open: Permission denied (check its permissions and whether something holds it)" ] || flunk "root: $output"
    fi
}

@test "esxpart: a file that shrinks while it is read is said to have shrunk, not to be a /proc file" {
    command -v strace >/dev/null || skip "needs strace"
    # the first read is held 3 s (strace delays it); the image is cut to 700 bytes while
    # esxpart waits in that read (/proc/PID/syscall shows pread64, 17 on x86_64: it has
    # taken the size), so the read comes back short. The watcher waits for that read as
    # long as the outer timeout allows (a loaded machine may be slow to start strace),
    # and cuts the file only then: never before esxpart has taken the size
    local img=$W/shrink.img i p
    cp --sparse=always "$IMGDIR/good.img" "$img"
    ( for i in $(seq 1 400); do
          p=$(pgrep -f "^$BIN/esxpart $img" | head -1)
          if [ -n "$p" ] && [ "$(cut -d' ' -f1 "/proc/$p/syscall" 2>/dev/null)" = 17 ]; then
              truncate -s 700 "$img"
              break
          fi
          sleep 0.05
      done ) &
    run timeout 20 strace -o "$W/trace" -e trace=fstat,pread64 -e inject=pread64:delay_enter=3000000:when=1 \
        "$BIN/esxpart" "$img"
    wait
    assert_status 2
    assert_contains "esxpart: $img: short read: it shrank from 1073741824 to 700 bytes while it was read (something else is writing it: read it again once that is done)"
    assert_not_contains "/proc or /sys"
}
