#!/bin/sh
# build/dist.sh VERSION [ARCH]: pack dist/esxdiag-VERSION-ARCH.tar.gz from ARCH's binaries
# (make dist [ARCH=...] runs `make all` first): x86_64 (the default) from out/bin,
# aarch64 (ESXi-Arm) from out/aarch64/bin. One top folder esxdiag-VERSION/ (the same for
# both: a host only ever gets its own) with bin/, esxi/, README.md, the user guides a
# host needs (docs/esxperf.md, esxmtu.md, esxpart.md, esxi.md), NOTICE, LICENSE,
# licenses/ and SHA256SUMS (busybox `sha256sum -c SHA256SUMS` inside).
#
# Reproducible: the same commit gives the same bytes on any day, in any checkout:
#   SOURCE_DATE_EPOCH = the commit time (env wins; fixed fallback without git),
#   every file copied into a fresh staging folder with fixed modes (0755 programs and
#   scripts and folders, 0644 the rest), GNU tar with sorted names, owner 0:0 numeric,
#   all mtimes = SOURCE_DATE_EPOCH, no xattrs/ACLs, then `gzip -n` (no name, no time).
set -eu
LC_ALL=C
TZ=UTC
export LC_ALL TZ

if [ $# -lt 1 ] || [ $# -gt 2 ] || [ -z "$1" ]; then
    echo "usage: build/dist.sh VERSION [x86_64|aarch64] (run by make dist)" >&2
    exit 2
fi
version=$1
arch=${2:-x86_64}
cd "$(dirname "$0")/.."

die() { echo "dist: $*" >&2; exit 2; }

# per architecture: where the binaries are, what readelf calls the machine, and where
# the license texts of the musl and mbedtls they were linked with come from
case $arch in
    x86_64)
        bindir=out/bin machine='Advanced Micro Devices X86-64' mbed_lic=.cache/mbedtls/musl/LICENSE
        musl_lic=''
        for f in /usr/share/doc/musl/copyright /usr/share/doc/musl-dev/copyright; do
            [ -f "$f" ] && { musl_lic=$f; break; }
        done
        [ -n "$musl_lic" ] || die "musl's copyright file not found (apt-get install musl-dev)" ;;
    aarch64)
        bindir=out/aarch64/bin machine=AArch64 mbed_lic=.cache/mbedtls/musl-aarch64/LICENSE
        musl_lic=.cache/musl-aarch64/COPYRIGHT
        [ -f "$musl_lic" ] || die "$musl_lic missing (run make deps ARCH=aarch64: it puts it there)" ;;
    *) die "unknown architecture '$arch' (x86_64 or aarch64)" ;;
esac

if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
    SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2>/dev/null || true)
    # fixed fallback outside git: 2026-01-01 00:00:00 UTC
    [ -n "$SOURCE_DATE_EPOCH" ] || SOURCE_DATE_EPOCH=1767225600
fi
case $SOURCE_DATE_EPOCH in '' | *[!0-9]*) die "SOURCE_DATE_EPOCH '$SOURCE_DATE_EPOCH' is not a number" ;; esac

# what goes in, and where its license text comes from
# the tools are those of this tree (tools/<name>/main.c), each built into $bindir: a
# leftover file there from a tool that is gone would have no source here
tools=''
for m in tools/*/main.c; do
    [ -f "$m" ] || continue
    t=$bindir/$(basename "$(dirname "$m")")
    [ -x "$t" ] || die "$t is missing (run make ARCH=$arch first)"
    tools="$tools $t"
done
[ -n "$tools" ] || die "no tools in tools/*/main.c"
for t in "$bindir"/*; do
    case " $tools " in *" $t "*) ;; *) echo "dist: leaving out $t (no tools/$(basename "$t")/main.c)" >&2 ;; esac
done
# the tree's own files, PATH:MODE, each at the same PATH in the kit
files='esxi/prepare.sh:0755 esxi/cleanup.sh:0755 esxi/hostcli.sh:0644 esxi/README:0644
       README.md:0644 NOTICE:0644 LICENSE:0644
       docs/esxperf.md:0644 docs/esxmtu.md:0644 docs/esxpart.md:0644 docs/esxi.md:0644'
for fm in $files; do
    [ -f "${fm%:*}" ] || die "${fm%:*} is missing"
done
[ -f "$mbed_lic" ] || die "$mbed_lic missing (run make deps ARCH=$arch: it puts it there)"
jsmn_lic=/usr/share/doc/libjsmn-dev/copyright
[ -f "$jsmn_lic" ] || die "$jsmn_lic missing (apt-get install libjsmn-dev)"

top=esxdiag-$version
stage=$(mktemp -d "${TMPDIR:-/tmp}/esxdiag-dist.XXXXXX")
trap 'rm -rf "$stage"' EXIT INT TERM
kit=$stage/$top
mkdir -p "$kit/bin" "$kit/esxi" "$kit/docs" "$kit/licenses"

# put SRC DST MODE: copy content only (cat: no source mode, owner or time carried)
put() { cat "$1" > "$kit/$2" && chmod "$3" "$kit/$2"; }
for t in $tools; do
    readelf -h "$t" 2>/dev/null | grep -q "Machine: *$machine\$" ||
        die "$t is not an $arch ELF (readelf machine '$machine')"
    ! readelf -l "$t" | grep -q INTERP || die "$t is dynamically linked (PT_INTERP): not shippable"
    put "$t" "bin/$(basename "$t")" 0755
done
for fm in $files; do
    put "${fm%:*}" "${fm%:*}" "${fm#*:}"
done
put "$musl_lic" licenses/musl.copyright 0644
put "$mbed_lic" licenses/mbedtls.LICENSE 0644
put "$jsmn_lic" licenses/jsmn.copyright 0644

# SHA256SUMS: relative paths, sorted, two spaces (GNU and busybox sha256sum -c)
(cd "$kit" && find . -type f | sed 's|^\./||' | sort | while IFS= read -r f; do
    sha256sum "$f"; done) > "$stage/SHA256SUMS"
mv "$stage/SHA256SUMS" "$kit/SHA256SUMS"
chmod 0644 "$kit/SHA256SUMS"
find "$stage" -type d -exec chmod 0755 {} +

mkdir -p dist
out=dist/$top-$arch.tar.gz
tar --create --format=gnu --sort=name --owner=0 --group=0 --numeric-owner \
    --mtime="@$SOURCE_DATE_EPOCH" --no-acls --no-xattrs --no-selinux \
    -C "$stage" -f - "$top" | gzip -9 -n > "$out.tmp"
mv "$out.tmp" "$out"

size=$(wc -c < "$out")
sum=$(sha256sum "$out" | cut -d' ' -f1)
echo "dist: $out"
echo "dist: $size bytes, $(echo "$tools" | wc -w) tools, SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH"
echo "dist: sha256 $sum"
