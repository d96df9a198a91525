#!/usr/bin/env bats
# esxperf -c against test/lib/hostile_server.py (a misbehaving iperf3 server, one
# per case, on 127.0.0.1 with a kernel-chosen port). For every case in the table
# below the client must exit with the documented code, print one line on stderr
# that names the server's fault, finish within the documented bound (docs/esxperf.md,
# "A client that survives hostile servers": each wait for the server is at most 10 s) and stay under a
# memory bound (peak RSS from GNU time -f %M), without a sanitizer report for the
# cases run with the ASan+UBSan build (out/asan/esxperf, `make asan`).
# setup_file runs every case (those that wait 10 s all at once, the others 4 at a
# time); each case is one @test that waits for its run, checks it, and prints its exit code,
# time, peak RSS and stderr line (bats shows those # lines with --tap).
load ../lib/common

HS="$ESXDIAG_ROOT/test/lib/hostile_server.py"
ASAN=${ESXDIAG_ASAN:-$ESXDIAG_ROOT/out/asan/esxperf}   # the sanitized client
# Slack over the documented bound: the worst seen was 1.7 s over it (7 runs of this
# file on a shared 2-CPU machine, load 10-18, 3 of them beside stress-ng --cpu 1);
# 10 s is far from that and from the 30 s the old client waited: a bound against
# hangs only.
SLACK=10
# Peak RSS bounds (kB): the worst measured is 29056 kB for the static client
# (results-many-tokens: 1M tokens parsed before the limit refuses them; the old
# client took 82 MB there) and 59032 kB under ASan (results-big-text -J). About
# twice the worst.
RSS_MAX=65536
RSS_MAX_ASAN=131072

