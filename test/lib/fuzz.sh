#!/bin/bash
# make fuzz: run every libFuzzer target for SECONDS (default 60) on a copy of its
# corpus; report executions, coverage and any crash. New inputs stay in
# out/fuzz/<target>/ (not committed); crashes are saved there too.
set -u
cd "$(dirname "$0")/../.."
secs=${1:-60}
rc=0
printf '%-24s %10s %8s %8s  %s\n' target execs cov features result
for t in out/test/fuzz/*_fuzz; do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    work=out/fuzz/$name
    mkdir -p "$work/corpus"
    corpus=test/fuzz/corpus/${name%_fuzz}
    [ -d "$corpus" ] && cp -rn "$corpus/." "$work/corpus/"
    log=$work/last.log
    if (cd "$work" && "../../../$t" -max_total_time="$secs" -rss_limit_mb=2048 \
            -malloc_limit_mb=256 -timeout=10 -print_final_stats=1 corpus) >"$log" 2>&1; then
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
