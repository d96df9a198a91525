#!/usr/bin/env bats
# esxperf -c stopped by SIGTERM, SIGINT or SIGHUP in every phase, as iperf3's client
# is: while it connects, during the handshake, mid-test and in the wait for the
# results. Each time: exit 1, one "interrupted (SIG...)" line, the summary of what
# was measured, and with -J a whole document holding "error" (never the signal's
# own death, 128 + N, with nothing written). Peers on 127.0.0.1 only: a listener
# whose backlog is full (the SYN goes unanswered), test/lib/hostile_server.py
# stalling at one step, and a real esxperf server.
load ../lib/common
load ../lib/nothreads

HS="$ESXDIAG_ROOT/test/lib/hostile_server.py"

setup() {
    PORT=$(free_port)
    PIDS=()
    TMP=$(mktemp -d)
}

teardown() {
    stop_pids
    rm -rf "$TMP"
}

# the client in the background: $CPID, stdout in $TMP/c.out, stderr in $TMP/c.err
client_bg() {
    timeout 30 "$BIN/esxperf" -c 127.0.0.1 -p "$PORT" "$@" >"$TMP/c.out" 2>"$TMP/c.err" &
    CPID=$!
}

# wait (bounded, 10 s) until file $1 has a line matching the extended regex $2
wait_for_text() {
    local i
    for i in $(seq 1 100); do grep -qE -- "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
    flunk "no '$2' in $1 after 10 s: $(cat "$1")"
}

# signal $1 to the client; its exit status into $rc
stop_client() {
    kill -"$1" "$CPID"
    rc=0
    wait "$CPID" || rc=$?
}

# the -J document in $TMP/c.out holds an "error" naming signal $1
json_error_is() {
    python3 - "$TMP/c.out" "$1" <<'PY' || flunk "-J output: $(cat "$TMP/c.out")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["error"].startswith("interrupted (%s): the client has terminated" % sys.argv[2]), d["error"]
PY
}

@test "signals: SIGTERM while the client connects: exit 1 and a -J document with the error" {
    # backlog 0 with one connection queued: the kernel drops the next SYN, so the
    # client waits in connect() (--connect-timeout, 30 s by default)
    python3 - "$PORT" >"$TMP/hold.out" <<'PY' &
import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(0)
held = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
print("held", flush=True)
time.sleep(25)
PY
    PIDS+=($!)
    wait_for_text "$TMP/hold.out" '^held$'
    client_bg -t 1 -J
    local i
    for i in $(seq 1 101); do
        ss -tnH state syn-sent "( dport = :$PORT )" | grep -q . && break
        [ "$i" -le 100 ] || flunk "the client never waited in connect()"
        sleep 0.1
    done
    stop_client TERM
    [ "$rc" -eq 1 ] || flunk "exit $rc: $(cat "$TMP/c.err")"
    json_error_is SIGTERM
    output=$(cat "$TMP/c.err")
    assert_contains "esxperf: interrupted (SIGTERM): the client has terminated"
}

@test "signals: SIGINT during the handshake: exit 1, the server told, a -J document with the error" {
    "$HS" -p "$PORT" --linger -t 20 stall-cookie >"$TMP/hs.out" &
    PIDS+=($!)
    wait_port "$PORT"
    client_bg -t 1 -J
    wait_established "$PORT" 1
    stop_client INT
    [ "$rc" -eq 1 ] || flunk "exit $rc: $(cat "$TMP/c.err")"
    json_error_is SIGINT
    output=$(cat "$TMP/c.err")
    assert_contains "interrupted (SIGINT): the client has terminated; the server was told"
}

@test "signals: SIGTERM in the wait for the results: the summary of the test, exit 1" {
    # the server takes the test and TEST_END, then never sends EXCHANGE_RESULTS
    "$HS" -p "$PORT" --linger -t 20 stall-end >"$TMP/hs.out" &
    PIDS+=($!)
    wait_port "$PORT"
    client_bg -t 1 --forceflush
    # the test's one interval row: its data phase is over
    wait_for_text "$TMP/c.out" '\] +0\.00-[0-9.]+ +sec '
    stop_client TERM
    [ "$rc" -eq 1 ] || flunk "exit $rc: $(cat "$TMP/c.err")"
    output=$(cat "$TMP/c.out")
    [[ "$output" =~ \]\ +0\.00-[0-9.]+\ +sec\ .*\ sender ]] || flunk "no summary row: $output"
    assert_contains "CPU Utilization: local/sender"
    output=$(cat "$TMP/c.err")
    assert_contains "interrupted (SIGTERM): the client has terminated; the server was told"
}

