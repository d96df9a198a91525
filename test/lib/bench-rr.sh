#!/bin/bash
# esxperf --rr (docs/esxperf.md#request-response-latency---rr) beside the latency
# tools on the same path, same 64-byte request and answer, one transaction in flight,
# back to back: sockperf ping-pong (--full-rtt: its percentiles of the round trip),
# iperf 2.1's --bounceback (--bounceback-period 0; it gives the mean round trip, its
# histogram's bins are 100 us wide) and qperf tcp_lat (the mean one-way latency: half
# the round trip, doubled here). Two paths: loopback, and a veth pair between two
# network namespaces of the bench's own (198.18.60.1 - 198.18.60.2). Per tool: the
# median p50 (or mean) round trip over ROUNDS runs of SECS seconds, and transactions
# per second; the tools take turns in each round so all see the same load. Then
# esxperf's memory over one longer run (MEM_SECS, default 60; MEM_SECS=600 for the
# 10-minute run): the client's and the server's resident size sampled every 5 s,
# first, last and largest.
# Run from anywhere:  ./test/lib/bench-rr.sh   (or make bench); ROUNDS=5 SECS=5 for
# steadier medians. Not a timed test: nothing here passes or fails on a number.
set -u
cd "$(dirname "$0")/../.." || exit 2
ESXPERF=${ESXPERF:-$PWD/out/bin/esxperf}
ROUNDS=${ROUNDS:-3}
SECS=${SECS:-3}
MEM_SECS=${MEM_SECS:-60}
[ -x "$ESXPERF" ] || { echo "bench-rr: $ESXPERF missing (run make)" >&2; exit 2; }
for t in sockperf iperf qperf jq; do
    command -v "$t" >/dev/null || { echo "bench-rr: $t missing (apt-get install $t; build/deps.sh lists it)" >&2; exit 2; }
done
TMP=$(mktemp -d)
NA="esxperf-rrbench-$$-a" NB="esxperf-rrbench-$$-b"
cleanup() {
    local ns
    for ns in "$NA" "$NB"; do
        ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null
        ip netns del "$ns" 2>/dev/null
    done
    rm -rf "$TMP"
}
trap cleanup EXIT INT TERM
ip netns add "$NA" && ip netns add "$NB" || exit 2
ip link add rrb-a netns "$NA" type veth peer name rrb-b netns "$NB" || exit 2
ip -n "$NA" addr add 198.18.60.1/24 dev rrb-a
ip -n "$NB" addr add 198.18.60.2/24 dev rrb-b
for ns in "$NA" "$NB"; do ip -n "$ns" link set lo up; done
ip -n "$NA" link set rrb-a up
ip -n "$NB" link set rrb-b up

# servers, in namespace B for the veth path and on B's loopback for loopback:
# each tool listens on its own port there, on every address
ip netns exec "$NB" "$ESXPERF" -s -p 5201 >/dev/null 2>&1 &
ip netns exec "$NB" sockperf sr --tcp -p 5202 >/dev/null 2>&1 &
ip netns exec "$NB" iperf -s -p 5203 >/dev/null 2>&1 &
ip netns exec "$NB" qperf -lp 5204 >/dev/null 2>&1 &
sleep 1

