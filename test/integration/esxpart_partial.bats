#!/usr/bin/env bats
# esxpart on what support staff are sent: copies of a boot disk cut short by
# `dd count=` (inside the GPT's entries, inside a bootbank, inside OSDATA, just past
# the last usable sector), banks whose boot.cfg is huge, empty, binary or holds
# numbers the loader reads otherwise than written, tiny files and long labels.
# Each case is read as it is: the partitions the GPT lists, the cut ones marked, the
# whole ones read; text and -J say the same. Images from test/lib/esxpart-images.sh.
load ../lib/common

setup_file() {
    export IMGDIR; IMGDIR=$(mktemp -d /tmp/esxpart-partial.XXXXXX)
    . "$ESXDIAG_ROOT/test/lib/esxpart-images.sh"
    mk_cutbase "$IMGDIR/base.img"
    local n
    for n in 3 600000 1500000 2097119; do
        cut_copy "$IMGDIR/base.img" "$IMGDIR/cut$n.img" "$n"
    done
}

teardown_file() {
    rm -rf "$IMGDIR"
}

setup() {
    command -v jq >/dev/null || skip "needs jq"
    W=$(mktemp -d "$IMGDIR/w.XXXXXX")
    . "$ESXDIAG_ROOT/test/lib/esxpart-images.sh"
}

