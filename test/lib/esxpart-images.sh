#!/bin/bash
# Disk images for the esxpart tests and benchmark, made with the real tools
# (sgdisk, sfdisk, mkfs.vfat) plus small printf/dd writers for the VMFS magics.
# All images are sparse files. Source this file; each mk_* takes the image path.

GUID_ESP=C12A7328-F81F-11D2-BA4B-00A0C93EC93B
GUID_BASIC=EBD0A0A2-B9E5-4433-87C0-68B6B72699C7
GUID_VMFSL=4EB2EA39-7855-4790-A79E-FAE495E21F8D
GUID_VMFS=AA31E02A-400F-11DB-9590-000C2911D1B8
GUID_DIAG=9D275380-40AD-11DB-BF97-000C2911D1B8

# put_hex IMG BYTE_OFFSET HEX: write raw bytes ("0dd001c0") at an offset
put_hex() {
    local esc; esc=$(printf '%s' "$3" | sed 's/../\\x&/g')
    printf "$esc" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
# put_str IMG BYTE_OFFSET TEXT
put_str() { printf '%s' "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none; }
# le32 N -> 8 hex digits little-endian; le64 N -> 16
le32() { printf '%02x%02x%02x%02x' $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255)); }
le64() { le32 $(($1 & 0xffffffff)); le32 $(($1 >> 32 & 0xffffffff)); }

# vmfs_write IMG START_SECTOR SECTOR_SIZE KIND(vmfs|vmfsl|osdata) VERSION LABEL
# The public layout (dissect.vmfs c_lvm.py / c_vmfs.py, little-endian): the LVM device
# header at +1 MiB (magic 0xC001D00D +0, major +4, SCSI vendor[8] +0x12 and model[16]
# +0x1A, numVolumes +0x66, dataOffset +0x7A, device UUID +0x82), the FS descriptor at dataOffset + 2 MiB, i.e. +0x1300000 for a
# one-extent volume's dataOffset 0x1100000 (magic +0, major +4 (24 VMFS6, 14 VMFS5),
# minor byte +8, UUID +9, config flags +0x19 (0x800 = system volume: OSDATA), label
# +0x1D, file block size u64 +0xA1)
vmfs_write() {
    local img=$1 base=$(($2 * $3)) kind=$4 ver=$5 label=$6 magic config=0
    case $kind in
    vmfs) magic=5ef1ab2f ;;
    vmfsl) magic=5ff1ab2f ;;
    osdata) magic=5ff1ab2f config=$((0x800)) ;;
    esac
    local lvm=$((base + 0x100000))
    put_hex "$img" "$lvm" "0dd001c0$(le32 "$ver")"
    put_str "$img" $((lvm + 0x12)) "VMware  Virtual disk    "
    put_hex "$img" $((lvm + 0x66)) "$(le32 1)"
    put_hex "$img" $((lvm + 0x7A)) "$(le64 $((0x1100000)))"
    put_hex "$img" $((lvm + 0x82)) 5f3c2a1b9d8e7f60a1b20050568a0b0c
    local fs=$((base + 0x1100000 + 0x200000))
    # major 24 / minor 82 VMFS6, 14 / 81 VMFS5 (the reference's values); 4 / 31 VMFS3
    # (the bytes of vmfs-tools' test.img, a real VMFS3 volume)
    local major minor
    case $ver in 6) major=24 minor=82 ;; 5) major=14 minor=81 ;; *) major=4 minor=31 ;; esac
    put_hex "$img" "$fs" "${magic}$(le32 $major)$(printf %02x $minor)"
    put_hex "$img" $((fs + 9)) 5f3c2a1b9d8e7f60a1b20050568a0b0c
    put_hex "$img" $((fs + 0x19)) "$(le32 "$config")"
    put_str "$img" $((fs + 0x1D)) "$label"
    put_hex "$img" $((fs + 0xA1)) "$(le64 $((0x100000)))"
}