# one run of tool $1 from namespace $2 to $3: "p50_us transactions_per_s" on stdout
run_esxperf() {
    ip netns exec "$2" "$ESXPERF" -c "$3" -p 5201 --rr -l 64 -t "$SECS" -J 2>/dev/null |
        jq -r '.end.rr.sum | "\(.rtt_us.p50) \(.transactions_per_second)"'
}
run_sockperf() {
    ip netns exec "$2" sockperf pp --tcp -i "$3" -p 5202 -m 64 -t "$SECS" --full-rtt 2>/dev/null |
        awk '/percentile 50.000/ { p = $NF } /Valid Duration/ { for (i = 1; i <= NF; i++) {
                 if ($i ~ /^RunTime=/) { sub("RunTime=", "", $i); t = $i + 0 }
                 if ($i ~ /^ReceivedMessages=/) { sub("ReceivedMessages=", "", $i); n = $i + 0 } } }
             END { if (p && t) print p, n / t }'
}
run_iperf2() {
    ip netns exec "$2" iperf -c "$3" -p 5203 --bounceback --bounceback-period 0 -l 64 -t "$SECS" -e 2>/dev/null |
        awk '/ sec .*rps/ && !/BB8/ { line = $0 } END { if (!line) exit
             n = split(line, f, " "); for (i = 1; i <= n; i++) if (f[i] ~ /^[0-9]+=/) { split(f[i], a, "[=/]"); avg = a[2] * 1000 }
             for (i = 1; i <= n; i++) if (f[i] == "rps") rps = f[i - 1]
             print avg, rps }'
}
run_qperf() {
    ip netns exec "$2" qperf "$3" -lp 5204 -m 64 -t "$SECS" -vv tcp_lat 2>/dev/null |
        awk '/^ *latency/ { v = $3; u = $4; if (u == "ms") v *= 1000; if (u == "ns") v /= 1000 }
             /loc_recv_msgs/ { gsub(",", "", $3); n = $3 }
             END { if (v) print 2 * v, n / '"$SECS"' }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { if (!NR) { print "nan"; exit } print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

TOOLS="esxperf sockperf iperf2 qperf"
for path in loopback veth; do
    if [ "$path" = loopback ]; then from=$NB to=127.0.0.1; else from=$NA to=198.18.60.2; fi
    for _ in $(seq 1 "$ROUNDS"); do
        for t in $TOOLS; do
            "run_$t" "$t" "$from" "$to" >> "$TMP/$path.$t" || true
            sleep 0.3
        done
    done
    echo "bench-rr: $path, 64-byte request and answer, back to back, $ROUNDS x ${SECS}s each, medians"
    printf '%-10s %14s %14s %16s\n' tool "RTT p50 (us)" "transactions/s" "esxperf p50 / it"
    e50=$(awk '{ print $1 }' "$TMP/$path.esxperf" | median)
    for t in $TOOLS; do
        p=$(awk '{ print $1 }' "$TMP/$path.$t" | median)
        n=$(awk '{ print $2 }' "$TMP/$path.$t" | median)
        what=""
        [ "$t" = iperf2 ] && what=" (mean)"
        [ "$t" = qperf ] && what=" (2x one-way mean)"
        printf '%-10s %14.1f %14.0f %16s%s\n' "$t" "$p" "$n" \
            "$(awk -v a="$e50" -v b="$p" 'BEGIN { printf (b > 0 ? "%.2f" : "n/a"), a / b }')" "$what"
    done
    echo
done

# memory over a longer run: VmRSS of both ends every 5 s
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status" 2>/dev/null; }
ip netns exec "$NA" "$ESXPERF" -c 198.18.60.2 -p 5201 --rr -P 2 -t "$MEM_SECS" -i 0 >/dev/null 2>&1 &
cpid=$!
sleep 1
spid=$(ip netns pids "$NB" | while read -r p; do
    [ "$(cat /proc/"$p"/comm 2>/dev/null)" = esxperf ] && echo "$p"; done | head -n1)
while kill -0 "$cpid" 2>/dev/null; do
    echo "$(rss "$cpid") $(rss "$spid")" >> "$TMP/rss"
    sleep 5
done
wait "$cpid"
echo "bench-rr: esxperf --rr -P 2 for ${MEM_SECS}s on the veth pair, resident memory (KiB) every 5 s"
awk 'NF == 2 { if (!n++) { c0 = $1; s0 = $2 } c1 = $1; s1 = $2; if ($1 > cm) cm = $1; if ($2 > sm) sm = $2 }
     END { printf "%-8s %8s %8s %8s\n%-8s %8d %8d %8d\n%-8s %8d %8d %8d\n", "", "first", "last", "largest",
           "client", c0, c1, cm, "server", s0, s1, sm }' "$TMP/rss"
