#!/bin/bash
# esxperf benchmark against Debian's iperf3 on loopback, like with like: esxperf
# client -> esxperf server, then iperf3 client -> iperf3 server, alternately in
# the same run, ROUNDS rounds of SECS seconds per mode; medians per column.
# CPU is each side's own figure from the client's JSON (the test period):
# cpu_utilization_percent.host_total (client) and remote_total (server).
# Gbit per CPU-second = received Gbit / (client + server CPU seconds).
# Run from anywhere:  ./test/lib/bench-esxperf.sh   (or make bench)
# ROUNDS=5 SECS=5 for steadier medians; ONLY=UDP runs the modes whose name holds it.
# Not a timed test: nothing here passes or fails on a number.
set -u
cd "$(dirname "$0")/../.."
ESXPERF=${ESXPERF:-$PWD/out/bin/esxperf}
ROUNDS=${ROUNDS:-3}
SECS=${SECS:-3}
[ -x "$ESXPERF" ] || { echo "bench-esxperf: $ESXPERF missing (run make)" >&2; exit 2; }
command -v iperf3 >/dev/null || { echo "bench-esxperf: iperf3 missing (apt-get install iperf3)" >&2; exit 2; }
command -v jq >/dev/null || { echo "bench-esxperf: jq missing (apt-get install jq)" >&2; exit 2; }
TMP=$(mktemp -d)
SRV=""
cleanup() { [ -n "$SRV" ] && kill "$SRV" 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT INT TERM
PORT=$((30000 + RANDOM % 20000))

wait_port() {
    local i
    for i in $(seq 1 50); do
        ss -ltnH "sport = :$1" | grep -q . && return 0
        sleep 0.1
    done
    return 1
}

# one run: tool (esxperf|iperf3), client args; prints
# "gbit_rx cpu_client cpu_server pps_rx loss_pct gbit_tx" or "fail"
one_run() {
    local tool=$1; shift
    local bin=iperf3 out rc
    [ "$tool" = esxperf ] && bin=$ESXPERF
    PORT=$((PORT + 1))
    "$bin" -s -1 -p "$PORT" >/dev/null 2>&1 &
    SRV=$!
    wait_port "$PORT" || { echo fail; return; }
    out=$("$bin" -c 127.0.0.1 -p "$PORT" -t "$SECS" -J "$@" 2>/dev/null); rc=$?
    wait "$SRV" 2>/dev/null
    SRV=""
    [ $rc = 0 ] || { echo fail; return; }
    jq -r '
      .end as $e |
      (if $e.sum.packets != null and (($e.sum_received.bytes // 0) == 0 or $e.sum.lost_packets != null)
         and (.start.test_start.protocol == "UDP")
       then
         ($e.sum.seconds) as $s |
         ($e.sum.packets - $e.sum.lost_packets) as $rx |
         [ ($rx * .start.test_start.blksize * 8 / $s / 1e9),
           $e.cpu_utilization_percent.host_total, $e.cpu_utilization_percent.remote_total,
           ($rx / $s), $e.sum.lost_percent,
           ($e.sum.packets * .start.test_start.blksize * 8 / $s / 1e9) ]
       else
         [ ($e.sum_received.bits_per_second / 1e9),
           $e.cpu_utilization_percent.host_total, $e.cpu_utilization_percent.remote_total,
           0, 0, ($e.sum_sent.bits_per_second / 1e9) ]
       end) | map(tostring) | join(" ")' <<<"$out" 2>/dev/null || echo fail
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (!NR) { print "nan"; exit } print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
col() { awk -v c="$1" '$1 != "fail" { print $c }' "$2" | median; }

# mode name | esxperf args | iperf3 args
MODES=(
    "TCP 1 stream|-P 1|-P 1"
    "TCP -P 2|-P 2|-P 2"
    "TCP -P 8|-P 8|-P 8"
    "TCP -Z (esxperf +skip-rx-copy)|-Z --skip-rx-copy|-Z"
    "TCP -R|-R|-R"
    "UDP -b 0 -l 1448|-u -b 0 -l 1448|-u -b 0 -l 1448"
    "UDP -b 2G -l 1448 paced|-u -b 2G -l 1448|-u -b 2G -l 1448"
)

echo "loopback, $ROUNDS rounds x ${SECS} s per tool and mode, alternating; medians"
echo "esxperf: $("$ESXPERF" --version 2>&1 | head -1); iperf3: $(iperf3 --version 2>&1 | head -1 | cut -d' ' -f1-2)"
echo
for m in "${MODES[@]}"; do
    IFS='|' read -r name eargs iargs <<<"$m"
    [[ "$name" == *"${ONLY:-}"* ]] || continue
    : >"$TMP/e"; : >"$TMP/i"
    for r in $(seq 1 "$ROUNDS"); do
        # shellcheck disable=SC2086
        one_run esxperf $eargs >>"$TMP/e"
        # shellcheck disable=SC2086
        one_run iperf3 $iargs >>"$TMP/i"
    done
    for t in e i; do
        eval "${t}_g=\$(col 1 $TMP/$t) ${t}_cc=\$(col 2 $TMP/$t) ${t}_cs=\$(col 3 $TMP/$t)"
        eval "${t}_pps=\$(col 4 $TMP/$t) ${t}_loss=\$(col 5 $TMP/$t) ${t}_tx=\$(col 6 $TMP/$t)"
        # efficiency per round, then the median
        awk '$1 != "fail" && ($2 + $3) > 0 { print $1 / (($2 + $3) / 100) }' "$TMP/$t" | median >"$TMP/$t.eff"
        eval "${t}_eff=\$(cat $TMP/$t.eff)"
        eval "${t}_fail=\$(grep -c fail $TMP/$t)"
    done
    printf '%s\n' "$name|$i_g|$e_g|$i_cc|$i_cs|$e_cc|$e_cs|$i_eff|$e_eff|$i_pps|$e_pps|$i_loss|$e_loss|$i_tx|$e_tx|$i_fail|$e_fail" >>"$TMP/rows"
done

awk -F'|' '
function r(a, b) { return (a > 0) ? sprintf("%.2f", b / a) : "n/a" }
BEGIN {
    printf "%-32s %8s %8s %6s  %-13s %-13s %7s %7s %6s  %s\n", "mode", "iperf3", "esxperf", "ratio",
           "iperf3 CPU%", "esxperf CPU%", "iperf3", "esxperf", "ratio", "notes"
    printf "%-32s %8s %8s %6s  %-13s %-13s %7s %7s %6s\n", "", "Gbit/s", "Gbit/s", "", "client/server",
           "client/server", "Gb/CPUs", "Gb/CPUs", ""
}
{
    note = ""
    if ($1 ~ /^UDP -b 0/) {
        note = sprintf("rx packets/s: iperf3 %.0fk, esxperf %.0fk (ratio %s); loss %.2f%% vs %.2f%%",
                       $10 / 1000, $11 / 1000, r($10, $11), $12, $13)
    } else if ($1 ~ /paced/) {
        note = sprintf("asked 2 Gbit/s: sent iperf3 %+.2f%%, esxperf %+.2f%%; received %+.2f%% / %+.2f%%; loss %.2f%% / %.2f%%",
                       ($14 / 2 - 1) * 100, ($15 / 2 - 1) * 100, ($2 / 2 - 1) * 100, ($3 / 2 - 1) * 100, $12, $13)
    }
    if ($16 > 0 || $17 > 0) note = note sprintf(" [failed runs: iperf3 %d, esxperf %d]", $16, $17)
    printf "%-32s %8.2f %8.2f %6s  %5.0f/%-7.0f %5.0f/%-7.0f %7.1f %7.1f %6s  %s\n", $1, $2, $3, r($2, $3),
           $4, $5, $6, $7, $8, $9, r($8, $9), note
}' "$TMP/rows"
