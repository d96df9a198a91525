#!/usr/bin/env bats
# esxperf where the host gives a process no thread (every clone() fails ENOSYS:
# test/lib/nothreads.bash): a test of one stream runs on the session's thread, TCP
# and UDP, both directions, against itself and against iperf3 3.12 in both roles,
# with the counts of a threaded run (-n exact, UDP datagrams all counted unless
# the kernel dropped them), its interval rows, and -V and -J naming the fallback.
# Only -P 2 and more and --bidir, which need a thread per stream, are refused, in
# one line. All on loopback in a namespace of the test's own (lo_ns_up), so that
# the UDP counts can be held against the kernel's drops there.
load ../lib/common
load ../lib/nothreads

setup() {
    PIDS=()
    TMP=$(mktemp -d)
    lo_ns_up
    PORT=5201      # the namespace is the test's own: no other job listens there
}

teardown() {
    stop_pids
    lo_ns_down
    rm -rf "$TMP"
}

# a -J client run ($output) into $TMP/c.json; exit status 0 required
client_json() {
    assert_status 0
    printf '%s\n' "$output" >"$TMP/c.json"
}

# the TCP count: -n N sent whole and received whole, on both sides' figures
tcp_exact() {
    local want=$1
    [ "$(jget "$TMP/c.json" "d['end']['sum_sent']['bytes']")" = "$want" ] ||
        flunk "sent $(jget "$TMP/c.json" "d['end']['sum_sent']['bytes']"), wanted $want"
    [ "$(jget "$TMP/c.json" "d['end']['sum_received']['bytes']")" = "$want" ] ||
        flunk "received $(jget "$TMP/c.json" "d['end']['sum_received']['bytes']"), wanted $want"
}

# UDP: every datagram the sender counted is counted by the receiver, unless the
# kernel dropped it (udp_counts_exact); the sender's count is in its own sum
udp_exact() {
    local sent got lost
    sent=$(jget "$TMP/c.json" "d['end']['sum_sent']['packets']")
    got=$(jget "$TMP/c.json" "d['end']['sum_received']['packets']")
    lost=$(jget "$TMP/c.json" "d['end']['sum_received']['lost_packets']")
    udp_counts_exact "$sent" "$((got - lost))" "$lost" "$(udp_drops "$LONS")"
}

@test "nothreads: esxperf at both ends on one thread each: TCP -n exact both ways, UDP counted, interval rows, -V and -J name the fallback" {
    nothreads_bg s -s -B 127.0.0.1 -p "$PORT"
    wait_port "$PORT" "$LONS"
    nothreads -c 127.0.0.1 -p "$PORT" -n 50M -J
    client_json
    tcp_exact 52428800
    # the fallback, with its errno, and the stream's path
    [ "$(jget "$TMP/c.json" "[f['option'] for f in d['end']['esxperf']['fallbacks']]")" = "['pthread_create']" ] ||
        flunk "fallbacks: $(jget "$TMP/c.json" "d['end']['esxperf']['fallbacks']")"
    nothreads -c 127.0.0.1 -p "$PORT" -n 50M -R -J
    client_json
    tcp_exact 52428800
    nothreads -c 127.0.0.1 -p "$PORT" -u -b 200M -t 1 -J
    client_json
    udp_exact
    nothreads -c 127.0.0.1 -p "$PORT" -u -b 200M -t 1 -R -J
    client_json
    udp_exact
    # the interval rows come from the turns the stream's loop gives the session
    nothreads -c 127.0.0.1 -p "$PORT" -t 2 -i 0.5 -V
    assert_status 0
    assert_contains "engine: on the session's thread (no stream thread); TCP send:"
    assert_contains "] thread: CPU "      # the session's thread, which ran the stream
    assert_contains "fallback: pthread_create refused ("
    assert_contains "): the one data stream runs on the session's thread"
    [ "$(grep -cE '^\[ +[0-9]+\] +[0-9.]+-[0-9.]+ +sec .*Bytes *$' <<<"$output")" -eq 4 ] ||
        flunk "not 4 interval rows: $output"
    # the server said the same of its side
    grep -q "receiver" "$TMP/s.out" || flunk "server: $(cat "$TMP/s.out" "$TMP/s.err")"
}

