#!/bin/bash
# make bench: each tool's benchmark against its anchor, in the same run, as ratios.
# Every test/lib/bench-<tool>.sh whose tool is built runs in turn.
set -u
cd "$(dirname "$0")/../.."
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo "date:    $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
rc=0
for b in test/lib/bench-*.sh; do
    [ -f "$b" ] || continue
    name=$(basename "$b" .sh); name=${name#bench-}
    tool=$name
    [ "$name" = soak ] && tool=esxperf    # the soak: one esxperf -s under 1,000 tests
    [ "$name" = fleet ] && tool=esxmtu    # the fleet bench needs the kit's tools
    [ "$name" = diagnose ] && tool=esxperf # the cost of the bottleneck verdict
    [ "$name" = rr ] && tool=esxperf       # --rr beside sockperf, iperf 2, qperf
    if [ ! -x "out/bin/$tool" ]; then
        echo "== $name: not built, skipped"
        continue
    fi
    echo
    echo "== $name"
    bash "$b" || { echo "   $name benchmark failed"; rc=1; }
done
exit $rc
