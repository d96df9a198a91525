#!/usr/bin/env bats
# esxpart on hostile inputs made at test time: a file that reads shorter than its
# size, GPT entries at the top of the LBA range, an extended partition past the end
# of the disk, a GPT written for the other sector size, the admin's 4 TB RAID disk
# against partedUtil's own output, and a reader that closes the pipe. Each answer is
# one line naming the input, counted in -J, with the documented exit code.
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
teardown() { rm -rf "$W"; }

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
