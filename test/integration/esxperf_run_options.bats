#!/usr/bin/env bats
# iperf3 3.17..3.22's output, run and server options in esxperf, each
# against iperf3 3.22 itself (test/lib/iperf3-peers.sh) and against esxperf, on
# 127.0.0.1 only: --json-stream's events line by line beside 3.22's own, -F moving a
# file both ways (sha256), --repeating-payload on the wire (the file a -F receiver
# writes), -D/-I leaving a server that is findable and stoppable,
# --server-bitrate-limit and --server-max-duration ending tests with iperf3's errors.
load ../lib/common

PEERS_LIB="$ESXDIAG_ROOT/test/lib/iperf3-peers.sh"
STREAM_CHECK="$ESXDIAG_ROOT/test/lib/json-stream-check.py"
# a test here takes 1-3 s; 25 s bounds a hang (below the server's 30 s stall guard)
CASE_TIMEOUT=25

setup_file() {
    source "$PEERS_LIB"
    iperf3_peers_fetch 2>"$BATS_FILE_TMPDIR/fetch.log" ||
        echo "$IPERF3_PEERS_ERROR" >"$BATS_FILE_TMPDIR/peers.skip"
}

setup() {
    source "$PEERS_LIB"
    PIDS=()
    TMP=$(mktemp -d)
    PORT=$(free_port)
}

teardown() {
    stop_pids
    [ -f "$TMP/pid" ] && kill "$(cat "$TMP/pid")" 2>/dev/null
    rm -rf "$TMP"
}

# I322: iperf3 3.22's command (the test is skipped without it)
need_322() {
    [ -f "$BATS_FILE_TMPDIR/peers.skip" ] && skip "iperf3 3.22: $(cat "$BATS_FILE_TMPDIR/peers.skip")"
    I322=$(iperf3_peer 3.22) || skip "iperf3 3.22 not available"
}

# serve KIND [OPTS...]: a one-test server (esxperf or 3.22) on $PORT, its stdout in
# $TMP/s.out, stderr in $TMP/s.err
serve() {
    local kind=$1
    shift
    if [ "$kind" = esxperf ]; then
        "$BIN/esxperf" -s -1 -B 127.0.0.1 -p "$PORT" "$@" >"$TMP/s.out" 2>"$TMP/s.err" &
    else
        "$I322" -s -1 -B 127.0.0.1 -p "$PORT" "$@" >"$TMP/s.out" 2>"$TMP/s.err" &
    fi
    SPID=$!
    PIDS+=($SPID)
    wait_port "$PORT"
}

# wait (bounded, 10 s) for the one-test server to exit
server_done() {
    local i
    for i in $(seq 1 100); do kill -0 "$SPID" 2>/dev/null || return 0; sleep 0.1; done
    flunk "the server did not exit after its one test"
}

client() {
    local kind=$1
    shift
    if [ "$kind" = esxperf ]; then
        run timeout "$CASE_TIMEOUT" "$BIN/esxperf" -c 127.0.0.1 -p "$PORT" "$@"
    else
        run timeout "$CASE_TIMEOUT" "$I322" -c 127.0.0.1 -p "$PORT" "$@"
    fi
}

@test "--json-stream: every line is JSON, the events as iperf3 3.22's own (client and server, TCP and UDP)" {
    need_322
    local args kind
    for args in "-t 2" "-t 2 -R -P 2" "-u -b 10M -t 2"; do
        for kind in iperf3 esxperf; do
            serve iperf3 --json-stream
            # shellcheck disable=SC2086
            client "$kind" $args --json-stream
            assert_status 0
            printf '%s\n' "$output" >"$TMP/c.$kind"
            server_done
            cp "$TMP/s.out" "$TMP/s.iperf3-under-$kind"
        done
        python3 "$STREAM_CHECK" "$TMP/c.iperf3" "$TMP/c.esxperf" ||
            flunk "client -c $args: esxperf's --json-stream differs from iperf3 3.22's"
        # the servers: 3.22 -s --json-stream and esxperf -s --json-stream, a 3.22 client
        serve esxperf --json-stream
        # shellcheck disable=SC2086
        client iperf3 $args
        assert_status 0
        server_done
        python3 "$STREAM_CHECK" "$TMP/s.iperf3-under-iperf3" "$TMP/s.out" ||
            flunk "server, client $args: esxperf -s's --json-stream differs from iperf3 3.22's"
    done
}