# cfg_of_size SIZE FILE: bootstate and title first, then '#' lines, then build and
# updated as the last 31 bytes: SIZE bytes in all
cfg_of_size() {
    local head=$'bootstate=0\ntitle=Loading VMware ESXi\n' tail=$'build=8.0.3-24022510\nupdated=4\n'
    python3 - "$1" "${#head}" "${#tail}" > "$W/pad" <<'EOF'
import sys
n = int(sys.argv[1]) - int(sys.argv[2]) - int(sys.argv[3])
line = '#' + 'x' * 62 + '\n'
sys.stdout.write(line * (n // 64) + ('#' * (n % 64 - 1) + '\n' if n % 64 else ''))
EOF
    { printf '%s' "$head"; cat "$W/pad"; printf '%s' "$tail"; } > "$2"
    [ "$(stat -c %s "$2")" = "$1" ] || flunk "boot.cfg of $(stat -c %s "$2") bytes, not $1"
}

# the bootbank detail lines of a report
bank_lines() { grep -E '^  bootbank ' <<< "$1"; }
# bank_with NAME TEXT: $W/NAME.img, one bank whose boot.cfg is TEXT (printf's format)
bank_with() {
    # shellcheck disable=SC2059
    printf "$2" > "$W/$1.cfg"
    onebank_write "$W/$1.img" "$W/$1.cfg"
}
# bank_is JQ WANT: the -J output's first bootbank, through JQ, is WANT
bank_is() {
    local got; got=$(jq -c ".disks[0].partitions[0].bootbank | $1" <<< "$output")
    [ "$got" = "$2" ] || flunk "bootbank $1: $got, not $2: $output"
}

@test "esxpart partial: dd-cut copies list the GPT's partitions, mark those past the end, read the whole ones" {
    # cut inside the entry array: entries 1-4 are in the image, partition 1 among them
    run "$BIN/esxpart" --verify "$IMGDIR/cut3.img"
    assert_status 0
    assert_contains "cut3.img: 1.5 KiB, 3 sectors of 512 bytes, gpt, health: warning"
    assert_contains "usable sectors 34-2097118, 128 entries of 128 bytes"
    assert_contains "warning: the image is smaller than its GPT says: 2097152 sectors expected, 3 present: a cut copy"
    assert_contains "warning: the cut is inside the entry array: entries 1-4 of 128 are in the image (its CRC cannot be checked)"
    [[ "$output" =~ \ 1\ +64\ +8191\ .*past-end ]] || flunk "$output"
    assert_not_contains "no partitions"
    # cut inside bootbank 2: bank 1 read, 6 and 7 marked, no bank choice claimed
    run "$BIN/esxpart" --verify "$IMGDIR/cut600000.img"
    assert_status 0
    assert_contains "2097152 sectors expected, 600000 present: a cut copy (the backup GPT and everything from sector 600000 on are not in it)"
    [[ "$output" =~ \ 5\ +8224\ +520191\ .*bootbank\ +FAT16\ BOOTBANK1\ build\ 8\.0\.3-24022510$'\n' ]] || flunk "$output"
    [[ "$output" =~ \ 6\ +520224\ +1032191\ .*past-end ]] || flunk "$output"
    [[ "$output" =~ \ 7\ +1032224\ +2097118\ .*past-end ]] || flunk "$output"
    [ "$(bank_lines "$output")" = "  bootbank 1 (partition 5): build 8.0.3-24022510, updated 4, valid: bootable; which bank boots next cannot be told: a partition that may hold a bank is cut off" ] || flunk "$output"
    assert_contains "info: which bootbank boots next cannot be told: partition 6 (linuxNative) ends past the image's end and may hold a bank"
    assert_not_contains "no VMFS-L signature"
    assert_not_contains "error"
    # cut inside OSDATA: both banks whole, so the choice is made
    run "$BIN/esxpart" --verify "$IMGDIR/cut1500000.img"
    assert_status 0
    [ "$(bank_lines "$output")" = "  bootbank 1 (partition 5): build 8.0.3-24022510, updated 4, valid: boots next
  bootbank 2 (partition 6): build 8.0.2-22380479, updated 3, valid: the fallback (another bank has a higher updated)" ] || flunk "$output"
    [[ "$output" =~ \ 7\ +1032224\ +2097118\ .*past-end ]] || flunk "$output"
    assert_contains "2097152 sectors expected, 1500000 present: a cut copy"
    # sgdisk reads the same primary (it warns, and lists them)
    run sgdisk -p "$IMGDIR/cut600000.img"
    assert_contains "smaller than the main header"
    [[ "$output" =~ \ 6\ +520224\ +1032191 ]] || flunk "sgdisk: $output"
}

@test "esxpart partial: -J of a cut copy has the header's real values, the cut and past-end flags, never zeros" {
    run "$BIN/esxpart" -J "$IMGDIR/cut600000.img"
    assert_status 0
    local g; g=$(jq -c '.disks[0].gpt' <<< "$output")
    [[ "$g" =~ ^\{\"source\":\"primary\",\"primary_ok\":true,\"backup_ok\":false,\"disk_guid\":\"[0-9A-F-]{36}\",\"first_usable\":34,\"last_usable\":2097118,\"backup_lba\":2097151,\"entries_lba\":2,\"entry_count\":128,\"entry_size\":128,\"sectors_expected\":2097152,\"cut\":true\}$ ]] || flunk "$g"
    [[ "$g" != *00000000-0000-0000-0000-000000000000* ]] || flunk "$g"
    [ "$(jq -c '[.disks[0].partitions[] | [.number, .flags]]' <<< "$output")" = '[[1,""],[5,""],[6,"past-end"],[7,"past-end"]]' ] || flunk "$output"
    [ "$(jq -c '.disks[0].partitions[] | select(.number == 5) | .bootbank | [.build, .eligible, .boots_next]' <<< "$output")" = '["8.0.3-24022510",true,false]' ] || flunk "$output"
    [ "$(jq -r '.disks[0].health' <<< "$output")" = warning ] || flunk "$output"
    # cut inside the entries: the array's CRC is unchecked, the header's values stand
    run "$BIN/esxpart" -J "$IMGDIR/cut3.img"
    [ "$(jq -c '.disks[0].gpt | [.primary_ok, .first_usable, .entry_count, .sectors_expected, .cut]' <<< "$output")" = '[false,34,128,2097152,true]' ] || flunk "$output"
    # no header at all: null, not zeros
    head -c 65536 /dev/zero > "$W/z.img"
    printf '\x55\xaa' | dd of="$W/z.img" bs=1 seek=510 conv=notrunc status=none
    printf '\x00\x00\x02\x00\xee\xff\xff\xff\x01\x00\x00\x00\x7f\x00\x00\x00' | dd of="$W/z.img" bs=1 seek=446 conv=notrunc status=none
    run "$BIN/esxpart" -J "$W/z.img"
    [ "$(jq -c '.disks[0].gpt | [.disk_guid, .first_usable, .last_usable, .entry_count, .sectors_expected, .cut]' <<< "$output")" = '[null,null,null,null,null,false]' ] || flunk "$output"
}

@test "esxpart partial: a backup GPT missing (cut after the last usable sector, or zeroed) still lists and reads every partition" {
    run "$BIN/esxpart" --verify "$IMGDIR/cut2097119.img"
    assert_status 0
    assert_contains "2097152 sectors expected, 2097119 present: a cut copy"
    assert_contains "vmfs (partition 7): OSDATA, label \"OSDATA-cut\""
    assert_not_contains "past-end"
    run "$BIN/esxpart" -J "$IMGDIR/cut2097119.img"
    [ "$(jq -c '.disks[0].gpt | [.cut, .sectors_expected, .last_usable]' <<< "$output")" = '[true,2097152,2097118]' ] || flunk "$output"
    # whole size, backup header zeroed: a damaged backup (an error), the primary read
    cp --sparse=always "$IMGDIR/base.img" "$W/nobackup.img"
    dd if=/dev/zero of="$W/nobackup.img" bs=512 seek=2097151 count=1 conv=notrunc status=none
    run "$BIN/esxpart" --verify "$W/nobackup.img"
    assert_status 1
    assert_contains "error: backup GPT at LBA 2097151 is damaged: no \"EFI PART\" signature at LBA 2097151"
    [ "$(bank_lines "$output" | wc -l)" = 2 ] || flunk "$output"
    assert_not_contains "a cut copy"
    run "$BIN/esxpart" -J "$W/nobackup.img"
    [ "$(jq -c '.disks[0].gpt | [.source, .primary_ok, .backup_ok, .cut, .sectors_expected]' <<< "$output")" = '["primary",true,false,false,2097152]' ] || flunk "$output"
}

@test "esxpart partial: -p on a cut copy prints no table and says why (exit 1); -u prints the GPT's range" {
    run "$BIN/esxpart" -p "$IMGDIR/cut600000.img"
    assert_status 1
    [ "$output" = "esxpart: $IMGDIR/cut600000.img: the disk is smaller than its GPT says (2097152 sectors expected, 600000 present: a cut copy): no getptbl table for it; nothing printed (esxpart without -p lists the partitions)" ] || flunk "$output"
    run "$BIN/esxpart" -u "$IMGDIR/cut600000.img"
    assert_status 0
    [ "$output" = "34 2097118" ] || flunk "$output"
}

@test "esxpart partial: boot.cfg read whole up to 1 MiB (30 KiB too); past it 'truncated' in text and -J, never 'no build'" {
    cfg_of_size 30720 "$W/30k.cfg"
    onebank_write "$W/30k.img" "$W/30k.cfg"
    cfg_of_size 1048576 "$W/at.cfg"
    onebank_write "$W/at.img" "$W/at.cfg"
    cfg_of_size 1049600 "$W/past.cfg"
    onebank_write "$W/past.img" "$W/past.cfg"
    local f
    for f in 30k at; do
        run "$BIN/esxpart" --verify "$W/$f.img"
        assert_status 0
        [ "$(bank_lines "$output")" = "  bootbank 1 (partition 5): build 8.0.3-24022510, updated 4, valid: boots next" ] || flunk "$f: $output"
        run "$BIN/esxpart" -J "$W/$f.img"
        [ "$(jq -c '.disks[0].partitions[0].bootbank | [.boot_cfg, .boot_cfg_bytes, .build, .updated, .boots_next]' <<< "$output")" = "[\"read\",$(stat -c %s "$W/$f.cfg"),\"8.0.3-24022510\",4,true]" ] || flunk "$f: $output"
    done
    run "$BIN/esxpart" --verify "$W/past.img"
    assert_status 0
    [ "$(bank_lines "$output")" = "  bootbank 1 (partition 5): build (not in the part read), updated 0, bootstate=0: cannot be told: boot.cfg is larger than esxpart reads, and a key past that may make it bootable (boot.cfg truncated: 1049600 bytes)" ] || flunk "$output"
    assert_contains "warning: partition 5: boot.cfg is 1049600 bytes; only the first 1048576 were read (a real one is a few KiB): a key past them is not seen"
    assert_not_contains "sets no build"
    assert_not_contains "no bootbank the loader would boot"
    run "$BIN/esxpart" -J "$W/past.img"
    bank_is '[.boot_cfg, .boot_cfg_bytes, .build, .eligible]' '["truncated",1049600,null,false]'
    [ "$(jq -r '.disks[0].findings[] | select(.level == "warning") | .text' <<< "$output")" = "partition 5: boot.cfg is 1049600 bytes; only the first 1048576 were read (a real one is a few KiB): a key past them is not seen" ] || flunk "$output"
}

@test "esxpart partial: an empty or binary boot.cfg has no key=value lines, and no 'valid' beside 'not bootable'" {
    : > "$W/empty.cfg"
    # a PNG's first bytes, an '=' among them after a key that is no word
    printf '\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x01\x02=\x03\x04\n\xff\xfe=\x80\x81\n' > "$W/bin.cfg"
    local f size
    for f in empty bin; do
        onebank_write "$W/$f.img" "$W/$f.cfg"
        size=$(stat -c %s "$W/$f.cfg")
        local bytes=bytes; [ "$size" = 1 ] && bytes=byte
        run "$BIN/esxpart" --verify "$W/$f.img"
        assert_status 1
        [ "$(bank_lines "$output")" = "  bootbank 1 (partition 5): boot.cfg ($size $bytes) has no key=value lines: not bootable" ] || flunk "$f: $output"
        assert_contains "error: partition 5: boot.cfg ($size $bytes) has no key=value lines: the loader finds no build in it"
        assert_not_contains "valid"
        run "$BIN/esxpart" -J "$W/$f.img"
        bank_is '[.boot_cfg, .lines, .state, .bootstate, .eligible, .verdict]' '["read",0,"unset",null,false,"not bootable: boot.cfg has no key=value lines"]'
    done
    # a bank that is not bootable for another reason shows its bootstate as written
    bank_with nobuild 'bootstate=0\nupdated=4\n'
    run "$BIN/esxpart" "$W/nobuild.img"
    [ "$(bank_lines "$output")" = "  bootbank 1 (partition 5): build (none), updated 4, bootstate=0: not bootable: boot.cfg sets no build" ] || flunk "$output"
}

@test "esxpart partial: numbers in boot.cfg read as esx-boot reads them (atoi into an unsigned counter), said in a finding" {
    bank_with big 'bootstate=0\nbuild=8.0.3\nupdated=99999999999999999999999\n'
    run "$BIN/esxpart" --verify "$W/big.img"
    assert_status 0
    [ "$(bank_lines "$output")" = "  bootbank 1 (partition 5): build 8.0.3, updated 4294967295 (written 99999999999999999999999), valid: boots next" ] || flunk "$output"
    assert_contains "warning: partition 5: boot.cfg's updated=\"99999999999999999999999\" is read by the loader as 4294967295 (2147483647 by the legacy BIOS loader)"
    assert_not_contains "updated is 0"
    run "$BIN/esxpart" -J "$W/big.img"
    bank_is '[.updated, .eligible, .boots_next]' '[4294967295,true,true]'
    # -5: the int -5 stored in a uint32_t
    bank_with neg 'bootstate=0\nbuild=8.0.3\nupdated=-5\n'
    run "$BIN/esxpart" "$W/neg.img"
    assert_status 0
    [ "$(bank_lines "$output")" = "  bootbank 1 (partition 5): build 8.0.3, updated 4294967291 (written -5), valid: boots next" ] || flunk "$output"
    assert_contains "warning: partition 5: boot.cfg's updated=\"-5\" is read by the loader as 4294967291"
    run "$BIN/esxpart" -J "$W/neg.img"
    [ "$(jq -c '[.disks[0].partitions[0].bootbank.updated, (.disks[0].findings[] | select(.level == "warning") | .text)]' <<< "$output")" = '[4294967291,"partition 5: boot.cfg'"'"'s updated=\"-5\" is read by the loader as 4294967291"]' ] || flunk "$output"
    # no number (a trailing comment is part of the value for the loader): the file is rejected
    bank_with junk 'bootstate=0\nbuild=8.0.3\nupdated=5 # five\n'
    run "$BIN/esxpart" --verify "$W/junk.img"
    assert_status 1
    [ "$(bank_lines "$output")" = "  bootbank 1 (partition 5): build 8.0.3, updated not read, bootstate=0: not bootable: a number in boot.cfg is no number, so the loader rejects the file" ] || flunk "$output"
    assert_contains "error: partition 5: boot.cfg's updated=\"5 # five\" is no number (the loader takes only '-' and digits): it rejects the whole file and skips this bank"
    run "$BIN/esxpart" -J "$W/junk.img"
    bank_is '[.updated, .eligible]' '[null,false]'
}

@test "esxpart partial: singular and plural; a 128-byte escaped label is cut in the table, whole in the detail line and -J" {
    printf x > "$W/one.img"
    run "$BIN/esxpart" "$W/one.img"
    assert_contains "one.img: 1 byte, 0 sectors of 512 bytes, unknown"
    assert_contains "error: only 1 byte: too small for any partition table"
    head -c 700 /dev/zero > "$W/s1.img"
    run "$BIN/esxpart" "$W/s1.img"
    assert_contains "s1.img: 700 bytes, 1 sector of 512 bytes"
    run "$BIN/esxpart" -u "$W/s1.img"
    assert_contains "no usable sectors: 1 sector of 512 bytes cannot hold a GPT"
    # a VMFS label of 32 times ESC [ 2 J: 128 bytes, 224 columns escaped
    truncate -s 256M "$W/label.img"
    sgdisk -a 1 -n 1:2048:0 -t 1:$GUID_VMFS "$W/label.img" >/dev/null
    local label; label=$(printf '\033[2J%.0s' $(seq 32))
    vmfs_write "$W/label.img" 2048 512 vmfs 6 "$label"
    run "$BIN/esxpart" "$W/label.img"
    local row; row=$(grep -E '^  1 ' <<< "$output")
    [ "${#row}" -le 120 ] || flunk "table row of ${#row} columns: $row"
    [[ "$row" == *'VMFS6 \x1b[2J'*'...' ]] || flunk "$row"
    local whole; whole=$(printf '\\x1b[2J%.0s' $(seq 32))
    assert_contains "vmfs (partition 1): datastore, label \"$whole\", UUID"
    run "$BIN/esxpart" -J "$W/label.img"
    [ "$(jq -r '.disks[0].partitions[0].vmfs.label' <<< "$output")" = "$label" ] || flunk "$output"
    [ "$(jq -r '.disks[0].partitions[0].content.label' <<< "$output")" = "$label" ] || flunk "$output"
}

@test "esxpart partial: cuts at the edges (the MBR alone, the header alone), a cut copy whose entries are damaged, a 4Kn cut copy" {
    cut_copy "$IMGDIR/base.img" "$W/c1.img" 1
    run "$BIN/esxpart" --verify "$W/c1.img"
    assert_status 0
    assert_contains "warning: protective MBR (0xEE), but the image ends before LBA 1, where the GPT header is: a cut copy of the MBR alone"
    cut_copy "$IMGDIR/base.img" "$W/c2.img" 2
    run "$BIN/esxpart" --verify "$W/c2.img"
    assert_status 0
    assert_contains "2097152 sectors expected, 2 present: a cut copy"
    assert_contains "warning: the cut is before the entry array (LBA 2): no partition can be listed"
    # a cut copy whose whole entry array fails its CRC: an error, as there is no backup
    cp --sparse=always "$IMGDIR/cut600000.img" "$W/bent.img"
    put_hex "$W/bent.img" $((2 * 512 + 100 * 128 + 70)) 41
    run "$BIN/esxpart" --verify "$W/bent.img"
    assert_status 1
    assert_contains "error: primary GPT: entry array CRC32 mismatch"
    assert_contains "(no backup in the image to read instead)"
    # 4096-byte sectors: the sizes counted in them
    mk_4kn "$W/k.img"
    dd if="$W/k.img" of="$W/kc.img" bs=4096 count=100000 conv=sparse status=none
    run "$BIN/esxpart" --verify "$W/kc.img"
    assert_status 0
    assert_contains "100000 sectors of 4096 bytes, gpt, health: warning"
    assert_contains "2097152 sectors expected, 100000 present: a cut copy"
    [[ "$output" =~ \ 2\ +262400\ +2096895\ .*past-end ]] || flunk "$output"
}
