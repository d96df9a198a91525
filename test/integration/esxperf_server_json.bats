#!/usr/bin/env bats
# esxperf -s -J when a test fails: whatever the step, the server writes one JSON
# object (iperf3's start/intervals/end) with an "error" key, never a bare string.
# Misbehaving clients from test/lib/hostile_client.py, on 127.0.0.1 only.
load ../lib/common

HC="$ESXDIAG_ROOT/test/lib/hostile_client.py"

setup() {
    PORT=$(free_port)
    PIDS=()
    TMP=$(mktemp -d)
}

teardown() {
    stop_pids
    rm -rf "$TMP"
}

# esxperf -s -1 -J, one hostile MODE against it, then the server's stdout as JSON:
# prints the "error" value, fails unless stdout is one object with that key and
# with KEYS (default: start intervals end)
json_error_after() {
    local keys=${2:-start intervals end}
    "$BIN/esxperf" -s -1 -J -B 127.0.0.1 -p "$PORT" >"$TMP/s.json" 2>"$TMP/s.err" &
    local spid=$!
    PIDS+=($spid)
    wait_port "$PORT"
    python3 "$HC" -H 127.0.0.1 -p "$PORT" -t 20 -s 0 "$1" >"$TMP/hc.out"
    # the server ends its one test within --control-timeout (10 s) of the client's
    # going; 30 s bounds a hang
    local i
    for i in $(seq 1 300); do kill -0 "$spid" 2>/dev/null || break; sleep 0.1; done
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert isinstance(d, dict), "not a JSON object: %r" % (d,)
assert set(sys.argv[2].split()) <= set(d), "keys: %s" % sorted(d)
print(d["error"])' "$TMP/s.json" "$keys"
}

@test "esxperf -s -J: a client gone during stream setup gets an object with an error, not a bare string" {
    run json_error_after abort-create
    assert_status 0
    assert_contains "stream setup"
}

# (a guard: the test had started, so the document so far is kept, not replaced by
# the empty one; as on the client, it has no "end" yet)
@test "esxperf -s -J: a client gone at EXCHANGE_RESULTS: the document so far, closed with the error" {
    run json_error_after abort-results "start intervals"
    assert_status 0
    assert_contains "client's results"
}
