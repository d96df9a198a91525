#!/usr/bin/env bats
# esxperf --rr, request/response latency (docs/esxperf.md#request-response-latency---rr):
# TCP and UDP, -P, paced (-b transactions/s) and back to back, -k counted; the
# figures in text and -J (end.rr with its histogram, intervals[].rr, the server's
# turnaround from the results exchange); what --rr refuses; UDP requests dropped by
# nft (numgen), counted lost while the run ends on time; a server stopped mid-run
# (SIGSTOP): the client ends, bounded, naming it; iperf3 servers (Debian's 3.12 and
# 3.22), which ignore the parameter: a clear error at once; the one-thread run. All
# on loopback in a namespace of the test's own (lo_ns_up).
load ../lib/common
load ../lib/nothreads

PEERS_LIB="$ESXDIAG_ROOT/test/lib/iperf3-peers.sh"

setup_file() {
    source "$PEERS_LIB"
    iperf3_peers_setup_file
}

setup() {
    PIDS=()
    TMP=$(mktemp -d)
    lo_ns_up
    PORT=5201      # the namespace is the test's own
    NFT_TABLE="esxperf_rr_$$"
}

teardown() {
    [ -n "${STOPPED:-}" ] && kill -CONT "$STOPPED" 2>/dev/null
    routed_down
    [ -n "${LONS:-}" ] && ip netns exec "$LONS" nft delete table inet "$NFT_TABLE" 2>/dev/null
    stop_pids
    lo_ns_down
    rm -rf "$TMP"
}

# A (the client, 198.18.41.1) - R (a router) - B (the server, 198.18.42.2), three
# namespaces of the test's own (RA, RR, RB); routed_down deletes them
routed_up() {
    RA="esxperf-rr-$$-A" RR="esxperf-rr-$$-R" RB="esxperf-rr-$$-B"
    ip netns add "$RA" && ip netns add "$RR" && ip netns add "$RB" || flunk "cannot create namespaces"
    ip link add rra0 netns "$RA" type veth peer name rr0 netns "$RR"
    ip link add rrb0 netns "$RB" type veth peer name rr1 netns "$RR"
    ip -n "$RA" addr add 198.18.41.1/24 dev rra0
    ip -n "$RR" addr add 198.18.41.2/24 dev rr0
    ip -n "$RR" addr add 198.18.42.1/24 dev rr1
    ip -n "$RB" addr add 198.18.42.2/24 dev rrb0
    local ns
    for ns in "$RA" "$RR" "$RB"; do ip -n "$ns" link set lo up; done
    ip -n "$RA" link set rra0 up; ip -n "$RB" link set rrb0 up
    ip -n "$RR" link set rr0 up; ip -n "$RR" link set rr1 up
    ip -n "$RA" route add default via 198.18.41.2
    ip -n "$RB" route add default via 198.18.42.1
    ip netns exec "$RR" sysctl -qw net.ipv4.ip_forward=1
}
routed_down() {
    local ns
    for ns in ${RA:-} ${RR:-} ${RB:-}; do
        ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null || true
        ip netns del "$ns" 2>/dev/null || true
    done
    RA="" RR="" RB=""
}

# client ARGS...: esxperf -c 127.0.0.1 in the namespace, bounded; -J output in $TMP/c.json
client() {
    run "${IN[@]}" timeout 30 "$BIN/esxperf" -c 127.0.0.1 -p "$PORT" "$@"
    printf '%s\n' "$output" >"$TMP/c.json"
}

# the end.rr figures hold together: per stream and summed, the percentiles in
# order, the histogram's counts add up to the transactions, the intervals' to
# those of the measured time (the streams' last transactions, after the last row,
# count at the end only), and the server answered every request (one more per
# stream when the client stopped waiting for the answer to its last)
rr_consistent() {
    python3 - "$TMP/c.json" "$1" <<'PY' || flunk "end.rr: $(cat "$TMP/c.json")"
import json, sys
d = json.load(open(sys.argv[1]))
streams = int(sys.argv[2])
rr = d["end"]["rr"]
assert len(rr["streams"]) == streams, rr["streams"]
total = 0
for x in rr["streams"] + [rr["sum"]]:
    t = x["rtt_us"]
    assert x["transactions"] > 0, x
    assert 0 < t["min"] <= t["p50"] <= t["p90"] <= t["p99"] <= t["p99_9"] <= t["max"], t
    assert t["min"] <= t["mean"] <= t["max"], t
for x in rr["streams"]:
    total += x["transactions"]
assert total == rr["sum"]["transactions"], (total, rr["sum"])
assert sum(b[2] for b in rr["histogram"]["buckets"]) == total, "histogram"
ivs = sum(iv["rr"]["sum"]["transactions"] for iv in d["intervals"])
assert 0.9 * total <= ivs <= total, ("intervals", ivs, total)
turn = rr["server_turnaround_us"]
assert total <= turn["transactions"] <= total + streams, (turn, total)
assert 0 < turn["mean"] < rr["sum"]["rtt_us"]["mean"], turn
PY
}