@test "nothreads: -P 2 and --bidir are refused in one line (client exit 2); a server without threads refuses them with SERVER_ERROR and goes on" {
    local opt
    # the options themselves are taken: the threads are asked for when a test starts,
    # so with no server the run ends at the connection, as it would with threads
    for opt in "-P 2" --bidir; do
        nothreads -c 127.0.0.1 -p "$PORT" -t 1 $opt
        assert_status 2
        assert_contains "esxperf: cannot connect to 127.0.0.1 port $PORT: Connection refused"
    done
    # a threaded server: the client without threads refuses its own streams
    "${IN[@]}" "$BIN/esxperf" -s -B 127.0.0.1 -p "$PORT" >"$TMP/t.out" 2>&1 &
    PIDS+=($!)
    wait_port "$PORT" "$LONS"
    nothreads -c 127.0.0.1 -p "$PORT" -t 1 -P 2
    assert_status 2
    [ "$(grep -c '^esxperf:' <<<"$output")" -eq 1 ] || flunk "more than one line: $output"
    assert_contains "esxperf: cannot start the stream threads: "
    assert_contains "a test of one stream runs without, -P needs one per stream)"
    nothreads -c 127.0.0.1 -p "$PORT" -t 1 --bidir
    assert_status 2
    assert_contains "a test of one stream runs without, --bidir needs one per stream)"
    kill "${PIDS[-1]}"
    # a server without threads: a threaded client's -P 2 is refused, the next test runs
    nothreads_bg s -s -B 127.0.0.1 -p 5202
    wait_port 5202 "$LONS"
    run "${IN[@]}" timeout 30 "$BIN/esxperf" -c 127.0.0.1 -p 5202 -t 1 -P 2
    assert_status 1
    assert_contains "it cannot initialize a data stream"
    grep -q "test aborted: cannot start the stream threads: " "$TMP/s.err" || flunk "server: $(cat "$TMP/s.err")"
    run "${IN[@]}" timeout 30 "$BIN/esxperf" -c 127.0.0.1 -p 5202 -n 10M -J
    client_json
    tcp_exact 10485760
}

@test "nothreads: with iperf3 3.12 in both roles: TCP -n exact both ways, UDP both ways" {
    command -v iperf3 >/dev/null || skip "iperf3 missing"
    # an esxperf client without threads, iperf3's server
    "${IN[@]}" iperf3 -s -p "$PORT" >"$TMP/i.out" 2>&1 &
    PIDS+=($!)
    wait_port "$PORT" "$LONS"
    nothreads -c 127.0.0.1 -p "$PORT" -n 50M -J
    client_json
    tcp_exact 52428800
    nothreads -c 127.0.0.1 -p "$PORT" -n 50M -R -J
    client_json
    tcp_exact 52428800
    nothreads -c 127.0.0.1 -p "$PORT" -u -b 100M -t 1 -R -J
    client_json
    udp_exact
    nothreads -c 127.0.0.1 -p "$PORT" -u -b 100M -t 1 -J
    assert_status 0
    kill "${PIDS[-1]}"
    # an esxperf server without threads, iperf3's client
    nothreads_bg s -s -B 127.0.0.1 -p 5202
    wait_port 5202 "$LONS"
    run "${IN[@]}" timeout 30 iperf3 -c 127.0.0.1 -p 5202 -n 50M -J
    client_json
    tcp_exact 52428800
    run "${IN[@]}" timeout 30 iperf3 -c 127.0.0.1 -p 5202 -n 50M -R -J
    client_json
    tcp_exact 52428800
    run "${IN[@]}" timeout 30 iperf3 -c 127.0.0.1 -p 5202 -u -b 100M -t 1 -J
    client_json
    udp_exact
    run "${IN[@]}" timeout 30 iperf3 -c 127.0.0.1 -p 5202 -u -b 100M -t 1 -R -J
    assert_status 0
}