@test "signals: SIGHUP mid-test ends it as SIGINT does: the server told, --json-stream's error and end" {
    "$BIN/esxperf" -s -B 127.0.0.1 -p "$PORT" >"$TMP/s.out" 2>&1 &
    PIDS+=($!)
    wait_port "$PORT"
    client_bg -t 10 --json-stream
    wait_for_text "$TMP/c.out" '^\{"event":"interval"'
    stop_client HUP
    [ "$rc" -eq 1 ] || flunk "exit $rc: $(cat "$TMP/c.err")"
    python3 - "$TMP/c.out" <<'PY' || flunk "events: $(cat "$TMP/c.out")"
import json, sys
ev = [json.loads(line) for line in open(sys.argv[1])]
names = [e["event"] for e in ev]
assert names[-2:] == ["error", "end"], names
assert ev[-2]["data"].startswith("interrupted (SIGHUP)"), ev[-2]
assert ev[-1]["data"]["sum_sent"]["bytes"] > 0, ev[-1]
PY
    # the server ended the test at once (CLIENT_TERMINATE), with its summary
    wait_for_text "$TMP/s.out" "the client terminated the test"
}

# ---- without threads (test/lib/nothreads.bash): the stop signals are taken by
# handlers instead of a waiter thread

@test "signals: without threads SIGINT in the handshake still stops the client: exit 1, the server told" {
    "$HS" -p "$PORT" --linger -t 20 stall-cookie >"$TMP/hs.out" &
    PIDS+=($!)
    wait_port "$PORT"
    nothreads_bg c -c 127.0.0.1 -p "$PORT" -t 1
    wait_established "$PORT" 1
    kill -INT "$XPID"
    rc=0
    wait "$SPID" || rc=$?
    [ "$rc" -eq 1 ] || flunk "exit $rc: $(cat "$TMP/c.err")"
    output=$(cat "$TMP/c.err")
    assert_contains "interrupted (SIGINT): the client has terminated; the server was told"
}

@test "signals: without threads SIGINT mid-test stops a one-thread client (exit 1, summary, the server told) and SIGTERM a one-thread server (exit 0, -I file removed)" {
    nothreads_bg s -s -B 127.0.0.1 -p "$PORT" -I "$TMP/s.pid-file"
    local server_strace=$SPID server=$XPID
    wait_port "$PORT"
    [ -s "$TMP/s.pid-file" ] || flunk "no -I file: $(cat "$TMP/s.err")"
    nothreads_bg c -c 127.0.0.1 -p "$PORT" -t 20 -R -i 0.2
    # mid-test: a second interval row is out (its edges drift on a loaded host: 0.21-0.40)
    wait_for_text "$TMP/c.out" '\] +0\.[1-9][0-9]-[0-9.]+ +sec '
    kill -INT "$XPID"
    rc=0
    wait "$SPID" || rc=$?
    [ "$rc" -eq 1 ] || flunk "client exit $rc: $(cat "$TMP/c.err")"
    output=$(cat "$TMP/c.err")
    assert_contains "interrupted (SIGINT): the client has terminated; the server was told"
    grep -q "receiver" "$TMP/c.out" || flunk "no summary: $(cat "$TMP/c.out")"
    wait_for_text "$TMP/s.err" "test aborted: the client terminated the test"
    kill -TERM "$server"
    rc=0
    wait "$server_strace" || rc=$?
    [ "$rc" -eq 0 ] || flunk "server exit $rc: $(cat "$TMP/s.err")"
    output=$(cat "$TMP/s.err")
    assert_contains "interrupted (SIGTERM): the server has terminated"
    [ ! -e "$TMP/s.pid-file" ] || flunk "the -I file is still there"
}