# NAME|MODE|BUILD|EXIT|BOUND|MESSAGE|CLIENT ARGS (after -c 127.0.0.1 -p PORT -i 0)
# (UDP cases give -b or -l so that no rate warning adds a line to stderr.)
# BUILD: bin (out/bin/esxperf, static musl) or asan. EXIT: a regex for the exit
# code. BOUND: the documented time in s: the test time plus any 10 s wait; for
# results of megabytes the test time plus 10 s (documented: 10 s + 1 s per 128 KiB
# of body), since decoding and printing them takes seconds under ASan.
# MESSAGE: fixed strings, separated by ";", that the one stderr line (and with -J
# the JSON "error") holds; "-" for cases that succeed, which print nothing on stderr.
# Where the client before these checks was already right, they are what both its
# wording and today's share (those cases pass on it: guards).
cases() {
    cat <<'EOF'
close-cookie|close-cookie|bin|1|0|closed the control connection;PARAM_EXCHANGE|-t 1
close-params|close-params|bin|1|0|closed the control connection;CREATE_STREAMS|-t 1
close-create|close-create|bin|1|0|closed the control connection;TEST_START|-t 1
close-create-udp|close-create|bin|1|0|closed the control connection;TEST_START|-t 1 -u -l 1400
close-start|close-start|bin|1|0|closed the control connection;TEST_START|-t 1
close-running|close-running|bin|1|0|closed the control connection;TEST_RUNNING|-t 1
close-test|close-test|bin|1|1|the server closed the control connection during the test|-t 1
close-test-reverse|close-test|bin|1|1|the server closed the control connection during the test|-t 1 -R
close-end|close-end|bin|1|1|closed the control connection;EXCHANGE_RESULTS|-t 1
close-end-json|close-end|bin|1|1|closed the control connection;EXCHANGE_RESULTS|-t 1 -J
close-exchange|close-exchange|bin|1|1|the server closed the control connection|-t 1
close-results|close-results|bin|1|1|the server closed the control connection instead of sending its results|-t 1
close-mid-results|close-mid-results|bin|1|1|of its results, then closed the control connection|-t 1
close-display|close-display|bin|1|1|closed the control connection;DISPLAY_RESULTS|-t 1
close-done|close-done|bin|0|1|-|-t 1
stall-cookie|stall-cookie|bin|1|10|the server sent nothing for 10 s when PARAM_EXCHANGE was due|-t 1
stall-params|stall-params|bin|1|10|the server sent nothing for 10 s when CREATE_STREAMS was due|-t 1
stall-create|stall-create|bin|1|10|the server sent nothing for 10 s when TEST_START was due|-t 1
stall-create-udp|stall-create|bin|1|10|no UDP reply from the server within 10 s|-t 1 -u -l 1400
stall-start|stall-start|bin|1|10|the server sent nothing for 10 s when TEST_START was due|-t 1
stall-running|stall-running|bin|1|10|the server sent nothing for 10 s when TEST_RUNNING was due|-t 1
stall-end|stall-end|bin|1|11|the server sent nothing for 10 s when EXCHANGE_RESULTS was due|-t 1
stall-exchange|stall-exchange|bin|1|11|the server sent no results within 10 s|-t 1
stall-mid-results|stall-mid-results|bin|1|11|of its results, then nothing more within 10 s|-t 1
stall-display|stall-display|bin|1|11|the server sent nothing for 10 s when DISPLAY_RESULTS was due|-t 1
garbage-state|garbage-state|bin|1|0|the server sent;85|-t 1
garbage-running|garbage-running|bin|1|1|the server sent;127|-t 1
garbage-end|garbage-end|bin|1|1|the server sent;-32|-t 1
terminate-streams-first|terminate-streams-first|bin|1|3|SERVER_TERMINATE|-t 3 -i 0.1
error-negative|error-negative|bin|1|0|iperf3 error -5 (not an iperf3 error number), errno -7 (not an errno value)|-t 1
error-max|error-max|bin|1|0|iperf3 error 2147483647 (not an iperf3 error number), errno 2147483647 (not an errno value)|-t 1
error-min|error-min|bin|1|0|iperf3 error -2147483648 (not an iperf3 error number), errno -2147483648 (not an errno value)|-t 1
error-errno|error-errno|bin|1|0|the server reported an error: waiting on its sockets (select) failed (iperf3 error 118), errno 1094795585 (not an errno value)|-t 1
error-duration|error-duration|bin|1|0|the server reported an error: the test would run longer than the server's --server-max-duration allows (iperf3 error 37)|-t 1
error-duration-json|error-duration|bin|1|0|the server reported an error: the test would run longer than the server's --server-max-duration allows (iperf3 error 37)|-t 1 -J
error-unknown|error-unknown|bin|1|0|the server reported an error: unknown iperf3 error 41|-t 1
error-short|error-short|bin|1|0|the server reported an error (SERVER_ERROR) but closed the connection before its error code|-t 1
error-stall|error-stall|bin|1|2|the server reported an error (SERVER_ERROR) but sent no error code within 2 s|-t 1
error-running|error-running|bin|1|1|iperf3 error -1 (not an iperf3 error number), errno 2147483647 (not an errno value)|-t 1
results-len-0|results-len-0|bin|1|1|results;length 0|-t 1
results-len-2g|results-len-2g|bin|1|1|results;8 MiB|-t 1
results-len-max|results-len-max|bin|1|1|results;8 MiB|-t 1
results-len-8m1|results-len-8m1|bin|1|1|results;8 MiB|-t 1
results-100m|results-100m|bin|1|11|results;8 MiB|-t 1
results-deep|results-deep|bin|1|11|results are JSON nested deeper than 16 levels|-t 1
results-many-keys|results-many-keys|bin|0|11|-|-t 1
results-many-tokens|results-many-tokens|bin|1|11|results have more JSON tokens than our limit (1048576)|-t 1
results-big-text|results-big-text|bin|0|11|-|-t 1 --get-server-output
results-truncated|results-truncated|bin|1|1|the server's results are not valid|-t 1
results-truncated-json|results-truncated|bin|1|1|the server's results are not valid|-t 1 -J
results-wrong-types|results-wrong-types|bin|1|1|results lack CPU figures or sender_has_retransmits, or have wrong types|-t 1
results-stream-types|results-stream-types|bin|1|1|a results stream lacks a field or has a wrong type|-t 1
results-huge-counts|results-huge-counts|bin|1|1|results have a CPU figure out of range|-t 1 -P 2
results-many-streams|results-many-streams|bin|1|1|the server's results are not valid;streams|-t 1
no-read|no-read|bin|[01]|1|-|-t 1
no-read-udp|no-read|bin|[01]|1|-|-t 1 -u -l 1400
no-read-bidir|no-read|bin|[01]|1|-|-t 1 --bidir
no-read-bytes|no-read|bin|1|10|the server took no data for 10 s (data stream 1: it accepted the stream but does not read it)|-n 100M
no-read-blocks|no-read|bin|1|10|the server took no data for 10 s (data stream 1|-k 1000
asan-normal|normal|asan|0|1|-|-t 1 -J
asan-normal-udp-reverse|normal|asan|0|1|-|-t 1 -u -l 1400 -R -P 2
asan-close-test|close-test|asan|1|1|the server closed the control connection during the test|-t 1
asan-close-mid-results|close-mid-results|asan|1|1|of its results, then closed the control connection|-t 1
asan-stall-mid-results|stall-mid-results|asan|1|11|of its results, then nothing more within 10 s|-t 1
asan-garbage-running|garbage-running|asan|1|1|the server sent;127|-t 1
asan-error-max|error-max|asan|1|0|iperf3 error 2147483647 (not an iperf3 error number)|-t 1
asan-error-short|error-short|asan|1|0|but closed the connection before its error code|-t 1
asan-results-len-2g|results-len-2g|asan|1|1|results;8 MiB|-t 1
asan-results-100m|results-100m|asan|1|11|results;8 MiB|-t 1
asan-results-deep|results-deep|asan|1|11|results are JSON nested deeper than 16 levels|-t 1
asan-results-many-keys|results-many-keys|asan|0|11|-|-t 1
asan-results-many-tokens|results-many-tokens|asan|1|11|results have more JSON tokens than our limit|-t 1
asan-results-big-text|results-big-text|asan|0|11|-|-t 1 --get-server-output -J
asan-results-huge-counts|results-huge-counts|asan|1|1|results have a CPU figure out of range|-t 1 -P 2
asan-results-wrong-types|results-wrong-types|asan|1|1|or have wrong types|-t 1
asan-no-read-bytes|no-read|asan|1|10|the server took no data for 10 s|-n 100M
normal|normal|bin|0|1|-|-t 1 -J
normal-udp|normal|bin|0|1|-|-t 1 -u -b 10M -J
normal-reverse|normal|bin|0|1|-|-t 1 -R -J
normal-bidir|normal|bin|0|1|-|-t 1 --bidir -P 2 -J
normal-udp-reverse|normal|bin|0|1|-|-t 1 -u -l 1400 -R -P 2 -J
EOF
}

# run one case: hostile server, then the client under GNU time; results in $DIR/NAME.*
run_case() {
    local name=$1 mode=$2 build=$3 args=$4 d=$HOSTILE_DIR bin=$BIN/esxperf
    [ "$build" = asan ] && bin=$ASAN
    python3 "$HS" --linger -p 0 -t 150 "$mode" >"$d/$name.srv" 2>&1 &
    local spid=$! port="" i
    for i in $(seq 1 100); do
        port=$(awk '$1 == "port" { print $2; exit }' "$d/$name.srv")
        [ -n "$port" ] && break
        sleep 0.1
    done
    # shellcheck disable=SC2086
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
        timeout -s KILL 120 /usr/bin/time -f '%e %M' -o "$d/$name.time" \
        "$bin" -c 127.0.0.1 -p "${port:-1}" -i 0 $args >"$d/$name.out" 2>"$d/$name.err"
    echo $? >"$d/$name.rc"
    # the server's line comes once it has seen the client go (bounded: 5 s)
    for i in $(seq 1 50); do
        grep -q "^$mode: " "$d/$name.srv" && break
        sleep 0.1
    done
    kill "$spid" 2>/dev/null
    wait "$spid" 2>/dev/null
    touch "$d/$name.done"
}

setup_file() {
    export HOSTILE_DIR
    HOSTILE_DIR=$(mktemp -d)
    export -f run_case
    export HS ASAN BIN
    # the cases that wait 10 s for the server all at once (they are idle), the others
    # 4 at a time (some move data at full speed)
    local slow
    for slow in 1 0; do
        cases | awk -F'|' -v slow=$slow '($5 >= 10) == slow { print $1; print $2; print $3; print $7 }' |
            xargs -d '\n' -n 4 -P $((slow ? 20 : 4)) bash -c 'run_case "$@"' _ >/dev/null 2>&1 3>&- &
        echo $! >>"$HOSTILE_DIR/runner.pid"
    done
}

teardown_file() {
    local p
    for p in $(cat "$HOSTILE_DIR/runner.pid" 2>/dev/null); do
        pkill -P "$p" 2>/dev/null     # xargs's running cases, then xargs (by their ids)
        kill "$p" 2>/dev/null
    done
    rm -rf "$HOSTILE_DIR"
}

# wait for case NAME (bounded: a case ends within 120 s, and 4 of the 60 quick ones run at once)
wait_case() {
    local i
    for i in $(seq 1 3000); do
        [ -e "$HOSTILE_DIR/$1.done" ] && return 0
        sleep 0.1
    done
    flunk "case $1 did not finish within 300 s"
}

# check case NAME against its table row
check_case() {
    local name=$1 row mode build want bound msg args
    row=$(cases | awk -F'|' -v n="$name" '$1 == n')
    [ -n "$row" ] || flunk "no case $name"
    IFS='|' read -r _ mode build want bound msg args <<<"$row"
    [ "$build" = bin ] || [ -x "$ASAN" ] || flunk "$ASAN is missing: run make asan (make test builds it)"
    wait_case "$name"
    local d=$HOSTILE_DIR rc secs kb err
    rc=$(cat "$d/$name.rc")
    # GNU time inside timeout: %M is the client's own peak RSS (time, outside, would
    # report timeout's); a client killed by timeout leaves no figures
    read -r secs kb < <(tail -1 "$d/$name.time" 2>/dev/null)
    [[ "$secs" =~ ^[0-9.]+$ && "$kb" =~ ^[0-9]+$ ]] || { secs=120; kb=0; }
    err=$(cat "$d/$name.err")
    printf '# %-26s exit %s  %6.2f s  %6d kB  %s\n' "$name" "$rc" "$secs" "$kb" \
        "${err:-(nothing on stderr)}" >&3
    [ "$build" = bin ] || ! grep -qE 'AddressSanitizer|LeakSanitizer|runtime error' "$d/$name.err" ||
        flunk "$name: sanitizer report: $err"
    [[ "$rc" =~ ^($want)$ ]] || flunk "$name: exit $rc, expected $want; stderr: $err; server: $(tail -1 "$d/$name.srv")"
    local lim=$RSS_MAX
    [ "$build" = asan ] && lim=$RSS_MAX_ASAN
    [ "$kb" -le "$lim" ] || flunk "$name: peak RSS $kb kB > $lim kB"
    awk -v t="$secs" -v b="$((bound + SLACK))" 'BEGIN { exit !(t <= b) }' ||
        flunk "$name: took $secs s, bound $bound s (+ $SLACK s slack)"
    if [ "$msg" = - ]; then
        # success, or (no-read -t: exit 1 where a test that moved nothing counts as failed) one line
        [ "$rc" = 0 ] && { [ -z "$err" ] || flunk "$name: stderr: $err"; }
        [ "$rc" = 0 ] || [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || flunk "$name: stderr: $err"
    else
        [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] || flunk "$name: not one line: $err"
        [[ "$err" == "esxperf: "* ]] || flunk "$name: not an esxperf error line: $err"
        local part parts
        IFS=';' read -ra parts <<<"$msg"
        for part in "${parts[@]}"; do
            [[ "$err" == *"$part"* ]] || flunk "$name: stderr lacks '$part': $err"
        done
    fi
    if [[ " $args " == *" -J "* ]]; then
        python3 - "$d/$name.out" "$msg" <<'PY' || flunk "$name: stdout is not the JSON document: $(head -c 300 "$d/$name.out")"
import json, sys
d = json.load(open(sys.argv[1]))
msg = sys.argv[2]
if msg == "-":
    assert "error" not in d, d["error"]
else:
    assert all(part in d["error"] for part in msg.split(";")), d["error"]
PY
    fi
}

@test "hostile server close-cookie: esxperf -c -t 1" { check_case close-cookie; }
@test "hostile server close-params: esxperf -c -t 1" { check_case close-params; }
@test "hostile server close-create: esxperf -c -t 1" { check_case close-create; }
@test "hostile server close-create: esxperf -c -t 1 -u" { check_case close-create-udp; }
@test "hostile server close-start: esxperf -c -t 1" { check_case close-start; }
@test "hostile server close-running: esxperf -c -t 1" { check_case close-running; }
@test "hostile server close-test: esxperf -c -t 1" { check_case close-test; }
@test "hostile server close-test: esxperf -c -t 1 -R" { check_case close-test-reverse; }
@test "hostile server close-end: esxperf -c -t 1" { check_case close-end; }
@test "hostile server close-end: esxperf -c -t 1 -J" { check_case close-end-json; }
@test "hostile server close-exchange: esxperf -c -t 1" { check_case close-exchange; }
@test "hostile server close-results: esxperf -c -t 1" { check_case close-results; }
@test "hostile server close-mid-results: esxperf -c -t 1" { check_case close-mid-results; }
@test "hostile server close-display: esxperf -c -t 1" { check_case close-display; }
@test "hostile server close-done: esxperf -c -t 1" { check_case close-done; }
@test "hostile server stall-cookie: esxperf -c -t 1" { check_case stall-cookie; }
@test "hostile server stall-params: esxperf -c -t 1" { check_case stall-params; }
@test "hostile server stall-create: esxperf -c -t 1" { check_case stall-create; }
@test "hostile server stall-create: esxperf -c -t 1 -u" { check_case stall-create-udp; }
@test "hostile server stall-start: esxperf -c -t 1" { check_case stall-start; }
@test "hostile server stall-running: esxperf -c -t 1" { check_case stall-running; }
@test "hostile server stall-end: esxperf -c -t 1" { check_case stall-end; }
@test "hostile server stall-exchange: esxperf -c -t 1" { check_case stall-exchange; }
@test "hostile server stall-mid-results: esxperf -c -t 1" { check_case stall-mid-results; }
@test "hostile server stall-display: esxperf -c -t 1" { check_case stall-display; }
@test "hostile server garbage-state: esxperf -c -t 1" { check_case garbage-state; }
@test "hostile server garbage-running: esxperf -c -t 1" { check_case garbage-running; }
@test "hostile server garbage-end: esxperf -c -t 1" { check_case garbage-end; }
@test "hostile server terminate-streams-first: esxperf -c -t 3 -i 0.1" { check_case terminate-streams-first; }
@test "hostile server error-negative: esxperf -c -t 1" { check_case error-negative; }
@test "hostile server error-max: esxperf -c -t 1" { check_case error-max; }
@test "hostile server error-min: esxperf -c -t 1" { check_case error-min; }
@test "hostile server error-errno: esxperf -c -t 1" { check_case error-errno; }
@test "hostile server error-duration: esxperf -c -t 1 (a known code: its description)" { check_case error-duration; }
@test "hostile server error-duration: esxperf -c -t 1 -J (the description in error)" { check_case error-duration-json; }
@test "hostile server error-unknown: esxperf -c -t 1 (unknown iperf3 error 41)" { check_case error-unknown; }
@test "hostile server error-short: esxperf -c -t 1" { check_case error-short; }
@test "hostile server error-stall: esxperf -c -t 1" { check_case error-stall; }
@test "hostile server error-running: esxperf -c -t 1" { check_case error-running; }
@test "hostile server results-len-0: esxperf -c -t 1" { check_case results-len-0; }
@test "hostile server results-len-2g: esxperf -c -t 1" { check_case results-len-2g; }
@test "hostile server results-len-max: esxperf -c -t 1" { check_case results-len-max; }
@test "hostile server results-len-8m1: esxperf -c -t 1" { check_case results-len-8m1; }
@test "hostile server results-100m: esxperf -c -t 1" { check_case results-100m; }
@test "hostile server results-deep: esxperf -c -t 1" { check_case results-deep; }
@test "hostile server results-many-keys: esxperf -c -t 1" { check_case results-many-keys; }
@test "hostile server results-many-tokens: esxperf -c -t 1" { check_case results-many-tokens; }
@test "hostile server results-big-text: esxperf -c -t 1 --get-server-output" { check_case results-big-text; }
@test "hostile server results-truncated: esxperf -c -t 1" { check_case results-truncated; }
@test "hostile server results-truncated: esxperf -c -t 1 -J" { check_case results-truncated-json; }
@test "hostile server results-wrong-types: esxperf -c -t 1" { check_case results-wrong-types; }
@test "hostile server results-stream-types: esxperf -c -t 1" { check_case results-stream-types; }
@test "hostile server results-huge-counts: esxperf -c -t 1 -P 2" { check_case results-huge-counts; }
@test "hostile server results-many-streams: esxperf -c -t 1" { check_case results-many-streams; }
@test "hostile server no-read: esxperf -c -t 1" { check_case no-read; }
@test "hostile server no-read: esxperf -c -t 1 -u" { check_case no-read-udp; }
@test "hostile server no-read: esxperf -c -t 1 --bidir" { check_case no-read-bidir; }
@test "hostile server no-read: esxperf -c -n 100M" { check_case no-read-bytes; }
@test "hostile server no-read: esxperf -c -k 1000" { check_case no-read-blocks; }
@test "hostile server normal: esxperf -c -t 1 -J (ASan+UBSan build)" { check_case asan-normal; }
@test "hostile server normal: esxperf -c -t 1 -u -R -P 2 (ASan+UBSan build)" { check_case asan-normal-udp-reverse; }
@test "hostile server close-test: esxperf -c -t 1 (ASan+UBSan build)" { check_case asan-close-test; }
@test "hostile server close-mid-results: esxperf -c -t 1 (ASan+UBSan build)" { check_case asan-close-mid-results; }
@test "hostile server stall-mid-results: esxperf -c -t 1 (ASan+UBSan build)" { check_case asan-stall-mid-results; }
@test "hostile server garbage-running: esxperf -c -t 1 (ASan+UBSan build)" { check_case asan-garbage-running; }
@test "hostile server error-max: esxperf -c -t 1 (ASan+UBSan build)" { check_case asan-error-max; }
@test "hostile server error-short: esxperf -c -t 1 (ASan+UBSan build)" { check_case asan-error-short; }
@test "hostile server results-len-2g: esxperf -c -t 1 (ASan+UBSan build)" { check_case asan-results-len-2g; }
@test "hostile server results-100m: esxperf -c -t 1 (ASan+UBSan build)" { check_case asan-results-100m; }
@test "hostile server results-deep: esxperf -c -t 1 (ASan+UBSan build)" { check_case asan-results-deep; }
@test "hostile server results-many-keys: esxperf -c -t 1 (ASan+UBSan build)" { check_case asan-results-many-keys; }
@test "hostile server results-many-tokens: esxperf -c -t 1 (ASan+UBSan build)" { check_case asan-results-many-tokens; }
@test "hostile server results-big-text: esxperf -c -t 1 --get-server-output -J (ASan+UBSan build)" { check_case asan-results-big-text; }
@test "hostile server results-huge-counts: esxperf -c -t 1 -P 2 (ASan+UBSan build)" { check_case asan-results-huge-counts; }
@test "hostile server results-wrong-types: esxperf -c -t 1 (ASan+UBSan build)" { check_case asan-results-wrong-types; }
@test "hostile server no-read: esxperf -c -n 100M (ASan+UBSan build)" { check_case asan-no-read-bytes; }

# the normal mode, TCP: what the server says it received is what the client reports
@test "hostile server: normal (TCP) completes; the bytes the server counted are the client's sum_received" {
    check_case normal
    local got
    got=$(sed -nE 's/.*completed, received ([0-9]+) bytes.*/\1/p' "$HOSTILE_DIR/normal.srv")
    [ -n "$got" ] && [ "$got" -gt 0 ] || flunk "server: $(cat "$HOSTILE_DIR/normal.srv")"
    run python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["end"]["sum_received"]["bytes"])' \
        "$HOSTILE_DIR/normal.out"
    [ "$output" = "$got" ] || flunk "client sum_received $output, server received $got"
}

@test "hostile server: normal UDP, -R, --bidir -P 2, UDP -R -P 2 complete" {
    local c sent
    for c in normal-udp normal-reverse normal-bidir normal-udp-reverse; do
        check_case "$c"
        run python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["end"]["sum_received"]["bytes"])' \
            "$HOSTILE_DIR/$c.out"
        [ "$output" -gt 0 ] || flunk "$c: nothing received: $output"
    done
    # -R: the client cannot receive more than the server sent
    sent=$(sed -nE 's/.*sent ([0-9]+) bytes.*/\1/p' "$HOSTILE_DIR/normal-reverse.srv")
    run python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["end"]["sum_received"]["bytes"])' \
        "$HOSTILE_DIR/normal-reverse.out"
    [ "$output" -le "$sent" ] || flunk "-R: received $output of $sent sent"
}

@test "hostile server: --list has every mode the table uses, and more than 40" {
    run python3 "$HS" --list
    assert_status 0
    [ "${#lines[@]}" -ge 40 ] || flunk "$output"
    local m
    for m in $(cases | awk -F'|' '{ print $2 }' | sort -u); do
        printf '%s\n' "$output" | grep -q "^$m " || flunk "mode $m not listed"
    done
    run python3 "$HS" -B 192.0.2.1 normal
    assert_status 2
    assert_contains "not a loopback or test-namespace address"
}