@test "--json-stream: a failure is an error event, then end, as 3.22 (connection refused)" {
    need_322
    run timeout "$CASE_TIMEOUT" "$I322" -c 127.0.0.1 -p "$PORT" --json-stream
    printf '%s\n' "$output" >"$TMP/i.jsonl"
    run timeout "$CASE_TIMEOUT" "$BIN/esxperf" -c 127.0.0.1 -p "$PORT" --json-stream
    assert_status 2
    printf '%s\n' "$output" | grep '^{' >"$TMP/e.jsonl"
    python3 "$STREAM_CHECK" "$TMP/i.jsonl" "$TMP/e.jsonl"
    run python3 -c 'import json,sys; print([json.loads(l)["event"] for l in open(sys.argv[1])])' "$TMP/e.jsonl"
    assert_contains "['error', 'end']"
}

@test "--json-stream-full-output: the events, then the whole -J document (3.22 does the same)" {
    need_322
    local kind
    for kind in iperf3 esxperf; do
        serve iperf3
        client "$kind" -t 1 --json-stream --json-stream-full-output --extra-data rack7
        assert_status 0
        server_done
        printf '%s\n' "$output" >"$TMP/full.$kind"
        python3 - "$TMP/full.$kind" <<'EOF' || flunk "$kind: $(cat "$TMP/full.$kind" | head -c 600)"
import json, sys
text = open(sys.argv[1]).read()
lines = text.split("\n")
events = []
while lines and lines[0].startswith('{"event"'):
    events.append(json.loads(lines.pop(0))["event"])
doc = json.loads("\n".join(lines))
assert events[0] == "start" and events[-1] == "end" and "interval" in events, events
assert set(doc) >= {"start", "intervals", "end"}, sorted(doc)
assert doc["extra_data"] == "rack7", doc.get("extra_data")
EOF
    done
}

@test "-F: a file goes whole both ways, sha256 equal (esxperf and iperf3 3.22, either role, -R)" {
    need_322
    # whole 128 KiB blocks: iperf3 3.22's own server drops a last partial block
    head -c $((24 * 131072)) /dev/urandom >"$TMP/src"
    local want got c s
    want=$(sha256sum <"$TMP/src")
    # forward: the client sends the file (no -t: the file's length is the test;
    # iperf3's client gets -t 2: without it 3.22 hangs at the end of the file)
    for c in esxperf iperf3; do
        for s in esxperf iperf3; do
            [ "$c$s" = iperf3iperf3 ] && continue     # iperf3 against itself is not ours
            rm -f "$TMP/dst"
            serve "$s" -F "$TMP/dst"
            # (with intervals: at the file's end the client holds to the next tick, as
            # iperf3 3.18+, so that an iperf3 server has read it all before TEST_END)
            if [ "$c" = esxperf ]; then client esxperf -F "$TMP/src" -i 0.5
            else client iperf3 -F "$TMP/src" -t 2 -i 0; fi
            assert_status 0
            server_done
            got=$(sha256sum <"$TMP/dst")
            [ "$got" = "$want" ] || flunk "$c -c -F -> $s -s -F: $(stat -c %s "$TMP/dst") bytes, sha256 differs"
            # reverse: the server sends its -F file, the client writes what arrives
            rm -f "$TMP/dst"
            serve "$s" -F "$TMP/src"
            client "$c" -R -t 2 -i 0 -F "$TMP/dst"
            assert_status 0
            server_done
            got=$(sha256sum <"$TMP/dst")
            [ "$got" = "$want" ] || flunk "$c -c -R -F <- $s -s -F: $(stat -c %s "$TMP/dst") bytes, sha256 differs"
        done
    done
    [ "$(stat -c %a "$TMP/dst")" = 600 ] || flunk "the written file is mode $(stat -c %a "$TMP/dst"), iperf3 writes 600"
}

