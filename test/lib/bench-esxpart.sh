#!/bin/bash
# esxpart benchmark: scan 64 sparse image files (ESXi 7, ESXi 6, NVMe and msdos
# layouts, 16 of each) and compare with `sgdisk -p` on the same files (the anchor).
# Prints a small table: wall time, per image, ratio, peak RSS, binary size, and the
# peak RSS for a GPT whose header claims 0xFFFFFFFF entries (memory must stay flat).
# Run from anywhere: ./test/lib/bench-esxpart.sh  (uses out/bin/esxpart)
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${ESXDIAG_BIN:-$ROOT/out/bin}
ESXPART=$BIN/esxpart
[ -x "$ESXPART" ] || { echo "bench-esxpart: $ESXPART missing (run make first)" >&2; exit 2; }
for t in sgdisk sfdisk mkfs.vfat; do
    command -v "$t" >/dev/null || { echo "bench-esxpart: $t missing (apt-get install gdisk fdisk dosfstools)" >&2; exit 2; }
done
. "$ROOT/test/lib/esxpart-images.sh"
DIR=$(mktemp -d /tmp/esxpart-bench.XXXXXX)
trap 'rm -rf "$DIR"' EXIT

for l in esxi7 esxi6 nvme msdos; do
    "mk_$l" "$DIR/$l-00.img"
    for i in $(seq -w 1 15); do cp --sparse=always "$DIR/$l-00.img" "$DIR/$l-$i.img"; done
done
IMGS=("$DIR"/*.img)
N=${#IMGS[@]}

now() { date +%s%N; }
# peak RSS in KiB of one command (GNU time's getrusage ru_maxrss); n/a without it
peak_rss() {
    if [ -x /usr/bin/time ]; then
        /usr/bin/time -f '%M' "$@" 2>&1 >/dev/null | tail -1
    else
        echo n/a
    fi
}
ms() { awk -v ns="$1" 'BEGIN { printf "%.1f ms", ns / 1e6 }'; }
per() { awk -v ns="$1" -v n="$N" 'BEGIN { printf "%.2f ms", ns / 1e6 / n }'; }

# warm the page cache once so every contender reads the same cached blocks
"$ESXPART" "${IMGS[@]}" >/dev/null 2>&1 || true

t0=$(now); "$ESXPART" "${IMGS[@]}" >/dev/null 2>&1 || true; t1=$(now)
one_run=$((t1 - t0))
t0=$(now); for f in "${IMGS[@]}"; do "$ESXPART" "$f" >/dev/null 2>&1 || true; done; t1=$(now)
each_run=$((t1 - t0))
t0=$(now); for f in "${IMGS[@]}"; do "$ESXPART" --partedutil "$f" >/dev/null 2>&1 || true; done; t1=$(now)
parted_run=$((t1 - t0))
t0=$(now); for f in "${IMGS[@]}"; do sgdisk -p "$f" >/dev/null 2>&1 || true; done; t1=$(now)
sgdisk_run=$((t1 - t0))

rss_esxpart=$(peak_rss "$ESXPART" "${IMGS[@]}")
rss_one=$(peak_rss "$ESXPART" "$DIR/esxi7-00.img")
rss_sgdisk=$(peak_rss sgdisk -p "$DIR/esxi7-00.img")

# a GPT whose headers claim 0xFFFFFFFF entries (header CRCs fixed)
mk_small_gpt "$DIR/huge-count.bad"
gpt_patch_both "$DIR/huge-count.bad" 80 header ffffffff
# the RSS figure means something only if esxpart really saw the huge count
"$ESXPART" "$DIR/huge-count.bad" 2>&1 | grep -q "entry count 4294967295 is absurd" ||
    { echo "bench-esxpart: huge-count.bad is not the image it should be" >&2; exit 1; }
rss_huge=$(peak_rss "$ESXPART" "$DIR/huge-count.bad")

size=$(stat -c %s "$ESXPART")
printf '%-44s %12s %12s\n' "esxpart bench ($N images)" "wall" "per image"
printf '%-44s %12s %12s\n' "esxpart, one run over all images" "$(ms $one_run)" "$(per $one_run)"
printf '%-44s %12s %12s\n' "esxpart, one run per image" "$(ms $each_run)" "$(per $each_run)"
printf '%-44s %12s %12s\n' "esxpart --partedutil, one run per image" "$(ms $parted_run)" "$(per $parted_run)"
printf '%-44s %12s %12s\n' "sgdisk -p, one run per image (anchor)" "$(ms $sgdisk_run)" "$(per $sgdisk_run)"
printf '%-44s %12s\n' "ratio sgdisk / esxpart (one run per image)" \
    "$(awk -v a="$sgdisk_run" -v b="$each_run" 'BEGIN { printf "%.1fx", a / b }')"
printf '%-44s %12s\n' "ratio sgdisk / esxpart (one run, all images)" \
    "$(awk -v a="$sgdisk_run" -v b="$one_run" 'BEGIN { printf "%.1fx", a / b }')"
printf '%-44s %9s KiB\n' "peak RSS esxpart, all $N images" "$rss_esxpart"
printf '%-44s %9s KiB\n' "peak RSS esxpart, one image" "$rss_one"
printf '%-44s %9s KiB\n' "peak RSS esxpart, entry count 0xFFFFFFFF" "$rss_huge"
printf '%-44s %9s KiB\n' "peak RSS sgdisk -p, one image" "$rss_sgdisk"
printf '%-44s %9s B  (%s KiB)\n' "binary size out/bin/esxpart" "$size" "$(awk -v s="$size" 'BEGIN { printf "%.1f", s / 1024 }')"
# the issue's target: 64 images well under a second
[ "$one_run" -lt 1000000000 ] || { echo "bench-esxpart: scanning $N images took $(ms $one_run), expected < 1 s" >&2; exit 1; }
