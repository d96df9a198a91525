#!/bin/bash
# Regenerates the esxpart fuzz seed corpus (test/fuzz/corpus/esxpart_parse/) from
# small images made with sgdisk/sfdisk and the writers in esxpart-images.sh.
# Every seed is a few KB to 40 KB; run from the repository root.
set -eu
cd "$(dirname "$0")/../.."
. test/lib/esxpart-images.sh
out=test/fuzz/corpus/esxpart_parse
mkdir -p "$out"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# a complete small GPT (80 sectors): protective MBR, both headers and arrays
truncate -s 40K "$tmp/gpt"
sgdisk -a 1 -n 1:34:40 -t 1:$GUID_VMFSL -n 2:41:45 -t 2:$GUID_VMFS "$tmp/gpt" >/dev/null
cp "$tmp/gpt" "$out/gpt-small"
# the same cut after the header and part of the entry array
head -c 4096 "$tmp/gpt" > "$out/gpt-truncated"
# primary header damaged, backup good
cp "$tmp/gpt" "$tmp/gptbad"; dd if=/dev/zero of="$tmp/gptbad" bs=512 seek=1 count=1 conv=notrunc status=none
cp "$tmp/gptbad" "$out/gpt-bad-primary"
# hybrid MBR
cp "$tmp/gpt" "$tmp/hyb"; sgdisk -h 1 "$tmp/hyb" >/dev/null; cp "$tmp/hyb" "$out/gpt-hybrid"
# msdos with an extended chain (two logicals), 16 KB; EBRs at LBA 10 and 19
truncate -s 16K "$tmp/dos"
sfdisk -q "$tmp/dos" >/dev/null <<'SF'
label: dos
start=4, size=6, type=fb
start=10, size=20, type=5
start=12, size=6, type=83
start=20, size=10, type=fc
SF
cp "$tmp/dos" "$out/msdos-logical"
# EBR loop: the second EBR links back to the first
cp "$tmp/dos" "$tmp/loop"; put_hex "$tmp/loop" $((19 * 512 + 446 + 16)) 00000000050000000000000008000000
cp "$tmp/loop" "$out/msdos-ebr-loop"
# a FAT16 volume with a label, and VMFS magics in a tiny GPT-less image
truncate -s 24K "$tmp/fat"; mkfs.vfat -F 12 -n BOOTBANK1 -i 1234abcd --invariant "$tmp/fat" 24 >/dev/null 2>&1 || true
cp "$tmp/fat" "$out/fat-superfloppy"
ls -l "$out"; du -cb "$out"/* | tail -1
