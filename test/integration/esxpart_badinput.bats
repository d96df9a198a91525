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
