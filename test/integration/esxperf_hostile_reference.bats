#!/usr/bin/env bats
# test/lib/hostile_client.py against the reference peer, Debian's iperf3 3.12, on
# 127.0.0.1 only: proves the hostile client works (so esxperf's server tests can
# trust its verdicts) and records the baseline esxperf must match or beat.
# Known 3.12 behaviour kept out of these tests on purpose: it segfaults on a params
# string key of another JSON type ("authtoken":5, "title":{}), accepts parallel
# 100000, len 2^40 and time -1, and holds silent clients forever.
load ../lib/common

HC="$ESXDIAG_ROOT/test/lib/hostile_client.py"

setup() {
    command -v iperf3 >/dev/null || skip "iperf3 not installed"
    PORT=$(free_port)
    PIDS=()
    TMP=$(mktemp -d)
}

teardown() {
    stop_pids
    rm -rf "$TMP"
}

iperf3_server() {
    iperf3 -s -B 127.0.0.1 -p "$PORT" >"$TMP/iperf3s.log" 2>&1 &
    SPID=$!
    PIDS+=($SPID)
    wait_port "$PORT"
}

@test "hostile client: refuses addresses outside loopback and the test ranges" {
    run timeout 10 "$HC" -H 192.0.2.1 -p 9 silent
    assert_status 2
    assert_contains "refusing"
    run timeout 10 "$HC" -p 9 -t 61 silent
    assert_status 2
    run timeout 10 "$HC" -p 9 -n 501 flood
    assert_status 2
}

@test "hostile client vs iperf3 3.12: normal test completes" {
    iperf3_server
    run timeout 30 "$HC" -p "$PORT" -t 5 -s 0 normal
    assert_status 0
    assert_contains "normal: completed"
}

@test "hostile client vs iperf3 3.12: wrong stream cookie and an extra stream get ACCESS_DENIED" {
    iperf3_server
    run timeout 60 "$HC" -p "$PORT" -t 5 -s 0.5 bad-stream-cookie normal extra-streams normal
    assert_status 0
    [[ "${lines[0]}" == "bad-stream-cookie: stream:state:ACCESS_DENIED"* ]] || flunk "$output"
    [[ "${lines[1]}" == "normal: completed"* ]] || flunk "$output"
    [[ "${lines[2]}" == "extra-streams: extra-stream:state:ACCESS_DENIED"* ]] || flunk "$output"
    [[ "${lines[3]}" == "normal: completed"* ]] || flunk "$output"
}

@test "hostile client vs iperf3 3.12: 200 connections during a test are denied, the test completes" {
    iperf3_server
    timeout 30 iperf3 -c 127.0.0.1 -p "$PORT" -t 3 -J >"$TMP/client.json" 2>&1 &
    local cpid=$!
    wait_established "$PORT"     # the flood must come while the test runs
    run timeout 30 "$HC" -p "$PORT" -t 3 -s 0 -n 200 flood
    wait "$cpid" || flunk "the running iperf3 test failed: $(cat "$TMP/client.json")"
    assert_status 0
    assert_contains "flood ACCESS_DENIED=200 "
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["end"]["sum_received"]["bytes"] > 0' "$TMP/client.json"
    printf '# iperf3 3.12 peak RSS after the flood: %s\n' "$(grep VmHWM /proc/$SPID/status)" >&3
}

@test "hostile client vs iperf3 3.12: silent and half-sent clients are held (timeout)" {
    iperf3_server
    run timeout 60 "$HC" -p "$PORT" -t 1 -s 0.3 silent normal mid-cookie normal mid-json normal
    assert_status 0
    [[ "${lines[0]}" == "silent: timeout"* ]] || flunk "$output"
    [[ "${lines[2]}" == "mid-cookie: timeout"* ]] || flunk "$output"
    [[ "${lines[4]}" == "mid-json: timeout"* ]] || flunk "$output"
    for i in 1 3 5; do
        [[ "${lines[$i]}" == "normal: completed"* ]] || flunk "$output"
    done
}

@test "hostile client vs iperf3 3.12: a client dying at each state, then a normal test" {
    iperf3_server
    run timeout 120 "$HC" -p "$PORT" -t 5 -s 0.5 abort-cookie normal abort-params normal \
        abort-create normal abort-running normal abort-results normal
    assert_status 0
    [ "${#lines[@]}" -eq 10 ] || flunk "$output"
    for i in 1 3 5 7 9; do
        [[ "${lines[$i]}" == "normal: completed"* ]] || flunk "after ${lines[$((i - 1))]}: $output"
    done
}