@test "rr: TCP and UDP, one stream and -P 2: the round trips, their intervals, the server's turnaround; text rows per stream and SUM" {
    esxperf_server
    client --rr -t 1 -i 0.5 -J
    assert_status 0
    rr_consistent 1
    [ "$(jget "$TMP/c.json" 'd["end"]["rr"]["protocol"]')" = TCP ]
    [ "$(jget "$TMP/c.json" 'd["end"]["rr"]["request_bytes"]')" = 64 ]
    client --rr -u -P 2 -t 1 -i 0.5 -J -l 100 --rr-response 300
    assert_status 0
    rr_consistent 2
    [ "$(jget "$TMP/c.json" 'd["end"]["rr"]["protocol"]')" = UDP ]
    [ "$(jget "$TMP/c.json" 'd["end"]["rr"]["response_bytes"]')" = 300 ]
    [ "$(jget "$TMP/c.json" 'd["end"]["rr"]["sum"]["lost"]')" = 0 ]
    # text: the interval rows and the end table, a row per stream and the sum
    client --rr -P 2 -t 1 -i 0.5
    assert_status 0
    assert_contains "TCP request/response round trips, 64-byte requests, 64-byte answers (us):"
    assert_contains "Server turnaround (request read -> answer sent): mean "
    [ "$(grep -cE '^\[ +[0-9]+\] +[0-9]+ +[0-9.]+ +[0-9.]+ ' <<<"$output")" -eq 2 ] || flunk "$output"
    [ "$(grep -cE '^\[SUM\] +[0-9]+ +[0-9.]+ ' <<<"$output")" -eq 1 ] || flunk "$output"
    [ "$(grep -cE '^\[ +[0-9]+\] +[0-9.]+-[0-9.]+ +sec +[0-9]+ .* us .* us' <<<"$output")" -ge 4 ] || flunk "$output"
    # the server printed its turnaround
    grep -q "TCP request/response turnaround" "$TMP/s.out" || flunk "server: $(cat "$TMP/s.out")"
}

@test "rr: -b paces the requests (transactions/s per stream), -k counts transactions; --json-stream carries end.rr" {
    esxperf_server
    client --rr -b 100 -P 2 -t 2 -J
    assert_status 0
    n=$(jget "$TMP/c.json" 'd["end"]["rr"]["sum"]["transactions"]')
    # 2 streams x 100/s x 2 s, the first of each at once
    # never more than the rate (no burst to catch up: a request more than a period
    # late is not made up, so a loaded host sends fewer), and far from back to back
    [ "$n" -ge 200 ] && [ "$n" -le 404 ] || flunk "paced: $n transactions, wanted about 400"
    client --rr -u -k 250 -J
    assert_status 0
    [ "$(jget "$TMP/c.json" 'd["end"]["rr"]["sum"]["transactions"]')" = 250 ]
    run "${IN[@]}" timeout 30 "$BIN/esxperf" -c 127.0.0.1 -p "$PORT" --rr -t 1 --json-stream
    assert_status 0
    python3 -c '
import json, sys
ev = [json.loads(l) for l in sys.stdin if l.strip()]
iv = [e for e in ev if e["event"] == "interval"]
end = [e for e in ev if e["event"] == "end"][-1]["data"]
assert iv and "rr" in iv[0]["data"], iv
assert end["rr"]["sum"]["transactions"] > 0, end
' <<<"$output" || flunk "$output"
}