@test "-F: at the file's end the client ends the test at the next interval tick, as iperf3 3.22 (its server reads no more after TEST_END)" {
    need_322
    head -c $((8 * 131072)) /dev/urandom >"$TMP/src"
    local kind
    for kind in iperf3 esxperf; do
        serve iperf3 -F "$TMP/dst.$kind"
        # 1 MiB goes in milliseconds on loopback: the test's length is the hold
        client "$kind" -F "$TMP/src" -i 0.5 -J
        assert_status 0
        server_done
        printf '%s\n' "$output" >"$TMP/c.json"
        run python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["end"]["sum_sent"]; print(e["end"], e["bytes"])' "$TMP/c.json"
        # iperf3's main thread sees the sender's end of file when its select()
        # returns: at the next tick, or at once when it was awake anyway (seen
        # here once, 0.004 s, with other jobs running); esxperf ends at the tick
        local want='^0\.(4[5-9]|[5-9])[0-9]*\ 1048576$'
        [ "$kind" = iperf3 ] && want='^0\.[0-5][0-9]*\ 1048576$'
        [[ "$output" =~ $want ]] ||
            flunk "$kind -c -F: the test ended at ${output% *} s, sent ${output#* } bytes (want the 0.5 s tick, 1048576)"
        cmp -s "$TMP/src" "$TMP/dst.$kind" || flunk "$kind -c -F: the server's file differs"
    done
}

@test "-F: a file that cannot be opened, and UDP, are refused as iperf3 does" {
    need_322
    run timeout "$CASE_TIMEOUT" "$BIN/esxperf" -c 127.0.0.1 -p "$PORT" -u -F /etc/hostname
    assert_status 2
    assert_contains "-F moves a file over TCP only"
    # refused before connecting (no server needed)
    client esxperf -F "$TMP/no-such-file" -t 1
    assert_status 2
    assert_contains "cannot open -F file $TMP/no-such-file to send"
    assert_not_contains "Connecting to host"
    # an esxperf server with -F refuses a UDP test with iperf3's error 34
    serve esxperf -F "$TMP/dst"
    client iperf3 -u -t 1
    assert_status 1
    assert_contains "cannot transfer file using UDP"
}

