#!/usr/bin/env bats
# esxpart reads what is on ESXi's partitions: bootbanks made with mkfs.fat and mcopy
# (the mark in sector 1 as the installer writes it) with the bank that boots next by
# the loader's rules, and VMFS / VMFS-L headers built from the public layout; damaged
# banks and self-contradicting headers are error findings (exit 1 under --verify).
# The images come from test/lib/esxpart-images.sh (aarch64.bats runs them too).
load ../lib/common

setup_file() {
    export IMGDIR; IMGDIR=$(mktemp -d /tmp/esxpart-contents.XXXXXX)
    . "$ESXDIAG_ROOT/test/lib/esxpart-images.sh"
    local f
    for f in esxi7 esxi6 banks banks_bad vmfs; do
        "mk_$f" "$IMGDIR/$f.img"
    done
}

teardown_file() {
    rm -rf "$IMGDIR"
}

setup() {
    command -v jq >/dev/null || skip "needs jq"
}

# the bank lines and the table's content column of an image
bank_lines() { grep -E '^  (bootbank|vmfs|coredump) ' <<< "$1"; }

@test "esxpart contents: ESXi 8 disk: two bootbanks, OSDATA, datastore in text" {
    run "$BIN/esxpart" "$IMGDIR/esxi7.img"
    assert_status 0
    [[ "$output" =~ \ 5\ +208896\ .*bootbank\ +FAT16\ BOOTBANK1\ build\ 8\.0\.3-24022510 ]] || flunk "$output"
    [[ "$output" =~ \ 6\ +8597504\ .*bootbank\ +FAT16\ BOOTBANK2\ build\ 8\.0\.2-22380479 ]] || flunk "$output"
    [ "$(bank_lines "$output")" = '  bootbank 1 (partition 5): build 8.0.3-24022510, updated 4, valid: boots next
  bootbank 2 (partition 6): build 8.0.2-22380479, updated 3, invalid (bootstate=3): a failed boot rolled back from it
  vmfs (partition 7): OSDATA, label "OSDATA-5f3c2a1b-9d8e7f60-a1b2-0050568a0b0c", UUID 1b2a3c5f-607f8e9d-b2a1-0050568a0b0c, VMFS-L-6.82, 1 MiB blocks, first extent
  vmfs (partition 8): datastore, label "datastore1", UUID 1b2a3c5f-607f8e9d-b2a1-0050568a0b0c, VMFS-6.82, 1 MiB blocks, first extent' ] || flunk "$output"
    assert_contains "warning: partition 6: bootbank 2 is invalid (bootstate=3)"
    assert_not_contains "error"
    # the boot.cfg esxpart read is the one mtools reads
    local cfg; cfg=$(MTOOLS_SKIP_CHECK=1 mtype -i "$IMGDIR/esxi7.img@@$((208896 * 512))" ::BOOT.CFG)
    [[ "$cfg" == *"build=8.0.3-24022510"* ]] || flunk "mtype: $cfg"
}

@test "esxpart contents: ESXi 8 disk in -J: bootbank and vmfs objects" {
    run "$BIN/esxpart" -J "$IMGDIR/esxi7.img"
    assert_status 0
    local p='.disks[0].partitions[]'
    [ "$(jq -c "$p | select(.number == 5) | .bootbank" <<< "$output")" = '{"index":1,"uuid":"0102030405060708090a0b0c0d0e0f10","boot_cfg":"read","boot_cfg_bytes":216,"lines":9,"build":"8.0.3-24022510","updated":4,"bootstate":0,"state":"valid","eligible":true,"boots_next":true,"verdict":"boots next","title":"Loading VMware ESXi","kernelopt":"autoPartition=FALSE","modules":6}' ] || flunk "$output"
    [ "$(jq -r "$p | select(.number == 6) | .bootbank | \"\(.state) \(.bootstate) \(.boots_next) \(.eligible)\"" <<< "$output")" = "invalid 3 false false" ] || flunk "$output"
    [ "$(jq -c "$p | select(.number == 7) | .vmfs | [.kind, .label, .version, .block_size, .osdata, .first_extent, .data_offset]" <<< "$output")" = '["vmfs-l","OSDATA-5f3c2a1b-9d8e7f60-a1b2-0050568a0b0c","VMFS-L-6.82",1048576,true,true,17825792]' ] || flunk "$output"
    [ "$(jq -c "$p | select(.number == 8) | .vmfs | [.kind, .label, .uuid, .version, .osdata, .lvm_uuid, .lvm_version, .volumes, .vendor, .model]" <<< "$output")" = '["vmfs","datastore1","1b2a3c5f-607f8e9d-b2a1-0050568a0b0c","VMFS-6.82",false,"1b2a3c5f-607f8e9d-b2a1-0050568a0b0c",6,1,"VMware","Virtual disk"]' ] || flunk "$output"
    [ "$(jq -r "$p | select(.number == 1) | \"\(.bootbank) \(.vmfs)\"" <<< "$output")" = "null null" ] || flunk "$output"
}

@test "esxpart contents: ESXi 6.7 disk: 250 MB banks, the higher updated boots, coredumps by type" {
    run "$BIN/esxpart" "$IMGDIR/esxi6.img"
    assert_status 0
    [ "$(bank_lines "$output")" = '  bootbank 1 (partition 5): build 6.7.0-15160138, updated 2, valid: boots next
  bootbank 2 (partition 6): build 6.5.0-13932383, updated 1, valid: the fallback (another bank has a higher updated)
  coredump (partition 7): by type only (no public layout of the dump header to read)
  coredump (partition 9): by type only (no public layout of the dump header to read)
  vmfs (partition 3): datastore, label "datastore1", UUID 1b2a3c5f-607f8e9d-b2a1-0050568a0b0c, VMFS-5.81, 1 MiB blocks, first extent' ] || flunk "$output"
    [[ "$output" =~ \ 2\ +7086080\ .*FAT32\ SCRATCH ]] || flunk "$output"
}

@test "esxpart contents: a dirty bank is rolled back from; on a tie of updated the earlier partition boots" {
    run "$BIN/esxpart" --verify "$IMGDIR/banks.img"
    assert_status 0
    [ "$(bank_lines "$output")" = '  bootbank 1 (partition 5): build 8.0.3-24022510, updated 9, dirty (bootstate=2): its first boot after an upgrade did not finish: the next boot marks it invalid and rolls back from it
  bootbank 2 (partition 6): build 8.0.2-22380479, updated 4, valid: boots next
  bootbank 3 (partition 7): build 8.0.1-21495797, updated 4, valid: the fallback (another bank has a higher updated)' ] || flunk "$output"
    run "$BIN/esxpart" -J "$IMGDIR/banks.img"
    [ "$(jq -r '.disks[0].partitions[] | "\(.number) \(.bootbank.state) \(.bootbank.boots_next)"' <<< "$output" | tr '\n' ,)" = "5 dirty false,6 valid true,7 valid false," ] || flunk "$output"
}

@test "esxpart contents: a looping chain, a chain past the FAT, a missing boot.cfg: errors, --verify exits 1" {
    run "$BIN/esxpart" --verify "$IMGDIR/banks_bad.img"
    assert_status 1
    assert_contains "error: partition 5: bootbank's boot.cfg: its cluster chain loops (at cluster 2): the loader cannot read it"
    assert_contains "error: partition 6: bootbank's boot.cfg: its cluster chain runs past the FAT (at cluster 65519): the loader cannot read it"
    assert_contains "error: partition 7: bootbank's boot.cfg: not in the root directory: the loader skips this bank"
    assert_contains "error: no bootbank the loader would boot (3 found): ESXi does not start from this disk"
    assert_contains "bootbank 3 (partition 7): uuid 2122232425262728292a2b2c2d2e2f30, boot.cfg: not in the root directory"
    run "$BIN/esxpart" -J "$IMGDIR/banks_bad.img"
    assert_status 0
    [ "$(jq -r '.disks[0].partitions[] | "\(.number) \(.bootbank.boot_cfg) \(.bootbank.build)"' <<< "$output" | tr '\n' ,)" = "5 its cluster chain loops null,6 its cluster chain runs past the FAT null,7 not in the root directory null," ] || flunk "$output"
}

@test "esxpart contents: VMFS6, VMFS-L without the system flag, VMFS3 'toto'; bad offset and block size are errors" {
    run "$BIN/esxpart" --verify "$IMGDIR/vmfs.img"
    assert_status 1
    assert_contains '  vmfs (partition 1): datastore, label "datastore6", UUID 1b2a3c5f-607f8e9d-b2a1-0050568a0b0c, VMFS-6.82, 1 MiB blocks, first extent'
    assert_contains '  vmfs (partition 2): VMFS-L (not a system volume), label "notsystem",'
    assert_contains '  vmfs (partition 3): datastore, label "toto", UUID 1b2a3c5f-607f8e9d-b2a1-0050568a0b0c, VMFS-3.31, 1 MiB blocks, first extent'
    assert_contains "error: partition 4: VMFS: LVM header's data offset 1099511627776 is not sector-aligned or leaves no room for the FS descriptor in the partition's 67108864 bytes"
    assert_contains "error: partition 5: VMFS: FS descriptor's file block size 3 is not a power of two from 512 bytes to 1 GiB"
    run "$BIN/esxpart" -J "$IMGDIR/vmfs.img"
    [ "$(jq -r '.disks[0].partitions[] | "\(.number) \(.vmfs.kind) \(.vmfs.osdata) \(.vmfs.block_size) \(.vmfs.first_extent)"' <<< "$output" | tr '\n' ,)" = "1 vmfs false 1048576 true,2 vmfs-l false 1048576 true,3 vmfs false 1048576 true,4 null false null false,5 vmfs false null true," ] || flunk "$output"
    # blkid reads the LVM header's version and device UUID alike
    [ "$(blkid -p -O $((264192 * 512)) -s VERSION -o value "$IMGDIR/vmfs.img")" = 3 ] || flunk "blkid disagrees"
    [ "$(blkid -p -O $((264192 * 512)) -s UUID_SUB -o value "$IMGDIR/vmfs.img")" = "$(jq -r '.disks[0].partitions[2].vmfs.lvm_uuid' <<< "$output")" ] || flunk "blkid disagrees"
}