@test "rr: the verdict against vSAN's 1 ms by default, a role's limit, or --rr-limit; text and -J" {
    esxperf_server
    client --rr -t 1
    assert_status 0
    # (within, or on a loaded host tail: loopback's p99 can pass a millisecond)
    grep -qE '^latency: (within|tail) \(p50 ' <<<"$output" || flunk "$output"
    assert_contains "against VMware's 1 ms for a standard vSAN cluster, between its hosts); what dominates: "
    # loopback's round trip is tens of microseconds: over a 1 us limit
    client --rr -t 1 --rr-limit 1us -J
    assert_status 0
    [ "$(jget "$TMP/c.json" 'd["end"]["rr"]["verdict"]["verdict"]')" = over ]
    [ "$(jget "$TMP/c.json" 'd["end"]["rr"]["verdict"]["role"]')" = custom ]
    [ "$(jget "$TMP/c.json" 'd["end"]["rr"]["verdict"]["limit_us"]')" = 1.0 ]
    client --rr -t 1 --rr-role witness -J
    assert_status 0
    [ "$(jget "$TMP/c.json" 'd["end"]["rr"]["verdict"]["verdict"]')" = within ]
    [ "$(jget "$TMP/c.json" 'd["end"]["rr"]["verdict"]["limit_us"]')" = 200000.0 ]
    jget "$TMP/c.json" 'd["end"]["rr"]["verdict"]["dominant"]' | grep -qxE 'host|network' ||
        flunk "dominant: $(jget "$TMP/c.json" 'd["end"]["rr"]["verdict"]')"
}

@test "rr: what it refuses, in one line, exit 2" {
    run "$BIN/esxperf" -c 127.0.0.1 --rr -R
    assert_status 2
    assert_contains "--rr: the client always sends the requests (-R and --bidir do not apply; with --rr-load they set the bulk streams' direction)"
    run "$BIN/esxperf" -c 127.0.0.1 --rr --rr-load -u
    assert_status 2
    assert_contains "--rr-load: the bulk streams are TCP (vMotion's, vSAN's): drop -u"
    run "$BIN/esxperf" -c 127.0.0.1 --rr-load
    assert_status 2
    assert_contains "belong to --rr: add --rr"
    run "$BIN/esxperf" -c 127.0.0.1 --rr-response 100
    assert_status 2
    assert_contains "--rr-response, --rr-timeout, --rr-limit, --rr-role and --rr-load belong to --rr: add --rr"
    run "$BIN/esxperf" -c 127.0.0.1 --rr --rr-role vsan2
    assert_status 2
    assert_contains "bad --rr-role 'vsan2': one of vsan, stretched, witness, vmotion"
    run "$BIN/esxperf" -c 127.0.0.1 --rr --rr-limit 5h
    assert_status 2
    assert_contains "bad --rr-limit '5h': a time of 1us..60s"
    run "$BIN/esxperf" -c 127.0.0.1 --rr -u --rr-response 8
    assert_status 2
    assert_contains "UDP response size (--rr-response) must be 16..65507"
    run "$BIN/esxperf" -s --rr
    assert_status 2
    assert_contains "--rr is a client option"
}

@test "rr: UDP requests dropped by nft (numgen) are counted lost; the run ends on time" {
    esxperf_server
    # every fifth request (64 bytes, UDP length 72; not the stream's 4-byte hello)
    # dropped on its way to the server: numgen's counter, so the count is exact
    ip netns exec "$LONS" nft -f - <<NFT
table inet $NFT_TABLE {
    chain in { type filter hook input priority 0; udp dport $PORT udp length 72 numgen inc mod 5 == 0 drop; }
}
NFT
    local t0=$SECONDS
    client --rr -u -b 200 --rr-timeout 50 -t 2 -J
    assert_status 0
    # (a lost answer waited for without end would hold it: 50 ms each, then the next)
    [ $((SECONDS - t0)) -le 10 ] || flunk "took $((SECONDS - t0)) s for -t 2"
    lost=$(jget "$TMP/c.json" 'd["end"]["rr"]["sum"]["lost"]')
    n=$(jget "$TMP/c.json" 'd["end"]["rr"]["sum"]["transactions"]')
    # one request in five lost, whatever the host's load made of the rate (the
    # last request may be in flight at the end: one either way)
    [ "$n" -ge 4 ] || flunk "answered $n"
    [ $((lost * 5)) -ge $((n + lost - 5)) ] && [ $((lost * 5)) -le $((n + lost + 5)) ] ||
        flunk "lost $lost of $((n + lost)), one in five dropped"
    [ "$(jget "$TMP/c.json" 'd["end"]["rr"]["sum"]["late"]')" = 0 ] || flunk "late answers: $(jget "$TMP/c.json" 'd["end"]["rr"]["sum"]')"
    ivlost=$(jget "$TMP/c.json" 'sum(iv["rr"]["sum"]["lost"] for iv in d["intervals"])')
    # (the last request may be lost after the last interval row)
    [ "$ivlost" -le "$lost" ] && [ "$lost" -le $((ivlost + 1)) ] || flunk "intervals lost $ivlost, end $lost"
}