@test "--repeating-payload: the bytes on the wire are iperf3's 0123456789 pattern (a -F receiver's file shows them)" {
    need_322
    local c s
    for c in esxperf iperf3; do
        for s in esxperf iperf3; do
            rm -f "$TMP/dst"
            [ "$c$s" = iperf3iperf3 ] && continue
            serve "$s" -F "$TMP/dst"
            # iperf3 3.22 ends -n at the end of an interval: with -i 0 it never does
            if [ "$c" = esxperf ]; then client esxperf --repeating-payload -n 1M -i 0
            else client iperf3 --repeating-payload -n 1M -i 0.5; fi
            assert_status 0
            server_done
            python3 - "$TMP/dst" <<'EOF' || flunk "$c -> $s: the payload is not the repeating pattern"
import sys
b = open(sys.argv[1], "rb").read()
# an iperf3 server reads nothing after TEST_END, so its file may lack the last
# blocks of an -n test: what is there is what counts
assert len(b) >= 131072, len(b)
pat = b"0123456789" * (len(b) // 10 + 1)
# each 128 KiB block starts the pattern again (iperf3 fills one block)
for at in range(0, len(b), 131072):
    blk = b[at:at + 131072]
    assert blk == pat[:len(blk)], (at, blk[:20])
EOF
        done
    done
    # without it, random bytes: the pattern test fails
    rm -f "$TMP/dst"
    serve esxperf -F "$TMP/dst"
    client esxperf -n 1M -i 0
    server_done
    run python3 -c 'import sys; b=open(sys.argv[1],"rb").read(); sys.exit(0 if b[:20]==b"01234567890123456789" else 1)' "$TMP/dst"
    assert_status 1
}

@test "-D -I: the server detaches, its pid file names it, a second one is refused, kill removes the file" {
    local pid i
    run timeout 10 "$BIN/esxperf" -s -D -I "$TMP/pid" -B 127.0.0.1 -p "$PORT"
    assert_status 0                      # the shell gets its prompt back at once
    wait_port "$PORT"
    [ -s "$TMP/pid" ] || flunk "no pid file"
    pid=$(cat "$TMP/pid")
    [[ "$pid" =~ ^[0-9]+$ ]] || flunk "pid file holds '$pid' (iperf3: the pid, no newline)"
    [ "$(readlink "/proc/$pid/exe")" = "$(readlink -f "$BIN/esxperf")" ] || flunk "pid $pid is not esxperf"
    # detached: its own session, no terminal
    [ "$(ps -o sid= -p "$pid" | tr -d ' ')" = "$pid" ] || flunk "pid $pid leads no session of its own"
    ss -ltnpH "sport = :$PORT" | grep -q "pid=$pid," || flunk "pid $pid does not listen on $PORT"
    run timeout "$CASE_TIMEOUT" "$BIN/esxperf" -c 127.0.0.1 -p "$PORT" -t 1 -i 0
    assert_status 0
    run timeout 10 "$BIN/esxperf" -s -I "$TMP/pid" -B 127.0.0.1 -p "$(free_port)"
    assert_status 2
    assert_contains "process $pid runs"
    [ "$(cat "$TMP/pid")" = "$pid" ] || flunk "the refused server overwrote the pid file"
    kill "$pid"
    for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && flunk "the server outlived SIGTERM"
    [ ! -e "$TMP/pid" ] || flunk "the pid file outlived the server"
    # a stale file (its pid gone) is taken over, as iperf3 does
    printf '%s' "$pid" >"$TMP/pid"
    "$BIN/esxperf" -s -1 -I "$TMP/pid" -B 127.0.0.1 -p "$PORT" >"$TMP/s.out" 2>&1 &
    SPID=$!
    PIDS+=($SPID)
    wait_port "$PORT"
    [ "$(cat "$TMP/pid")" = "$SPID" ] || flunk "stale pid file not taken over"
    run timeout "$CASE_TIMEOUT" "$BIN/esxperf" -c 127.0.0.1 -p "$PORT" -t 1 -i 0
    server_done
    [ ! -e "$TMP/pid" ] || flunk "-1: the pid file outlived the server's one test"
}

@test "-D where fork is refused (ENOSYS, as in some ESXi userworlds): the server starts itself again detached, serves a test, kill removes the pid file" {
    command -v strace >/dev/null || skip "strace not installed"
    local pid i
    # no -f: only the first process is traced, so strace ends when it does
    run timeout 10 strace -qq -o /dev/null -e trace=fork -e inject=fork:error=ENOSYS \
        "$BIN/esxperf" -s -D -I "$TMP/pid" -B 127.0.0.1 -p "$PORT"
    assert_status 0
    wait_port "$PORT"
    pid=$(cat "$TMP/pid")
    [ "$(ps -o sid= -p "$pid" | tr -d ' ')" = "$pid" ] || flunk "pid $pid leads no session of its own"
    ss -ltnpH "sport = :$PORT" | grep -q "pid=$pid," || flunk "pid $pid does not listen on $PORT"
    run timeout "$CASE_TIMEOUT" "$BIN/esxperf" -c 127.0.0.1 -p "$PORT" -t 1 -i 0
    assert_status 0
    kill "$pid"
    for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && flunk "the server outlived SIGTERM"
    [ ! -e "$TMP/pid" ] || flunk "the pid file outlived the server"
}

@test "--server-bitrate-limit: a test over it ends with iperf3's error (3.22 client), at the parameters and while running" {
    need_322
    # asked for more than the limit: refused before the streams
    serve esxperf --server-bitrate-limit 1M
    client iperf3 -t 3 -b 2M
    assert_status 1
    assert_contains "total required bandwidth is larger than server limit"
    server_done
    # unpaced TCP on loopback passes 1 Mbit/s at once: ended after the 1 s window
    # (the error itself says the server ended it: a test run to its end has none)
    serve esxperf --server-bitrate-limit 1M/1
    client iperf3 -t 10
    assert_status 1
    assert_contains "total required bandwidth is larger than server limit"
    server_done
    run cat "$TMP/s.err"
    assert_contains "passed --server-bitrate-limit 1000000 bit/s"
    # under the limit: the test runs whole
    serve esxperf --server-bitrate-limit 100M/1
    client iperf3 -t 2 -b 20M
    assert_status 0
    # esxperf's own client gets the same error number
    serve esxperf --server-bitrate-limit 1M/1
    client esxperf -t 10
    assert_status 1
    assert_contains "27"
}

@test "--server-max-duration (and --max-duration): longer tests and -n tests refused with iperf3's error" {
    need_322
    local opt
    for opt in --server-max-duration --max-duration; do
        serve esxperf "$opt" 3
        client iperf3 -t 5
        assert_status 1
        assert_contains "client's requested duration exceeds the server's maximum permitted limit"
        server_done
        serve esxperf "$opt" 3
        client iperf3 -t 2 -O 1
        assert_status 0
        server_done
    done
    serve esxperf --server-max-duration 3
    client esxperf -n 10M
    assert_status 1
    assert_contains "37"
    run cat "$TMP/s.err"
    assert_contains "an -n/-k test has no time"
}

@test "--debug: accepted as iperf3 (-d, --debug=N), prints what -V prints" {
    local opt
    for opt in -d --debug --debug=2; do
        serve esxperf
        client esxperf -t 1 -i 0 "$opt"
        assert_status 0
        assert_contains "TCP send:"          # -V's I/O path line
        server_done
    done
    run "$BIN/esxperf" -c 127.0.0.1 --debug=lots
    assert_status 2
    assert_contains "bad --debug level 'lots'"
}

# stop_mid_test SIG SERVER_PID KIND [ARGS...]: a KIND client (iperf3 3.22, 3.18 or
# esxperf) runs -t 30 against the server; once its first interval line is out (the
# test runs), the server gets SIG. The client must end at once, nonzero, with
# iperf3's "the server has terminated" (SERVER_TERMINATE came on the control
# connection; a server that just closes gives "control socket has closed
# unexpectedly"). Measured: it ends within 0.1 s of the signal; 10 s bounds it with
# slack for a loaded host, far below the 30 s the test would otherwise run.
stop_mid_test() {
    local sig=$1 spid=$2 kind=$3 cpid i rc=0
    shift 3
    : >"$TMP/c.out"
    # --forceflush: each interval line reaches the file as it is made
    set -- -c 127.0.0.1 -p "$PORT" -t 30 -i 1 --forceflush "$@"
    case $kind in
    esxperf) "$BIN/esxperf" "$@" >"$TMP/c.out" 2>&1 & ;;
    3.18) "$(iperf3_peer 3.18)" "$@" >"$TMP/c.out" 2>&1 & ;;
    *) "$I322" "$@" >"$TMP/c.out" 2>&1 & ;;
    esac
    cpid=$!
    PIDS+=($cpid)
    # the first interval line (bounded, 20 s): the test is running
    for i in $(seq 1 200); do grep -q ' 0.00-1.0.  *sec' "$TMP/c.out" && break; sleep 0.1; done
    grep -q ' 0.00-1.0.  *sec' "$TMP/c.out" || flunk "$kind client: no interval line in 20 s: $(cat "$TMP/c.out")"
    kill "-$sig" "$spid"
    for i in $(seq 1 100); do kill -0 "$cpid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$cpid" 2>/dev/null && flunk "$kind client still runs 10 s after the server's SIG$sig: $(cat "$TMP/c.out")"
    wait "$cpid" || rc=$?
    [ "$rc" -ne 0 ] || flunk "$kind client exited 0 after the server was stopped: $(cat "$TMP/c.out")"
    output=$(cat "$TMP/c.out")
    assert_contains "the server has terminated"
    assert_not_contains "closed unexpectedly"
    # the summary of what the client measured until then comes first, as iperf3's
    # client prints one (esxperf: this side's rows only; iperf3 adds the other's as 0)
    grep -qE '^\[ *[0-9]+\] +0\.00-[0-9.]+ +sec .* (sender|receiver)$' "$TMP/c.out" ||
        flunk "$kind client: no summary row before the error: $output"
}

