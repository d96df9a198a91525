#!/usr/bin/env bats
# esxpart on real sparse disk images made at test time with sgdisk, sfdisk, fdisk and
# mkfs.vfat (plus printf/dd writers for the VMFS magics and GPT damage), cross-checked
# against sgdisk -p/-i, sfdisk -J, fdisk -l and blkid -p. Every run is read-only: the
# images' signatures (size, blocks, mtime/ctime in ns, hashes of head and tail) are
# compared before and after, and strace shows the image opened O_RDONLY, never written.
load ../lib/common

setup_file() {
    export IMGDIR; IMGDIR=$(mktemp -d /tmp/esxpart-bats.XXXXXX)
    . "$ESXDIAG_ROOT/test/lib/esxpart-images.sh"
    local f
    for f in esxi7 esxi6 nvme 4kn msdos hybrid bad_primary bad_entries_crc small_gpt; do
        "mk_$f" "$IMGDIR/$f.img"
    done
    truncate -s 1G "$IMGDIR/empty.img"
    for f in "$IMGDIR"/*.img; do img_sig "$f" > "$f.sig"; done
}

teardown_file() {
    rm -rf "$IMGDIR"
}

# size, allocated blocks, mtime and ctime in ns, and hashes of the first 32 MiB and
# the last 1 MiB (where the GPTs live); any write changes the times
img_sig() {
    stat -c '%s %b %.9Y %.9Z' "$1"
    head -c 32M "$1" | sha256sum
    tail -c 1M "$1" | sha256sum
}

setup() {
    command -v jq >/dev/null || skip "needs jq"
    W=$(mktemp -d /tmp/esxpart-w.XXXXXX)
}
teardown() { rm -rf "$W"; }

# a copy of an image we may damage further (cp keeps it sparse)
scratch() { cp --sparse=always "$IMGDIR/$1.img" "$W/$1.img"; echo "$W/$1.img"; }

# compare every partition esxpart reports with `sgdisk -i N`, and the numbers with -p
cross_check_sgdisk() {
    local img=$1 n start end guid info
    local ours theirs
    ours=$("$BIN/esxpart" -J "$img" | jq -r '.disks[0].partitions[] | "\(.number) \(.start) \(.end) \(.type_guid)"')
    [ -n "$ours" ] || flunk "no partitions from esxpart for $img"
    while read -r n start end guid; do
        info=$(sgdisk -i "$n" "$img")
        [[ "$info" == *"Partition GUID code: $guid "* ]] || flunk "partition $n: GUID $guid, sgdisk: $info"
        [[ "$info" == *"First sector: $start "* ]] || flunk "partition $n: start $start, sgdisk: $info"
        [[ "$info" == *"Last sector: $end "* ]] || flunk "partition $n: end $end, sgdisk: $info"
    done <<< "$ours"
    theirs=$(sgdisk -p "$img" | awk '/^ +[0-9]+ +[0-9]+ +[0-9]+/ {print $1, $2, $3}' | sort -n)
    [ "$theirs" = "$(cut -d' ' -f1-3 <<< "$ours" | sort -n)" ] || flunk "sgdisk -p: $theirs; esxpart: $ours"
}

# blkid -p on the whole image (table type, disk GUID) and at each partition offset
cross_check_blkid() {
    local img=$1 json n start fs label ver
    json=$("$BIN/esxpart" -J "$img")
    local table; table=$(jq -r '.disks[0].table' <<< "$json")
    local pt; pt=$(blkid -p -s PTTYPE -o value "$img" || true)
    [ "${pt/dos/msdos}" = "$table" ] || flunk "blkid PTTYPE '$pt', esxpart table '$table'"
    if [ "$table" = gpt ]; then
        local ptuuid; ptuuid=$(blkid -p -s PTUUID -o value "$img")
        [ "${ptuuid^^}" = "$(jq -r '.disks[0].gpt.disk_guid' <<< "$json")" ] || flunk "PTUUID $ptuuid"
    fi
    while IFS='|' read -r n start fs label ver; do
        local off=$((start * 512)) got
        case $fs in
        FAT*)  got=$(blkid -p -O "$off" -s LABEL -o value "$img")
               [ "$got" = "$label" ] || flunk "partition $n: blkid LABEL '$got', esxpart '$label'" ;;
        VMFS*) got=$(blkid -p -O "$off" -s VERSION -o value "$img")
               [ "$got" = "$ver" ] || flunk "partition $n: blkid VMFS VERSION '$got', esxpart '$ver'" ;;
        esac
    done < <(jq -r '.disks[0].partitions[] | select(.content != null) |
                    "\(.number)|\(.start)|\(.content.fs)|\(.content.label)|\(.content.vmfs_version)"' <<< "$json")
}

@test "esxpart: --help starts with usage and has examples and exit codes; --version" {
    run "$BIN/esxpart" --help
    assert_status 0
    [[ "${lines[0]}" == "usage: esxpart "* ]] || flunk "first line: ${lines[0]}"
    assert_contains "Examples:"
    assert_contains "Exit codes: 0 ok; 1 problems found"
    run "$BIN/esxpart" --version
    assert_status 0
    assert_contains "esxpart (esxdiag "
    run "$BIN/esxpart" ++group=host/vim/tmp --version
    assert_status 0
}

@test "esxpart: usage errors exit 2 with one line" {
    run "$BIN/esxpart" --bogus "$IMGDIR/esxi7.img"
    assert_status 2
    assert_contains "esxpart: unknown option --bogus (try 'esxpart --help')"
    run "$BIN/esxpart" --sector-size 1000 "$IMGDIR/esxi7.img"
    assert_status 2
    assert_contains "--sector-size 1000: must be 512 or 4096"
    run "$BIN/esxpart" --sector-size
    assert_status 2
    assert_contains "needs a value"
    run "$BIN/esxpart" -p -u "$IMGDIR/esxi7.img"
    assert_status 2
    assert_contains "--partedutil and --usable do not go together"
    run "$BIN/esxpart" --json=yes "$IMGDIR/esxi7.img"
    assert_status 2
    assert_contains "esxpart: option --json takes no value"
}

@test "esxpart: option spellings: -s4096, -s 4096, --sector-size=4096, bundles, options after disks, --" {
    local want; want=$("$BIN/esxpart" -p --sector-size 4096 "$IMGDIR/4kn.img")
    [[ "$want" == "gpt"* ]] || flunk "$want"
    for form in "-ps4096" "-p -s4096" "-p -s 4096" "-p --sector-size=4096" "--partedutil --sector-size 4096"; do
        run "$BIN/esxpart" $form "$IMGDIR/4kn.img"
        assert_status 0
        [ "$output" = "$want" ] || flunk "$form: $output"
    done
    run "$BIN/esxpart" "$IMGDIR/4kn.img" -p
    [ "$output" = "$want" ] || flunk "option after the disk: $output"
    run "$BIN/esxpart" -p -- "$IMGDIR/4kn.img"
    [ "$output" = "$want" ] || flunk "after --: $output"
    run "$BIN/esxpart" -p -- -J
    assert_status 2
    assert_contains "esxpart: -J: cannot open: No such file or directory"
}

@test "esxpart: ESXi 7/8 boot disk: bootbanks, OSDATA, VMFS6, ESP" {
    run "$BIN/esxpart" "$IMGDIR/esxi7.img"
    assert_status 0
    # bank 2 holds bootstate=3 (esxpart-images.sh): a warning, the disk's health
    assert_contains "esxi7.img: 160 GiB, 335544320 sectors of 512 bytes, gpt, health: warning"
    [[ "$output" =~ \ 1\ +64\ +204863\ +100\ MiB\ +systemPartition\ +boot\ loader\ \(EFI\)\ +FAT16 ]] || flunk "$output"
    [[ "$output" =~ \ 5\ +208896\ +8595455\ +4\.0\ GiB\ +linuxNative\ +bootbank\ +FAT16\ BOOTBANK1 ]] || flunk "$output"
    [[ "$output" =~ \ 6\ +8597504\ +16984063\ .*bootbank\ +FAT16\ BOOTBANK2 ]] || flunk "$output"
    [[ "$output" =~ \ 7\ +16986112\ +285421567\ +128\ GiB\ +vmfsl\ +OSDATA\ \(VMFS-L\)\ +VMFS-L\ OSDATA-5f3c2a1b ]] || flunk "$output"
    [[ "$output" =~ \ 8\ +285421568\ +335544286\ .*vmfs\ +VMFS\ datastore\ +VMFS6\ datastore1 ]] || flunk "$output"
    [ "$(grep -c warning <<< "$output")" = 2 ] || flunk "$output"
    assert_not_contains "error"
    run "$BIN/esxpart" --partedutil "$IMGDIR/esxi7.img"
    assert_status 0
    [ "$output" = "gpt
20886 255 63 335544320
1 64 204863 C12A7328F81F11D2BA4B00A0C93EC93B systemPartition 128
5 208896 8595455 EBD0A0A2B9E5443387C068B6B72699C7 linuxNative 0
6 8597504 16984063 EBD0A0A2B9E5443387C068B6B72699C7 linuxNative 0
7 16986112 285421567 4EB2EA3978554790A79EFAE495E21F8D vmfsl 0
8 285421568 335544286 AA31E02A400F11DB9590000C2911D1B8 vmfs 0" ] || flunk "$output"
    cross_check_sgdisk "$IMGDIR/esxi7.img"
    cross_check_blkid "$IMGDIR/esxi7.img"
}

@test "esxpart: ESXi 6.x layout is listed in start order 1,5,6,7,8,9,2,3" {
    run "$BIN/esxpart" -p "$IMGDIR/esxi6.img"
    assert_status 0
    [ "$(sed 1,2d <<< "$output" | cut -d' ' -f1 | tr '\n' ,)" = "1,5,6,7,8,9,2,3," ] || flunk "$output"
    assert_contains "7 1032224 1257471 9D27538040AD11DBBF97000C2911D1B8 vmkDiagnostic 0"
    assert_contains "3 15472640 33554398 AA31E02A400F11DB9590000C2911D1B8 vmfs 0"
    run "$BIN/esxpart" "$IMGDIR/esxi6.img"
    [[ "$output" =~ \ 9\ +1843200\ +7086079\ .*vmkDiagnostic\ +coredump ]] || flunk "$output"
    [[ "$output" =~ \ 3\ +15472640\ .*VMFS5\ datastore1 ]] || flunk "$output"
    [[ "$output" =~ \ 2\ +7086080\ .*FAT32\ SCRATCH ]] || flunk "$output"
    cross_check_sgdisk "$IMGDIR/esxi6.img"
    cross_check_blkid "$IMGDIR/esxi6.img"
}

@test "esxpart: type and content that disagree are reported" {
    . "$ESXDIAG_ROOT/test/lib/esxpart-images.sh"
    local img; img=$(scratch esxi6)
    # a VMFS-L volume written into the /store partition (8, Basic Data) and over the
    # coredump partition 9
    vmfs_write "$img" 1257504 512 vmfsl 6 OSDATA-wrong
    vmfs_write "$img" 1843200 512 vmfs 6 ds-on-coredump
    run "$BIN/esxpart" "$img"
    assert_status 0
    assert_contains "warning: partition 8: type linuxNative (data) but it holds VMFS-L"
    assert_contains "warning: partition 9: type vmkDiagnostic (coredump) but it holds VMFS6"
    [[ "$output" =~ \ 8\ +1257504\ .*VMFS-L\ OSDATA-wrong\ +type-mismatch ]] || flunk "$output"
    run "$BIN/esxpart" --verify "$img"
    assert_status 0   # a warning, not an error
}

@test "esxpart: the NVMe disk from the issue prints exactly what partedUtil getptbl prints" {
    run "$BIN/esxpart" --partedutil "$IMGDIR/nvme.img"
    assert_status 0
    [ "$output" = "gpt
62260 255 63 1000215216
7 2048 268435455 4EB2EA3978554790A79EFAE495E21F8D vmfsl 0
8 268435456 1000212480 AA31E02A400F11DB9590000C2911D1B8 vmfs 0" ] || flunk "$output"
    run "$BIN/esxpart" --usable "$IMGDIR/nvme.img"
    assert_status 0
    [ "$output" = "34 1000215182" ] || flunk "$output"
    cross_check_sgdisk "$IMGDIR/nvme.img"
    cross_check_blkid "$IMGDIR/nvme.img"
}

@test "esxpart: 4Kn disk: sector size found from the GPT, matches fdisk -b 4096" {
    run "$BIN/esxpart" -J "$IMGDIR/4kn.img"
    assert_status 0
    [ "$(jq -r '.disks[0] | "\(.sector_size) \(.sector_size_source) \(.sectors) \(.table)"' <<< "$output")" = "4096 gpt 2097152 gpt" ] || flunk "$output"
    local ours theirs
    ours=$(jq -r '.disks[0].partitions[] | "\(.number) \(.start) \(.end)"' <<< "$output")
    theirs=$(fdisk -b 4096 -l "$IMGDIR/4kn.img" | awk -v img="$IMGDIR/4kn.img" 'index($1, img) == 1 { n = substr($1, length(img) + 1); print n, $2, $3 }')
    [ "$ours" = "$theirs" ] || flunk "esxpart: $ours; fdisk: $theirs"
    [ "$(jq -r '[.disks[0].partitions[].content.fs] | join(",")' <<< "$output")" = "VMFS-L,VMFS6" ] || flunk "$output"
    # forced to 512 the GPT is not where it should be: an error finding
    run "$BIN/esxpart" --verify --sector-size 512 "$IMGDIR/4kn.img"
    assert_status 1
    assert_contains "no \"EFI PART\" signature at LBA 1"
    run "$BIN/esxpart" --verify --sector-size 4096 "$IMGDIR/4kn.img"
    assert_status 0
}

@test "esxpart: damaged primary GPT: the backup is used and --verify fails" {
    run "$BIN/esxpart" "$IMGDIR/bad_primary.img"
    assert_status 0
    assert_contains "gpt (from the backup GPT), health: error"
    assert_contains "error: primary GPT is damaged: no \"EFI PART\" signature at LBA 1; using the backup at LBA 2097151"
    run "$BIN/esxpart" --verify "$IMGDIR/bad_primary.img"
    assert_status 1
    # sgdisk reads the same partitions from its backup
    local img; img=$(scratch bad_primary)
    cross_check_sgdisk "$img"
    run "$BIN/esxpart" --verify "$IMGDIR/small_gpt.img"
    assert_status 0
}

@test "esxpart: bad entry-array CRC is an error finding" {
    run "$BIN/esxpart" --verify "$IMGDIR/bad_entries_crc.img"
    assert_status 1
    assert_contains "entry array CRC32 mismatch (stored 0x"
    run "$BIN/esxpart" -J "$IMGDIR/bad_entries_crc.img"
    [ "$(jq -r '.disks[0] | "\(.health) \(.gpt.source) \(.gpt.primary_ok) \(.gpt.backup_ok)"' <<< "$output")" = "error backup false true" ] || flunk "$output"
}

@test "esxpart: msdos disk with a 0xFB partition and logical partitions matches sfdisk" {
    run "$BIN/esxpart" --partedutil "$IMGDIR/msdos.img"
    assert_status 0
    [ "$output" = "msdos
522 255 63 8388608
1 2048 4196351 251 vmfs 128
2 4196352 6293503 5 extended 0
5 4198400 5246975 131 linuxNative 0
6 5249024 6293503 252 vmkDiagnostic 0" ] || flunk "$output"
    run "$BIN/esxpart" "$IMGDIR/msdos.img"
    [[ "$output" =~ \ 1\ +2048\ +4196351\ .*vmfs\ \(0xFB\)\ +VMFS\ datastore\ +VMFS5\ msdosvmfs\ +boot ]] || flunk "$output"
    [[ "$output" =~ \ 6\ +5249024\ .*coredump\ +logical ]] || flunk "$output"
    local ours theirs
    ours=$("$BIN/esxpart" -J "$IMGDIR/msdos.img" | jq -r '.disks[0].partitions[] | "\(.number) \(.start) \(.end - .start + 1) \(.mbr_type)"')
    theirs=$(sfdisk -J "$IMGDIR/msdos.img" | jq -r '.partitiontable.partitions[] | "\(.node | capture("(?<n>[0-9]+)$").n) \(.start) \(.size) \(.type | ascii_downcase)"' |
             while read -r n s z t; do echo "$n $s $z $((16#$t))"; done)
    [ "$ours" = "$theirs" ] || flunk "esxpart: $ours; sfdisk: $theirs"
    cross_check_blkid "$IMGDIR/msdos.img"
}

@test "esxpart: empty disk is 'unknown'" {
    run "$BIN/esxpart" --partedutil "$IMGDIR/empty.img"
    assert_status 0
    [ "$output" = "unknown
130 255 63 2097152" ] || flunk "$output"
    run "$BIN/esxpart" "$IMGDIR/empty.img"
    assert_contains "unknown, health: ok"
    assert_contains "no partitions"
    run blkid -p "$IMGDIR/empty.img"
    [ "$status" -eq 2 ] || flunk "blkid found something on the empty image: $output"
}

@test "esxpart: hybrid MBR is reported as a warning" {
    run "$BIN/esxpart" -J "$IMGDIR/hybrid.img"
    assert_status 0
    [ "$(jq -r '.disks[0] | "\(.table) \(.mbr.protective) \(.mbr.hybrid) \(.health)"' <<< "$output")" = "gpt true true warning" ] || flunk "$output"
    run "$BIN/esxpart" "$IMGDIR/hybrid.img"
    assert_contains "warning: hybrid MBR"
    run "$BIN/esxpart" -J "$IMGDIR/small_gpt.img"
    [ "$(jq -r '.disks[0].mbr.hybrid' <<< "$output")" = false ] || flunk "$output"
    cross_check_sgdisk "$IMGDIR/hybrid.img"
}

# --- damage made with dd, CRCs recomputed: gpt_fix and gpt_patch_both in esxpart-images.sh

@test "esxpart: the gzip CRC32 helper agrees with the GPT's own CRCs" {
    local img; img=$(scratch small_gpt)
    local before; before=$(sha256sum < "$img")
    . "$ESXDIAG_ROOT/test/lib/esxpart-images.sh"
    gpt_fix "$img" 1
    gpt_fix "$img" 2097151
    [ "$(sha256sum < "$img")" = "$before" ] || flunk "recomputed CRCs differ from sgdisk's"
}

@test "esxpart: entry count 0xFFFFFFFF and entry size 0 are refused without allocating" {
    . "$ESXDIAG_ROOT/test/lib/esxpart-images.sh"
    local img; img=$(scratch small_gpt)
    gpt_patch_both "$img" 80 header ffffffff
    run "$BIN/esxpart" --verify "$img"
    assert_status 1
    assert_contains "entry count 4294967295 is absurd"
    assert_contains "no partitions"
    img=$(scratch small_gpt)
    gpt_patch_both "$img" 84 header 00000000
    run "$BIN/esxpart" --verify "$img"
    assert_status 1
    assert_contains "entry size 0 invalid"
    # memory stays flat: peak RSS like a healthy disk's (well under 8 MiB)
    if [ -x /usr/bin/time ]; then
        run /usr/bin/time -f 'rss=%M' "$BIN/esxpart" "$img"
        local rss; rss=$(grep -o 'rss=[0-9]*' <<< "$output" | cut -d= -f2)
        [ "$rss" -lt 8192 ] || flunk "peak RSS $rss KiB"
    fi
}

@test "esxpart: overlapping and out-of-range partitions, garbage names" {
    . "$ESXDIAG_ROOT/test/lib/esxpart-images.sh"
    local img; img=$(scratch small_gpt)
    # partition 2 starts inside partition 1 (start 1000000), partition 1 ends past the usable range
    gpt_patch_both "$img" $((128 + 32)) array "$(le64 1000000)"
    run "$BIN/esxpart" --verify "$img"
    assert_status 1
    assert_contains "error: partitions 1 (2048-1050623) and 2 (1000000-2097118) overlap"
    img=$(scratch small_gpt)
    gpt_patch_both "$img" 40 array "$(le64 3000000)"
    run "$BIN/esxpart" --verify "$img"
    assert_status 1
    assert_contains "partition 1 (2048-3000000) lies outside the usable range 34-2097118"
    # a name with ESC, BEL and an unpaired surrogate: the controls JSON-escaped, the
    # surrogate (which UTF-8 cannot carry) U+FFFD
    img=$(scratch small_gpt)
    gpt_patch_both "$img" 56 array 1b005b0032004a00070000d84100ffff
    run "$BIN/esxpart" -J "$img"
    assert_status 0
    assert_contains '"name": "\u001b[2J\u0007'$'\xef\xbf\xbd''A"'
    [[ "$output" != *$'\e'* ]] || flunk "raw ESC in output"
}

@test "esxpart: image shorter than a GPT and a truncated entry array" {
    # three sectors of a 1 GiB disk: the primary header and entries 1-4 are there, so
    # the entries are listed, both past the end, and the cut is a warning
    head -c 1536 "$IMGDIR/small_gpt.img" > "$W/short.img"
    run "$BIN/esxpart" --verify "$W/short.img"
    assert_status 0
    assert_contains "gpt, health: warning"
    assert_contains "the image is smaller than its GPT says: 2097152 sectors expected, 3 present: a cut copy"
    assert_contains "the cut is inside the entry array: entries 1-4 of 128 are in the image"
    [[ "$output" =~ \ 2\ +1050624\ +2097118\ .*past-end ]] || flunk "$output"
    head -c 300 "$IMGDIR/small_gpt.img" > "$W/tiny.img"
    run "$BIN/esxpart" --verify "$W/tiny.img"
    assert_status 1
    assert_contains "only 300 bytes: too small for any partition table"
    # a 2 GiB image cut to 1 GiB: primary fine, backup gone, partition 2 past the end
    cp --sparse=always "$IMGDIR/hybrid.img" "$W/cut.img" && truncate -s 1G "$W/cut.img"
    run "$BIN/esxpart" --verify "$W/cut.img"
    assert_status 0
    assert_contains "4194304 sectors expected, 2097152 present: a cut copy"
    [[ "$output" =~ \ 1\ +2048\ +1050623\ .*data$'\n' ]] || flunk "$output"
    assert_not_contains "does not fit the disk"
}

@test "esxpart: EBR loop is stopped and reported" {
    . "$ESXDIAG_ROOT/test/lib/esxpart-images.sh"
    local img; img=$(scratch msdos)
    # the second EBR (LBA 4196352 + 1050624) links back to the first
    put_hex "$img" $(( (4196352 + 1050624) * 512 + 446 + 16 )) 00000000050000000000000000080000
    run timeout 10 "$BIN/esxpart" --verify "$img"
    assert_status 1
    assert_contains "error: EBR loop: the extended chain returns to LBA 4196352"
}

@test "esxpart: missing, directory, permission denied, empty file" {
    run "$BIN/esxpart" "$W/nope.img"
    assert_status 2
    assert_contains "esxpart: $W/nope.img: cannot open: No such file or directory"
    run "$BIN/esxpart" "$W"
    assert_status 2
    assert_contains "is a directory"
    : > "$W/zero.img"
    run "$BIN/esxpart" "$W/zero.img"
    assert_status 2
    assert_contains "esxpart: $W/zero.img: is empty (0 bytes)"
    # one readable and one not: exit 1, the readable one is still reported
    run "$BIN/esxpart" -p "$IMGDIR/nvme.img" "$W/nope.img"
    assert_status 1
    assert_contains "62260 255 63 1000215216"
    run "$BIN/esxpart" -J "$W/nope.img" "$W/zero.img"
    assert_status 2
    local json; json=$("$BIN/esxpart" -J "$W/nope.img" "$W/zero.img" 2>/dev/null) || true
    [ "$(jq -r '[.disks[].error] | join("|")' <<< "$json")" = "cannot open: No such file or directory|is empty (0 bytes)" ] || flunk "$json"
    [ "$(jq -r '.exit_code' <<< "$json")" = 2 ] || flunk "$json"
    if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
        cp --sparse=always "$IMGDIR/small_gpt.img" "$W/private.img"
        chmod 600 "$W/private.img"; chmod 755 "$W"
        run setpriv --reuid=65534 --regid=65534 --clear-groups "$BIN/esxpart" "$W/private.img"
        assert_status 2
        assert_contains "cannot open: Permission denied"
    else
        chmod 000 "$W/zero.img"
        run "$BIN/esxpart" "$W/zero.img"
        assert_status 2
        assert_contains "Permission denied"
    fi
}

@test "esxpart: opens images O_RDONLY and makes no write to them" {
    local log=$W/trace
    strace -f -qq -e trace=open,openat,pwrite64,write,ftruncate,fsync -o "$log" \
        "$BIN/esxpart" -J "$IMGDIR/esxi7.img" "$IMGDIR/msdos.img" >/dev/null
    grep -qE "open(at)?\((AT_FDCWD, )?\"$IMGDIR/esxi7.img\", O_RDONLY\|" "$log" || flunk "$(cat "$log")"
    grep -qE "open(at)?\((AT_FDCWD, )?\"$IMGDIR/msdos.img\", O_RDONLY\|" "$log" || flunk "$(cat "$log")"
    ! grep -E 'open(at)?\(.*\.img".*O_(WRONLY|RDWR)' "$log" || flunk "opened for writing"
    ! grep -E '^[0-9]+ +(pwrite64|ftruncate|fsync)' "$log" || flunk "wrote: $(cat "$log")"
    # writes go to stdout (fd 1) only
    ! grep -E '^[0-9]+ +write\([^1]' "$log" || flunk "wrote to another fd"
}

@test "esxpart: JSON keys are stable" {
    run "$BIN/esxpart" -J "$IMGDIR/esxi7.img"
    assert_status 0
    [ "$(jq -r 'keys_unsorted | join(",")' <<< "$output")" = "tool,version,disks,disks_read,disks_unreadable,disks_with_errors,verify,exit_code" ] || flunk "$output"
    [ "$(jq -r '.disks[0] | keys_unsorted | join(",")' <<< "$output")" = "path,error,size_bytes,sector_size,sector_size_source,sectors,cylinders,table,health,mbr,gpt,partitions,findings,findings_dropped" ] || flunk "$output"
    [ "$(jq -r '.disks[0].partitions[0] | keys_unsorted | join(",")' <<< "$output")" = "number,start,end,size_bytes,type_guid,mbr_type,type_name,role,partedutil_name,partedutil_attr,partition_guid,attributes,name,flags,content,bootbank,vmfs" ] || flunk "$output"
    [ "$(jq -r '.disks[0].partitions[1].content | keys_unsorted | join(",")' <<< "$output")" = "fs,vmfs_version,label,uuid,block_size,offset" ] || flunk "$output"
    [ "$(jq -r '.disks[0].partitions[3].content | "\(.fs) \(.uuid) \(.block_size)"' <<< "$output")" = "VMFS-L 1b2a3c5f-607f8e9d-b2a1-0050568a0b0c 1048576" ] || flunk "$output"
    # the VMFS UUID as blkid prints it
    [ "$(blkid -p -O $((285421568 * 512)) -s UUID_SUB -o value "$IMGDIR/esxi7.img")" = "$(jq -r '.disks[0].partitions[4].content.uuid' <<< "$output")" ] || flunk "UUID differs from blkid"
    run "$BIN/esxpart" -g -J
    assert_status 0
    [ "$(jq -r '.types[] | select(.name == "vmfsl") | .guid' <<< "$output")" = 4EB2EA3978554790A79EFAE495E21F8D ] || flunk "$output"
    [ "$(jq -r '.types[0] | keys_unsorted | join(",")' <<< "$output")" = "guid,name,partedutil_name,label,role" ] || flunk "$output"
    [ "$(jq -r '.types[] | select(.name == "linuxRaid") | .partedutil_name' <<< "$output")" = unknown ] || flunk "$output"
}

@test "esxpart: -g / --types lists the known types in esxpart's own table, not as partedUtil showGuids" {
    run "$BIN/esxpart" --types
    assert_status 0
    [ "${lines[0]}" = "type             GUID                              getptbl name     label               role" ] || flunk "${lines[0]}"
    assert_contains "vmfs             AA31E02A400F11DB9590000C2911D1B8  vmfs             vmfs                VMFS datastore"
    assert_contains "vmfsl            4EB2EA3978554790A79EFAE495E21F8D  vmfsl            -                   OSDATA (VMFS-L)"
    # showGuids lists Linux Raid, but getptbl prints unknown for it
    assert_contains "linuxRaid        A19D880F05FC4D3BA006743F0F84911E  unknown          Linux Raid          Linux RAID"
    # the table does not pass itself off as showGuids' output (whose exact form on
    # ESXi 7/8 no public capture shows)
    assert_not_contains "Partition Type"
    "$BIN/esxpart" --help | grep -q -- "-g, --types .*esxpart's table of partition types" || flunk "$("$BIN/esxpart" --help)"
    run "$BIN/esxpart" -g
    [ "${lines[0]}" = "type             GUID                              getptbl name     label               role" ] || flunk "$output"
    run "$BIN/esxpart" --showguids
    assert_status 2
}

@test "esxpart: no argument scans the machine's whole disks without failing the suite" {
    run "$BIN/esxpart"
    # 0: all read; 1: some unreadable; 2: none readable (a container with no disks)
    [ "$status" -le 2 ] || flunk "exit $status: $output"
    case $status in
    0|1) assert_contains "health:" ;;
    2) [[ "$output" == *"no disks found"* || "$output" == *"cannot open"* || "$output" == *"is empty"* ]] || flunk "$output" ;;
    esac
    run "$BIN/esxpart" -J
    [ "$status" -le 2 ] || flunk "exit $status"
    [ "$status" -eq 2 ] && [[ "$output" == *"no disks found"* ]] && return 0
    local json rc=0; json=$("$BIN/esxpart" -J 2>/dev/null) || rc=$?
    [ "$(jq -r .exit_code <<< "$json")" = "$rc" ] || flunk "$json"
}

@test "esxpart: syscall audit on the main paths (and ENOSYS on optional ones)" {
    audit_syscalls "$BIN/esxpart" "$IMGDIR/esxi7.img"
    audit_enosys "$BIN/esxpart" "$IMGDIR/esxi7.img"
    audit_syscalls "$BIN/esxpart" --partedutil "$IMGDIR/nvme.img"
    audit_enosys "$BIN/esxpart" --partedutil "$IMGDIR/nvme.img"
    audit_syscalls "$BIN/esxpart" -J --verify "$IMGDIR/bad_primary.img" "$IMGDIR/msdos.img"
    [ "$AUDIT_RC" = 1 ] || flunk "verify exit $AUDIT_RC"
    audit_enosys "$BIN/esxpart" -J --verify "$IMGDIR/bad_primary.img" "$IMGDIR/msdos.img"
    audit_syscalls "$BIN/esxpart" "$W/missing.img"
    [ "$AUDIT_RC" = 2 ] || flunk "missing exit $AUDIT_RC"
    audit_syscalls "$BIN/esxpart"
    audit_enosys "$BIN/esxpart"
    audit_syscalls "$BIN/esxpart" --types
}

# keep this test last: it checks the images after every run above
@test "esxpart: every image is unchanged after all the runs (size, blocks, times, hashes)" {
    local f n=0
    for f in "$IMGDIR"/*.img; do
        diff "$f.sig" <(img_sig "$f") || flunk "image changed: $f"
        n=$((n + 1))
    done
    [ "$n" -ge 10 ] || flunk "only $n images checked"
    # the check itself notices a change: touch a copy's data and compare
    cp --sparse=always "$IMGDIR/small_gpt.img" "$W/c.img"
    img_sig "$W/c.img" > "$W/c.sig"
    printf x | dd of="$W/c.img" bs=1 seek=600000000 conv=notrunc status=none
    ! diff -q "$W/c.sig" <(img_sig "$W/c.img") >/dev/null || flunk "img_sig missed a write"
}

# ---- hostile paths and tiny disks

@test "esxpart: FIFO, socket, character device: refused at once, the other disks still reported" {
    mkfifo "$W/fifo"
    python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$W/sock"
    # the bound is only against a hang (a FIFO with no writer blocks open() forever);
    # a run takes milliseconds
    run timeout 10 "$BIN/esxpart" "$W/fifo" "$W/sock" /dev/zero "$IMGDIR/small_gpt.img"
    assert_status 1
    assert_contains "esxpart: $W/fifo: is a FIFO (named pipe) (name a disk or an image file)"
    assert_contains "esxpart: $W/sock: is a socket (name a disk or an image file)"
    assert_contains "esxpart: /dev/zero: is a character device (name a disk or an image file)"
    assert_contains "$IMGDIR/small_gpt.img: 1 GiB, 2097152 sectors of 512 bytes, gpt, health: ok"
    local json
    json=$(timeout 10 "$BIN/esxpart" -J "$W/fifo" "$IMGDIR/small_gpt.img" /dev/null "$W/sock" 2>/dev/null) || true
    [ "$(jq -r '[.disks[] | .error // "read"] | join("|")' <<< "$json")" = \
      "is a FIFO (named pipe) (name a disk or an image file)|read|is a character device (name a disk or an image file)|is a socket (name a disk or an image file)" ] || flunk "$json"
    [ "$(jq -r '"\(.disks_read) \(.disks_unreadable) \(.exit_code)"' <<< "$json")" = "1 3 1" ] || flunk "$json"
    # only such paths: nothing readable, exit 2; and with -p/-u the same
    run timeout 10 "$BIN/esxpart" -p "$W/fifo" /dev/zero
    assert_status 2
    assert_contains "none of the 2 disks could be read"
    # open() asked not to block, and nothing was read from the FIFO or /dev/zero
    timeout 10 strace -f -qq -e trace=open,openat,read -o "$W/trace" "$BIN/esxpart" "$W/fifo" /dev/zero >/dev/null 2>&1 || true
    grep -qE "\"$W/fifo\", O_RDONLY\|O_NONBLOCK" "$W/trace" || flunk "$(cat "$W/trace")"
    ! grep -qE '^read\((3|4),' "$W/trace" || flunk "read from a refused path: $(cat "$W/trace")"
}

@test "esxpart: control bytes and non-UTF-8 bytes in paths and labels: valid JSON, \xNN in text" {
    . "$ESXDIAG_ROOT/test/lib/esxpart-images.sh"
    local img bad json
    img=$(scratch small_gpt)
    fat_write "$img" 2048 1050623 16 BOOTBANK1
    put_hex "$img" $((2048 * 512 + 43)) 1b5b324aff202020202020   # label (11 bytes): ESC [2J 0xFF
    bad="$W/"$'\e[31mdisk\xff.img'
    mv "$img" "$bad"
    run "$BIN/esxpart" "$bad"
    assert_status 0
    ! printf '%s' "$output" | LC_ALL=C grep -q $'[\x1b\xff]' || flunk "raw bytes reach the terminal: $output"
    assert_contains '\x1b[31mdisk\xff.img: 1 GiB'
    assert_contains 'FAT16 \x1b[2J\xff'
    run "$BIN/esxpart" -p "$bad" "$IMGDIR/small_gpt.img"
    assert_contains '# '"$W"'/\x1b[31mdisk\xff.img'
    run "$BIN/esxpart" "$W/nope"$'\e[2J'
    assert_contains "esxpart: $W/nope\\x1b[2J: cannot open"
    # a strict parser (UTF-8, no replacement) accepts the JSON; bytes that are not
    # UTF-8 are U+FFFD, control characters \u00XX
    json=$("$BIN/esxpart" -J "$bad")
    run python3 -c 'import json, sys
d = json.loads(sys.stdin.buffer.read().decode("utf-8", "strict"))["disks"][0]
print(ascii(d["path"]), ascii(d["partitions"][0]["content"]["label"]))' <<< "$json"
    assert_status 0
    [ "$output" = "'$W/\\x1b[31mdisk\\ufffd.img' '\\x1b[2J\\ufffd'" ] || flunk "$output"
}

@test "esxpart -u: a disk too small for a GPT (67 sectors or fewer) is an error, not '34 0'" {
    truncate -s $((67 * 512)) "$W/s67.img"
    truncate -s $((68 * 512)) "$W/s68.img"
    truncate -s $((10 * 512)) "$W/s10.img"
    run "$BIN/esxpart" -u "$W/s67.img"
    assert_status 1
    assert_contains "esxpart: $W/s67.img: no usable sectors: 67 sectors of 512 bytes cannot hold a GPT (it needs at least 68"
    assert_not_contains "34 33"
    run "$BIN/esxpart" -u "$W/s10.img"
    assert_status 1
    assert_not_contains "34 0"
    run "$BIN/esxpart" -u "$W/s68.img"
    assert_status 0
    [ "$output" = "34 34" ] || flunk "$output"
    # the other disks are still answered
    run "$BIN/esxpart" -u "$W/s67.img" "$IMGDIR/small_gpt.img"
    assert_status 1
    assert_contains "34 2097118"
}

@test "esxpart: -v is --verify (as sgdisk -v); -V is refused with a pointer" {
    run "$BIN/esxpart" -v "$IMGDIR/bad_primary.img"
    assert_status 1
    assert_contains "verify: 1 disk(s) with error-level findings"
    run "$BIN/esxpart" -v "$IMGDIR/small_gpt.img"
    assert_status 0
    run "$BIN/esxpart" -V "$IMGDIR/small_gpt.img"
    assert_status 2
    [ "${#lines[@]}" = 1 ] || flunk "$output"
    assert_contains "esxpart: -V is not an option: -v (--verify) checks the tables, --version prints the version"
    run "$BIN/esxpart" -J -x "$IMGDIR/small_gpt.img"
    assert_status 2
    [ "$output" = "esxpart: unknown option -x (try 'esxpart --help')" ] || flunk "$output"
    run "$BIN/esxpart" "$IMGDIR/small_gpt.img" -s
    assert_status 2
    [ "$output" = "esxpart: option -s needs a value: 512 or 4096 (try 'esxpart --help')" ] || flunk "$output"
}

@test "esxpart: results that cannot be written (>/dev/full) exit 2 with one line" {
    local form what
    for form in "" -J -p -u -g -gJ --help --version; do
        run bash -c '"$1" $2 "$3" >/dev/full' _ "$BIN/esxpart" "$form" "$IMGDIR/esxi7.img"
        assert_status 2
        what="the results"
        [ "$form" = --help ] && what="the help text"
        [ "$form" = --version ] && what="the version"
        [ "$output" = "esxpart: cannot write $what to stdout: No space left on device" ] ||
            flunk "esxpart $form: $output"
    done
    # written results keep their code (1: --verify found errors)
    run bash -c '"$1" -v "$2" >/dev/null' _ "$BIN/esxpart" "$IMGDIR/bad_primary.img"
    assert_status 1
}
