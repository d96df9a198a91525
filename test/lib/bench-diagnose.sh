#!/bin/bash
# The cost of the bottleneck verdict's evidence (docs/esxperf.md#the-bottleneck-verdict):
# esxperf client -> esxperf server on loopback, one stream, ROUNDS runs of SECS
# seconds with the evidence (the default) and as many without
# (ESXPERF_ENGINE_OFF=evidence: the streams read nothing at their start and end),
# alternating so both see the same load. Medians of the rate, of the bits per CPU
# second (client plus server) and of the whole run's wall time (the verdict's end
# reads: TCP_INFO, /proc, the link's speed), and each with/without as a ratio: within
# the runs' own spread, nothing is added per interval.
# Run from anywhere:  ./test/lib/bench-diagnose.sh   (or make bench); ROUNDS=9 SECS=5
# for steadier medians. Not a timed test: nothing here passes or fails on a number.
set -u
cd "$(dirname "$0")/../.." || exit 2
ESXPERF=${ESXPERF:-$PWD/out/bin/esxperf}
ROUNDS=${ROUNDS:-5}
SECS=${SECS:-3}
[ -x "$ESXPERF" ] || { echo "bench-diagnose: $ESXPERF missing (run make)" >&2; exit 2; }
command -v jq >/dev/null || { echo "bench-diagnose: jq missing (apt-get install jq)" >&2; exit 2; }
TMP=$(mktemp -d)
PORT=$((20000 + RANDOM % 12000))
"$ESXPERF" -s -p "$PORT" -D -I "$TMP/server.pid" || exit 2
cleanup() { [ -s "$TMP/server.pid" ] && kill "$(cat "$TMP/server.pid")" 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT INT TERM
for _ in $(seq 1 50); do ss -ltnH "sport = :$PORT" | grep -q . && break; sleep 0.1; done

# one run: "Gbit/s Gbit-per-CPU-s wall-ms" into the file $1, with the environment $2
one_run() {
    local t0 t1
    t0=$(date +%s%N)
    env $2 "$ESXPERF" -c 127.0.0.1 -p "$PORT" -t "$SECS" -J > "$TMP/run.json" 2>/dev/null || { echo fail >> "$1"; return; }
    t1=$(date +%s%N)
    jq -r --arg secs "$SECS" --arg wall "$(( (t1 - t0) / 1000000 ))" '.end as $e |
        ($e.sum_received.bits_per_second / 1e9) as $g |
        (($e.cpu_utilization_percent.host_total + $e.cpu_utilization_percent.remote_total) / 100 * ($secs | tonumber)) as $c |
        "\($g) \(if $c > 0 then $g * ($secs | tonumber) / $c else 0 end) \($wall)"' "$TMP/run.json" >> "$1"
    sleep 0.2
}
median() { sort -g | awk '{ v[NR] = $1 } END { if (!NR) { print "nan"; exit } print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
col() { awk -v c="$1" '$1 != "fail" { print $c }' "$2" | median; }

for _ in $(seq 1 "$ROUNDS"); do
    one_run "$TMP/with" "ESXPERF_BENCH=1"
    one_run "$TMP/without" "ESXPERF_ENGINE_OFF=evidence"
done
echo "bench-diagnose: the verdict's evidence, esxperf -> esxperf on loopback, $ROUNDS x ${SECS}s each, medians"
printf '%-28s %10s %10s %10s\n' "" "with" "without" "ratio"
n=1
for what in "Gbit/s" "Gbit per CPU-second" "run wall time (ms)"; do
    w=$(col "$n" "$TMP/with") o=$(col "$n" "$TMP/without")
    printf '%-28s %10.2f %10.2f %10s\n' "$what" "$w" "$o" "$(awk -v a="$w" -v b="$o" 'BEGIN { printf (b > 0 ? "%.3f" : "n/a"), a / b }')"
    n=$((n + 1))
done
for f in with without; do
    printf '%-28s %s\n' "spread ($f, Gbit/s)" "$(awk '$1 != "fail" { printf "%.2f ", $1 }' "$TMP/$f")"
done