# bank_write IMG START_SECTOR END_SECTOR LABEL UUIDHEX [BOOT.CFG LINES...]
# An ESXi bootbank as the installer leaves one: FAT16 with 2 reserved sectors
# (mkfs.fat writes the boot sector at sector 0 and leaves the other reserved sector
# zero), the mark "VMWARE FAT16    " and the bank's 16-byte UUID in sector 1
# (esx-boot safeboot/vmfat.c), boot.cfg and two module files copied in with mtools.
# Without BOOT.CFG LINES no boot.cfg is written.
bank_write() {
    local img=$1 start=$2 end=$3 label=$4 uuid=$5 IFS=$' \t\n'; shift 5
    local kib=$(( (end - start + 1) / 2 )) off=$((start * 512)) tmp
    # shellcheck disable=SC2086
    mkfs.fat -F 16 -R 2 ${BANK_MKFS_OPTS:-} -n "$label" -i 1234abcd --invariant \
        --offset="$start" "$img" "$kib" >/dev/null 2>&1
    put_str "$img" $((off + 512)) "VMWARE FAT16    "
    put_hex "$img" $((off + 528)) "$uuid"
    [ $# -gt 0 ] || return 0
    tmp=$(mktemp -d)
    printf '%s\n' "$@" > "$tmp/boot.cfg"
    printf 'kernel' > "$tmp/b.b00"
    printf 'state' > "$tmp/state.tgz"
    MTOOLS_SKIP_CHECK=1 mcopy -i "$img@@$off" "$tmp/boot.cfg" "$tmp/b.b00" "$tmp/state.tgz" ::
    rm -rf "$tmp"
}

# bootcfg BUILD UPDATED BOOTSTATE: the lines of an ESXi 8 boot.cfg (the keys a real
# one has: bootstate, title, timeout, prefix, kernel, kernelopt, modules, build,
# updated), modules separated by " --- "
bootcfg() {
    echo "bootstate=$3"
    echo "title=Loading VMware ESXi"
    echo "timeout=5"
    echo "prefix="
    echo "kernel=b.b00"
    echo "kernelopt=autoPartition=FALSE"
    echo "modules=jumpstrt.gz --- useropts.gz --- features.gz --- k.b00 --- s.v00 --- state.tgz"
    echo "build=$1"
    echo "updated=$2"
}

# fat_write IMG START_SECTOR END_SECTOR FATBITS LABEL (512-byte sectors)
fat_write() {
    local kib=$(( ($3 - $2 + 1) / 2 )) lab=()
    [ -n "$5" ] && lab=(-n "$5")
    mkfs.vfat -F "$4" "${lab[@]}" -i 1234abcd --invariant --offset="$2" "$1" "$kib" >/dev/null 2>&1
}

# ESXi 7/8 boot disk (160 GiB): 1 ESP, 5/6 FAT16 bootbanks, 7 VMFS-L OSDATA, 8 VMFS6
mk_esxi7() {
    rm -f "$1"; truncate -s 160G "$1"
    sgdisk -a 1 -n 1:64:204863 -t 1:$GUID_ESP -n 5:208896:8595455 -t 5:$GUID_BASIC \
        -n 6:8597504:16984063 -t 6:$GUID_BASIC -n 7:16986112:285421567 -t 7:$GUID_VMFSL \
        -n 8:285421568:0 -t 8:$GUID_VMFS "$1" >/dev/null
    fat_write "$1" 64 204863 16 ""
    local IFS=$'\n'
    bank_write "$1" 208896 8595455 BOOTBANK1 0102030405060708090a0b0c0d0e0f10 \
        $(bootcfg 8.0.3-24022510 4 0)
    bank_write "$1" 8597504 16984063 BOOTBANK2 1112131415161718191a1b1c1d1e1f20 \
        $(bootcfg 8.0.2-22380479 3 3)
    unset IFS
    vmfs_write "$1" 16986112 512 osdata 6 OSDATA-5f3c2a1b-9d8e7f60-a1b2-0050568a0b0c
    vmfs_write "$1" 285421568 512 vmfs 6 datastore1
}

# banks_6x IMG UUID1 BUILD1 UPDATED1 UUID2 BUILD2 UPDATED2: the two 250 MB bootbanks
# of the 6.x layout, partitions 5 and 6 (8224-520191, 520224-1032191), both valid
banks_6x() {
    local IFS=$'\n'
    bank_write "$1" 8224 520191 BOOTBANK1 "$2" $(bootcfg "$3" "$4" 0)
    bank_write "$1" 520224 1032191 BOOTBANK2 "$5" $(bootcfg "$6" "$7" 0)
}

# ESXi 6.x boot disk (16 GiB): 1,5,6,7,8,9,2,3 in start order, VMFS5 on 3
mk_esxi6() {
    rm -f "$1"; truncate -s 16G "$1"
    sgdisk -a 1 -n 1:64:8191 -t 1:$GUID_ESP -n 5:8224:520191 -t 5:$GUID_BASIC \
        -n 6:520224:1032191 -t 6:$GUID_BASIC -n 7:1032224:1257471 -t 7:$GUID_DIAG \
        -n 8:1257504:1843199 -t 8:$GUID_BASIC -n 9:1843200:7086079 -t 9:$GUID_DIAG \
        -n 2:7086080:15472639 -t 2:$GUID_BASIC -n 3:15472640:0 -t 3:$GUID_VMFS "$1" >/dev/null
    banks_6x "$1" 2122232425262728292a2b2c2d2e2f30 6.7.0-15160138 2 \
        3132333435363738393a3b3c3d3e3f40 6.5.0-13932383 1
    fat_write "$1" 7086080 15472639 32 SCRATCH
    vmfs_write "$1" 15472640 512 vmfs 5 datastore1
}

# bootbank choices (8 GiB, 500 MB banks as on 8-10 GB boot media): 5 updated 9 but
# bootstate 2 (its first boot failed: rolled back), 6 and 7 valid with updated 4 (a tie:
# the earlier partition wins)
mk_banks() {
    rm -f "$1"; truncate -s 8G "$1"
    sgdisk -a 1 -n 5:2048:1026047 -t 5:$GUID_BASIC -n 6:1026048:2050047 -t 6:$GUID_BASIC \
        -n 7:2050048:3074047 -t 7:$GUID_BASIC "$1" >/dev/null
    local IFS=$'\n'
    bank_write "$1" 2048 1026047 BOOTBANK1 0102030405060708090a0b0c0d0e0f10 \
        $(bootcfg 8.0.3-24022510 9 2)
    bank_write "$1" 1026048 2050047 BOOTBANK2 1112131415161718191a1b1c1d1e1f20 \
        $(bootcfg 8.0.2-22380479 4 0)
    bank_write "$1" 2050048 3074047 BOOTBANK3 2122232425262728292a2b2c2d2e2f30 \
        $(bootcfg 8.0.1-21495797 4 0)
}

# three damaged banks (20 MiB, 512-byte clusters so boot.cfg spans clusters): 5's
# boot.cfg chain loops (the FAT entry of its first cluster, 2, points at 2), 6's runs
# past the FAT (0xFFEF, beyond the FAT's entries and the data area), 7 has no boot.cfg
mk_banks_bad() {
    rm -f "$1"; truncate -s 1G "$1"
    sgdisk -a 1 -n 5:2048:43007 -t 5:$GUID_BASIC -n 6:43008:83967 -t 6:$GUID_BASIC \
        -n 7:83968:124927 -t 7:$GUID_BASIC "$1" >/dev/null
    local IFS=$'\n' pad
    pad="# $(printf '%0600d' 0)"
    BANK_MKFS_OPTS="-s 1" bank_write "$1" 2048 43007 BOOTBANK1 \
        0102030405060708090a0b0c0d0e0f10 $(bootcfg 8.0.3-24022510 4 0) "$pad"
    BANK_MKFS_OPTS="-s 1" bank_write "$1" 43008 83967 BOOTBANK2 \
        1112131415161718191a1b1c1d1e1f20 $(bootcfg 8.0.2-22380479 3 0) "$pad"
    BANK_MKFS_OPTS="-s 1" bank_write "$1" 83968 124927 BOOTBANK3 2122232425262728292a2b2c2d2e2f30
    unset IFS
    # the first FAT starts after the 2 reserved sectors; cluster 2's entry at +4
    put_hex "$1" $((2048 * 512 + 1024 + 4)) 0200
    put_hex "$1" $((43008 * 512 + 1024 + 4)) efff
}

# VMFS volumes from the public layout (vmfs_write): 1 VMFS6, 2 VMFS-L without the
# system flag, 3 a VMFS3 volume as vmfs-tools' test image holds one (label toto,
# 1 MiB blocks; its image cannot be fetched here: Debian's mirror answers 404 for the
# source package's tarball; its bytes were read once by hand and agree), 4 an LVM header whose data offset
# lies past the partition, 5 an FS descriptor whose block size is no power of two
mk_vmfs() {
    rm -f "$1"; truncate -s 1G "$1"
    sgdisk -a 1 -n 1:2048:133119 -t 1:$GUID_VMFS -n 2:133120:264191 -t 2:$GUID_VMFSL \
        -n 3:264192:395263 -t 3:$GUID_VMFS -n 4:395264:526335 -t 4:$GUID_VMFS \
        -n 5:526336:657407 -t 5:$GUID_VMFS "$1" >/dev/null
    vmfs_write "$1" 2048 512 vmfs 6 datastore6
    vmfs_write "$1" 133120 512 vmfsl 6 notsystem
    vmfs_write "$1" 264192 512 vmfs 3 toto
    vmfs_write "$1" 395264 512 vmfs 6 baddataoffset
    put_hex "$1" $((395264 * 512 + 0x100000 + 0x7A)) "$(le64 $((1 << 40)))"
    vmfs_write "$1" 526336 512 vmfs 6 badblocksize
    put_hex "$1" $((526336 * 512 + 0x1300000 + 0xA1)) "$(le64 3)"
}

# an NVMe disk as partedUtil shows one: 1000215216 sectors, 7 vmfsl, 8 vmfs
mk_nvme() {
    rm -f "$1"; truncate -s $((1000215216 * 512)) "$1"
    sgdisk -n 7:2048:268435455 -t 7:$GUID_VMFSL -n 8:268435456:1000212480 -t 8:$GUID_VMFS \
        "$1" >/dev/null
    vmfs_write "$1" 2048 512 osdata 6 OSDATA-5f3c2a1b-9d8e7f60-a1b2-0050568a0b0c
    vmfs_write "$1" 268435456 512 vmfs 6 datastore1
}

# 4Kn disk (8 GiB, 4096-byte sectors) made with fdisk -b 4096 (sgdisk and this
# sfdisk assume 512-byte sectors on image files)
mk_4kn() {
    rm -f "$1"; truncate -s 8G "$1"
    printf 'g\nn\n1\n256\n262399\nt\n%s\nn\n2\n262400\n\nt\n2\n%s\nw\n' \
        "$GUID_VMFSL" "$GUID_VMFS" | fdisk -b 4096 "$1" >/dev/null 2>&1
    vmfs_write "$1" 256 4096 osdata 6 OSDATA-4kn
    vmfs_write "$1" 262400 4096 vmfs 6 datastore4k
}

# msdos: 1 VMFS (0xFB), 2 extended with logical 5 (Linux) and 6 (vmkcore 0xFC)
mk_msdos() {
    rm -f "$1"; truncate -s 4G "$1"
    sfdisk -q "$1" >/dev/null <<'SF'
label: dos
start=2048, size=4194304, type=fb, bootable
start=4196352, size=2097152, type=5
start=4198400, size=1048576, type=83
start=5249024, size=1044480, type=fc
SF
    vmfs_write "$1" 2048 512 vmfs 5 msdosvmfs
}

# protective MBR + GPT, then sgdisk -h turns it into a hybrid MBR
mk_hybrid() {
    rm -f "$1"; truncate -s 2G "$1"
    sgdisk -n 1:2048:1050623 -t 1:$GUID_BASIC -n 2:1050624:0 -t 2:$GUID_VMFS "$1" >/dev/null
    sgdisk -h 1 "$1" >/dev/null
}

# small GPT (1 GiB) used for the damage cases
mk_small_gpt() {
    rm -f "$1"; truncate -s 1G "$1"
    sgdisk -n 1:2048:1050623 -t 1:$GUID_BASIC -n 2:1050624:0 -t 2:$GUID_VMFS "$1" >/dev/null
}

# primary header zeroed, backup intact
mk_bad_primary() { mk_small_gpt "$1"; dd if=/dev/zero of="$1" bs=512 seek=1 count=1 conv=notrunc status=none; }
# one byte of an unused primary entry changed: entry-array CRC mismatch
mk_bad_entries_crc() { mk_small_gpt "$1"; put_hex "$1" $((2 * 512 + 100 * 128 + 70)) 41; }

# ---- GPT damage with CRCs recomputed, so the parser gets past the CRC checks
# crc32 by gzip (its trailer is the CRC32 of the input)
crc32_of() { # FILE OFFSET LENGTH -> 8 hex digits, little-endian byte order
    tail -c +$(($2 + 1)) "$1" | head -c "$3" | gzip -c | tail -c 8 | head -c 4 | od -An -tx1 | tr -d ' \n'
}
u32_at() { od -An -tu4 -j "$2" -N 4 "$1" | tr -d ' '; }
u64_at() { od -An -tu8 -j "$2" -N 8 "$1" | tr -d ' '; }
# recompute the entry-array CRC (when the header's count/size are sane) and header CRC
gpt_fix() { # IMG LBA
    local img=$1 h=$(($2 * 512)) alba count esize
    alba=$(u64_at "$img" $((h + 72))); count=$(u32_at "$img" $((h + 80))); esize=$(u32_at "$img" $((h + 84)))
    if [ "$esize" -ge 128 ] && [ "$count" -le 16384 ]; then
        put_hex "$img" $((h + 88)) "$(crc32_of "$img" $((alba * 512)) $((count * esize)))"
    fi
    put_hex "$img" $((h + 16)) 00000000
    put_hex "$img" $((h + 16)) "$(crc32_of "$img" "$h" 92)"
}
# patch IMG: bytes HEX at OFFSET inside header (+entries) of both GPTs, then fix CRCs
gpt_patch_both() { # IMG REL_OFFSET_IN_HEADER_OR_ARRAY WHERE(header|array) HEX
    local img=$1 last=$(( $(stat -c %s "$1") / 512 - 1 )) lba alba
    for lba in 1 "$last"; do
        if [ "$3" = header ]; then
            put_hex "$img" $((lba * 512 + $2)) "$4"
        else
            alba=$(u64_at "$img" $((lba * 512 + 72)))
            put_hex "$img" $((alba * 512 + $2)) "$4"
        fi
        gpt_fix "$img" "$lba"
    done
}

# ---- what support staff are sent: copies cut short, banks with odd boot.cfg files
# An ESXi 6.x-shaped 1 GiB boot disk: 1 ESP, 5/6 FAT16 bootbanks (250 MB), 7 OSDATA
# to the end. The cut copies are this image's first N sectors, as `dd count=N` makes.
mk_cutbase() {
    rm -f "$1"; truncate -s 1G "$1"
    sgdisk -a 1 -n 1:64:8191 -t 1:$GUID_ESP -n 5:8224:520191 -t 5:$GUID_BASIC \
        -n 6:520224:1032191 -t 6:$GUID_BASIC -n 7:1032224:0 -t 7:$GUID_VMFSL "$1" >/dev/null
    banks_6x "$1" 0102030405060708090a0b0c0d0e0f10 8.0.3-24022510 4 \
        1112131415161718191a1b1c1d1e1f20 8.0.2-22380479 3
    vmfs_write "$1" 1032224 512 osdata 6 OSDATA-cut
}
# cut_copy SRC DST SECTORS: the first SECTORS sectors of SRC, as dd count= copies them
cut_copy() { dd if="$1" of="$2" bs=512 count="$3" conv=sparse status=none; }

# bank_cfg IMG START END FILE: a 250 MB bank whose boot.cfg is FILE's bytes as they are
bank_cfg() {
    local off=$(($2 * 512))
    mkfs.fat -F 16 -R 2 -n BOOTBANK1 -i 1234abcd --invariant --offset="$2" "$1" \
        $(( ($3 - $2 + 1) / 2 )) >/dev/null 2>&1
    put_str "$1" $((off + 512)) "VMWARE FAT16    "
    put_hex "$1" $((off + 528)) 0102030405060708090a0b0c0d0e0f10
    local tmp; tmp=$(mktemp -d)
    cp "$4" "$tmp/boot.cfg"
    MTOOLS_SKIP_CHECK=1 mcopy -i "$1@@$off" "$tmp/boot.cfg" ::
    rm -rf "$tmp"
}
# onebank_write IMG FILE: one bank (partition 5, 64 MiB) on a 128 MiB disk, its boot.cfg
# FILE's bytes (not an mk_: those take the image alone)
onebank_write() { # IMG FILE
    rm -f "$1"; truncate -s 128M "$1"
    sgdisk -a 1 -n 5:2048:133119 -t 5:$GUID_BASIC "$1" >/dev/null
    bank_cfg "$1" 2048 133119 "$2"
}