# wait (bounded, 10 s) until process $1 is gone, and nothing listens on $PORT
server_gone() {
    local i
    for i in $(seq 1 100); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$1" 2>/dev/null && flunk "the server ($1) outlived its signal"
    ss -ltnH "sport = :$PORT" | grep -q . && flunk "something still listens on $PORT"
    return 0
}

@test "-D -I: SIGTERM during a test tells the client SERVER_TERMINATE (iperf3 3.22, esxperf), removes the pid file, leaves no process" {
    need_322
    local kind pid args
    for kind in 3.22 esxperf 3.22/-R 3.22/-u; do
        args=()
        [[ $kind == */* ]] && args=("${kind#*/}") && kind=${kind%%/*}
        [ "${args[*]}" = -u ] && args=(-u -b 100M)
        PORT=$(free_port)
        run timeout 10 "$BIN/esxperf" -s -D -I "$TMP/pid" -B 127.0.0.1 -p "$PORT"
        assert_status 0
        wait_port "$PORT"
        pid=$(cat "$TMP/pid")
        stop_mid_test TERM "$pid" "$kind" "${args[@]}"
        server_gone "$pid"
        [ ! -e "$TMP/pid" ] || flunk "the pid file outlived the server"
        # the daemon led its own session: nothing of it is left
        [ -z "$(pgrep -s "$pid")" ] || flunk "processes of the server's session remain: $(pgrep -a -s "$pid")"
    done
}

@test "SIGINT, SIGHUP stop a foreground esxperf -s the same way (iperf3 3.18 client): exit 0, the reason logged" {
    local sig spid rc
    source "$PEERS_LIB"
    iperf3_peer 3.18 >/dev/null || skip "iperf3 3.18 not available"
    for sig in INT HUP; do
        PORT=$(free_port)
        "$BIN/esxperf" -s -B 127.0.0.1 -p "$PORT" >"$TMP/s.out" 2>"$TMP/s.err" &
        spid=$!
        PIDS+=($spid)
        wait_port "$PORT"
        stop_mid_test "$sig" "$spid" 3.18
        server_gone "$spid"
        rc=0
        wait "$spid" || rc=$?
        [ "$rc" -eq 0 ] || flunk "the server exited $rc after SIG$sig (iperf3: 0)"
        # the server's summary of what it received until the signal, as iperf3's
        grep -qE '^\[ *[0-9]+\] +0\.00-[0-9.]+ +sec .* receiver$' "$TMP/s.out" ||
            flunk "no server summary row after SIG$sig: $(cat "$TMP/s.out")"
        output=$(cat "$TMP/s.err")
        assert_contains "the server was stopped (SIG$sig); ended with SERVER_TERMINATE"
        assert_contains "interrupted (SIG$sig): the server has terminated"
    done
}

@test "-D -I: SIGTERM while a client holds the server before its cookie: SERVER_TERMINATE within the 5 s grace, the pid file goes" {
    local pid
    run timeout 10 "$BIN/esxperf" -s -D -I "$TMP/pid" -B 127.0.0.1 -p "$PORT"
    assert_status 0
    wait_port "$PORT"
    pid=$(cat "$TMP/pid")
    # a client that connects and sends nothing: the server waits for its cookie
    # beside the stop signal and tells it SERVER_TERMINATE at once (a server held in
    # another wait is ended by the signal thread after STOP_GRACE_NS, 5 s). 12 s
    # bounds the read: the grace plus slack for a loaded host, below the 10 s + 5 s
    # a server waiting its timeout out takes
    python3 - "$PORT" "$pid" >"$TMP/raw.out" 2>&1 <<'PY' &
import os, signal, socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
time.sleep(0.3)                      # accepted: the server is in its handshake
os.kill(int(sys.argv[2]), signal.SIGTERM)
t0 = time.monotonic()
s.settimeout(12)
b = s.recv(1)
print("byte", b[0] - 256 if b and b[0] > 127 else (b[0] if b else None), "after %.1f s" % (time.monotonic() - t0))
PY
    PIDS+=($!)
    wait "${PIDS[-1]}" || flunk "the raw client failed: $(cat "$TMP/raw.out")"
    output=$(cat "$TMP/raw.out")
    assert_contains "byte 11 "           # SERVER_TERMINATE (iperf_api.h: 11)
    server_gone "$pid"
    [ ! -e "$TMP/pid" ] || flunk "the pid file outlived the server"
}