@test "rr: a server stopped mid-run (SIGSTOP): the client ends within the timeout, naming it, exit 1" {
    esxperf_server
    "${IN[@]}" timeout 30 "$BIN/esxperf" -c 127.0.0.1 -p "$PORT" --rr -t 20 --rr-timeout 500 \
        >"$TMP/c.out" 2>&1 &
    local cpid=$! t0
    PIDS+=("$cpid")
    wait_established_in "$LONS" "$PORT"
    sleep 0.5
    kill -STOP "$SPID"
    STOPPED=$SPID
    t0=$SECONDS
    local rc=0
    wait "$cpid" || rc=$?
    [ "$rc" -eq 1 ] || flunk "exit $rc: $(cat "$TMP/c.out")"
    [ $((SECONDS - t0)) -le 3 ] || flunk "ended $((SECONDS - t0)) s after the stop"
    grep -q -- "--rr: the server stopped answering: a request got no answer within 500 ms (--rr-timeout)" \
        "$TMP/c.out" || flunk "$(cat "$TMP/c.out")"
}

# wait (bounded, 10 s) until 2 TCP connections to port $2 are established in netns $1
wait_established_in() {
    local i
    for i in $(seq 1 100); do
        [ "$(ip netns exec "$1" ss -tnH state established "( sport = :$2 )" | wc -l)" -ge 2 ] && return 0
        sleep 0.1
    done
    flunk "no test set up on port $2"
}

@test "rr: against iperf3 servers (3.12, 3.22), which ignore the parameter: a clear error at once, exit 2" {
    local v bin t0
    for v in 3.12 3.22; do
        if ! bin=$(source "$PEERS_LIB"; iperf3_peer "$v"); then
            [ "$v" = 3.22 ] && skip "iperf3 3.22: $(cat "$BATS_FILE_TMPDIR/peers.skip" 2>/dev/null)"
            flunk "no iperf3 $v"
        fi
        "${IN[@]}" "$bin" -s -1 -p "$PORT" >"$TMP/i3.out" 2>&1 &
        PIDS+=($!)
        wait_port "$PORT" "$LONS"
        t0=$(date +%s%N)
        client --rr -t 5
        assert_status 2
        assert_contains "--rr: the server at 127.0.0.1 does not answer requests: it went on to a throughput test (an iperf3 server, or an esxperf without --rr)"
        [ $(( ($(date +%s%N) - t0) / 1000000 )) -lt 2000 ] || flunk "iperf3 $v: took $(( ($(date +%s%N) - t0) / 1000000 )) ms"
        wait "${PIDS[-1]}" 2>/dev/null || true
    done
}

@test "rr: the one-thread run (clone refused), TCP and UDP, both ends" {
    nothreads_bg s -s -B 127.0.0.1 -p "$PORT"
    wait_port "$PORT" "$LONS"
    nothreads -c 127.0.0.1 -p "$PORT" --rr -t 1 -i 0.5 -J
    assert_status 0
    printf '%s\n' "$output" >"$TMP/c.json"
    rr_consistent 1
    nothreads -c 127.0.0.1 -p "$PORT" --rr -u -t 1 -i 0.5 -J
    assert_status 0
    printf '%s\n' "$output" >"$TMP/c.json"
    rr_consistent 1
    [ "$(jget "$TMP/c.json" "[f['option'] for f in d['end']['esxperf']['fallbacks']]")" = "['pthread_create']" ]
}

