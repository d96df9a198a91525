#!/bin/sh
# build/dist-fleet.sh VERSION: pack dist/esxdiag-fleet-VERSION.tar.gz, the fleet's
# Ansible collection (esxdiag.fleet), from esxi/fleet/collections/ansible_collections/
# esxdiag/fleet with `ansible-galaxy collection build` (make dist runs it after the kit).
# `ansible-galaxy collection install dist/esxdiag-fleet-VERSION.tar.gz` installs it,
# offline.
#
# Reproducible like the kit (build/dist.sh): ansible-galaxy's own tarball carries the
# files' mtimes and the time of the build, so it is unpacked and packed again with the
# same entries (no leading ./, as ansible-galaxy reads them by name), sorted, owner
# 0:0, 0755 folders and 0644 files, every mtime SOURCE_DATE_EPOCH, then `gzip -n`.
# MANIFEST.json and FILES.json (the checksums ansible-galaxy install verifies) are
# ansible-galaxy's, unchanged.
set -eu
LC_ALL=C
TZ=UTC
export LC_ALL TZ

if [ $# -ne 1 ] || [ -z "$1" ]; then
    echo "usage: build/dist-fleet.sh VERSION (run by make dist)" >&2
    exit 2
fi
version=$1
cd "$(dirname "$0")/.."
die() { echo "dist: $*" >&2; exit 2; }

src=esxi/fleet/collections/ansible_collections/esxdiag/fleet
have=$(sed -n 's/^version: *//p' "$src/galaxy.yml")
[ "$have" = "$version" ] ||
    die "$src/galaxy.yml has version '$have', the Makefile $version (make them the same)"
command -v ansible-galaxy > /dev/null 2>&1 ||
    die "ansible-galaxy not found: the collection needs it (apt-get install ansible-core, or make deps)"

if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
    SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2>/dev/null || true)
    [ -n "$SOURCE_DATE_EPOCH" ] || SOURCE_DATE_EPOCH=1767225600
fi
case $SOURCE_DATE_EPOCH in '' | *[!0-9]*) die "SOURCE_DATE_EPOCH '$SOURCE_DATE_EPOCH' is not a number" ;; esac

stage=$(mktemp -d "${TMPDIR:-/tmp}/esxdiag-fleet.XXXXXX")
trap 'rm -rf "$stage"' EXIT INT TERM
# ansible-galaxy's own files (its tmp, its home) go in the staging folder, not in ~
# Ansible refuses a locale that is not UTF-8
LC_ALL=C.UTF-8 ANSIBLE_HOME=$stage/home ANSIBLE_LOCAL_TEMP=$stage/tmp \
    ansible-galaxy collection build --output-path "$stage/built" "$src" > "$stage/build.log" 2>&1 ||
    { cat "$stage/build.log" >&2; die "ansible-galaxy collection build failed"; }
built=$stage/built/esxdiag-fleet-$version.tar.gz
[ -f "$built" ] || die "ansible-galaxy wrote no $built: $(cat "$stage/build.log")"

mkdir "$stage/x"
tar -xzf "$built" -C "$stage/x"
find "$stage/x" -type d -exec chmod 0755 {} +
find "$stage/x" -type f -exec chmod 0644 {} +
mkdir -p dist
out=dist/esxdiag-fleet-$version.tar.gz
# the top entries by name, sorted (ansible-galaxy's names: no spaces, no leading dot)
top=$(cd "$stage/x" && find . -mindepth 1 -maxdepth 1 | sed 's|^\./||' | sort)
# shellcheck disable=SC2086 # one word per entry
tar --create --format=gnu --sort=name --owner=0 --group=0 --numeric-owner \
    --mtime="@$SOURCE_DATE_EPOCH" --no-acls --no-xattrs --no-selinux \
    -C "$stage/x" -f - $top | gzip -9 -n > "$out.tmp"
mv "$out.tmp" "$out"
echo "dist: $out (the Ansible collection esxdiag.fleet)"
echo "dist: $(wc -c < "$out") bytes, sha256 $(sha256sum "$out" | cut -d' ' -f1)"
