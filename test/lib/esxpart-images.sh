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

# vmfs_write IMG START_SECTOR SECTOR_SIZE KIND(vmfs|vmfsl) VERSION LABEL
# volume header at +1 MiB, FS info at +0x1300000 (magic, version, UUID, label, block size)
vmfs_write() {
    local img=$1 base=$(($2 * $3)) kind=$4 ver=$5 label=$6 magic
    [ "$kind" = vmfsl ] && magic=5ff1ab2f || magic=5ef1ab2f
    put_hex "$img" $((base + 0x100000)) "0dd001c0$(le32 "$ver")"
    put_hex "$img" $((base + 0x100000 + 0x82)) 5f3c2a1b9d8e7f60a1b20050568a0b0c
    local fs=$((base + 0x1300000))
    put_hex "$img" "$fs" "${magic}$(le32 $((ver == 6 ? 24 : 14)))03"
    put_hex "$img" $((fs + 9)) 5f3c2a1b9d8e7f60a1b20050568a0b0c
    put_str "$img" $((fs + 29)) "$label"
    put_hex "$img" $((fs + 161)) 0000100000000000
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
    fat_write "$1" 208896 8595455 16 BOOTBANK1
    fat_write "$1" 8597504 16984063 16 BOOTBANK2
    vmfs_write "$1" 16986112 512 vmfsl 6 OSDATA-5f3c2a1b-9d8e7f60-a1b2-0050568a0b0c
    vmfs_write "$1" 285421568 512 vmfs 6 datastore1
}

# ESXi 6.x boot disk (16 GiB): 1,5,6,7,8,9,2,3 in start order, VMFS5 on 3
mk_esxi6() {
    rm -f "$1"; truncate -s 16G "$1"
    sgdisk -a 1 -n 1:64:8191 -t 1:$GUID_ESP -n 5:8224:520191 -t 5:$GUID_BASIC \
        -n 6:520224:1032191 -t 6:$GUID_BASIC -n 7:1032224:1257471 -t 7:$GUID_DIAG \
        -n 8:1257504:1843199 -t 8:$GUID_BASIC -n 9:1843200:7086079 -t 9:$GUID_DIAG \
        -n 2:7086080:15472639 -t 2:$GUID_BASIC -n 3:15472640:0 -t 3:$GUID_VMFS "$1" >/dev/null
    fat_write "$1" 8224 520191 16 BOOTBANK1
    fat_write "$1" 520224 1032191 16 BOOTBANK2
    fat_write "$1" 7086080 15472639 32 SCRATCH
    vmfs_write "$1" 15472640 512 vmfs 5 datastore1
}

# an NVMe disk as partedUtil shows one: 1000215216 sectors, 7 vmfsl, 8 vmfs
mk_nvme() {
    rm -f "$1"; truncate -s $((1000215216 * 512)) "$1"
    sgdisk -n 7:2048:268435455 -t 7:$GUID_VMFSL -n 8:268435456:1000212480 -t 8:$GUID_VMFS \
        "$1" >/dev/null
    vmfs_write "$1" 2048 512 vmfsl 6 OSDATA-5f3c2a1b-9d8e7f60-a1b2-0050568a0b0c
    vmfs_write "$1" 268435456 512 vmfs 6 datastore1
}

# 4Kn disk (8 GiB, 4096-byte sectors) made with fdisk -b 4096 (sgdisk and this
# sfdisk assume 512-byte sectors on image files)
mk_4kn() {
    rm -f "$1"; truncate -s 8G "$1"
    printf 'g\nn\n1\n256\n262399\nt\n%s\nn\n2\n262400\n\nt\n2\n%s\nw\n' \
        "$GUID_VMFSL" "$GUID_VMFS" | fdisk -b 4096 "$1" >/dev/null 2>&1
    vmfs_write "$1" 256 4096 vmfsl 6 OSDATA-4kn
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