@test "rr: syscall audit: client and server within build/syscalls.allow (+ENOSYS fallbacks); every setsockopt refused, the figures still come" {
    # on the host's loopback: strace must see esxperf's own calls, not ip netns exec's
    local port
    port=$(free_port)
    "$BIN/esxperf" -s -p "$port" >"$TMP/s.out" 2>&1 &
    PIDS+=($!)
    wait_port "$port"
    audit_syscalls "$BIN/esxperf" -c 127.0.0.1 -p "$port" --rr -t 1 -P 2
    [ "$AUDIT_RC" = 0 ] || flunk "client exited $AUDIT_RC"
    audit_enosys "$BIN/esxperf" -c 127.0.0.1 -p "$port" --rr -t 1 -P 2
    audit_syscalls "$BIN/esxperf" -c 127.0.0.1 -p "$port" --rr -u -t 1
    [ "$AUDIT_RC" = 0 ] || flunk "UDP client exited $AUDIT_RC"
    # the server's side of an --rr test
    local p2
    p2=$(free_port)
    ( sleep 1; "$BIN/esxperf" -c 127.0.0.1 -p "$p2" --rr -t 1 >/dev/null 2>&1 ) &
    PIDS+=($!)
    audit_syscalls "$BIN/esxperf" -s -1 -p "$p2"
    [ "$AUDIT_RC" = 0 ] || flunk "server exited $AUDIT_RC"
    # a host that refuses every socket option: non-blocking sockets polled, no
    # TCP_NODELAY or TCP_QUICKACK, and still round trips
    timeout -k 2 15 strace -f -qq -o /dev/null -e trace=setsockopt -e inject=setsockopt:error=ENOPROTOOPT \
        "$BIN/esxperf" -c 127.0.0.1 -p "$port" --rr -t 1 -J >"$TMP/c.json" || flunk "exit $?: $(cat "$TMP/c.json")"
    [ "$(jget "$TMP/c.json" 'd["end"]["rr"]["sum"]["transactions"] > 0')" = True ]
    jget "$TMP/c.json" "[f['option'] for f in d['end']['esxperf']['fallbacks']]" | grep -q "SO_SNDTIMEO" ||
        flunk "fallbacks: $(jget "$TMP/c.json" "d['end']['esxperf']['fallbacks']")"
}

@test "rr: --rr-load: a bulk stream through a router's tbf shaper raises the loaded round trip well above the idle one; the verdict names the queueing" {
    routed_up
    # the router's egress to B at 40 Mbit/s with a deep queue: the bulk stream fills
    # it, and every request waits behind it
    tc -n "$RR" qdisc add dev rr1 root tbf rate 40mbit burst 32kb latency 100ms
    ip netns exec "$RB" "$BIN/esxperf" -s -p 5201 >"$TMP/s.out" 2>&1 &
    PIDS+=($!)
    wait_port 5201 "$RB"
    run timeout 30 ip netns exec "$RA" "$BIN/esxperf" -c 198.18.42.2 --rr --rr-load=1 -t 2 -J
    printf '%s\n' "$output" >"$TMP/c.json"
    assert_status 0
    python3 - "$TMP/c.json" <<'PY' || flunk "$(cat "$TMP/c.json")"
import json, sys
d = json.load(open(sys.argv[1]))
rr = d["end"]["rr"]
idle, loaded = rr["idle"]["rtt_us"]["p50"], rr["sum"]["rtt_us"]["p50"]
# idle: a few hundred us at most through three namespaces; loaded: the tbf queue,
# milliseconds (as deep as the bulk sender's buffer lets it fill: up to 100 ms)
assert idle < 2000 and loaded > 5 * idle and loaded > 1000, (idle, loaded)
assert rr["verdict"]["dominant"] == "queueing", rr["verdict"]
assert rr["verdict"]["verdict"] == "over", rr["verdict"]
assert rr["verdict"]["queue_factor"] > 5, rr["verdict"]
# the bulk stream's throughput as usual: about the shaper's rate
bps = d["end"]["sum_received"]["bits_per_second"]
assert 15e6 < bps < 45e6, bps
PY
    run timeout 30 ip netns exec "$RA" "$BIN/esxperf" -c 198.18.42.2 --rr --rr-load=1 -t 1
    assert_status 0
    assert_contains "Idle first (1 s, no bulk traffic): "
    assert_contains "what dominates: queueing behind the bulk stream: p50 "
}
