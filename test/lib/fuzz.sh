#!/bin/bash
# Run every libFuzzer target for SECONDS (default 60) on its committed corpus plus
# what earlier runs found; report executions, coverage and any crash, one row each.
#   make fuzz                 -> out/fuzz/<target>/ keeps the growing corpus, crashes
#                                and last.log (not committed)
#   fuzz.sh SECONDS WORKROOT  -> the same under WORKROOT (make test uses a fresh one)
set -u
cd "$(dirname "$0")/../.." || exit 2
ROOT=$(pwd)
secs=${1:-60}
workroot=${2:-$ROOT/out/fuzz}
rc=0
printf '%-24s %10s %8s %8s  %s\n' target execs cov features result
for t in out/test/fuzz/*_fuzz; do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    work=$workroot/$name
    mkdir -p "$work/corpus"
    corpus=test/fuzz/corpus/${name%_fuzz}
    [ -d "$corpus" ] && cp -rn "$corpus/." "$work/corpus/"
    log=$work/last.log
    if (cd "$work" && timeout $((secs * 3 + 60)) "$ROOT/$t" -max_total_time="$secs" \
            -rss_limit_mb=2048 -malloc_limit_mb=256 -timeout=10 -print_final_stats=1 corpus) \
            >"$log" 2>&1; then
        res=ok
    else
        res="FAILED (see $log)"; rc=1
    fi
    execs=$(grep -oE 'number_of_executed_units: *[0-9]+' "$log" | grep -oE '[0-9]+$' | tail -1)
    cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+')
    ft=$(grep -oE 'ft: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+')
    printf '%-24s %10s %8s %8s  %s\n' "$name" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$res"
done
exit $rc
