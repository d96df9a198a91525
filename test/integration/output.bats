#!/usr/bin/env bats
# What the three tools write, by one rule (common/escape.c, common/output.c): a name
# from outside reaches the terminal escaped; output that cannot be written (a closed
# pipe, a full device) is exit 2 with one line on stderr, for the results and for
# --help and --version alike. Real esxperf servers on 127.0.0.1, esxmtu to 127.0.0.1,
# esxpart on a small image made here; every process is stopped in teardown.
load ../lib/common

setup() {
    PIDS=()
    D=$BATS_TEST_TMPDIR
}

teardown() {
    stop_pids
}

esxperf_server() {  # esxperf -s on 127.0.0.1:$PORT
    PORT=$(free_port)
    "$BIN/esxperf" -s -B 127.0.0.1 -p "$PORT" >"$D/s.out" 2>&1 &
    PIDS+=($!)
    wait_port "$PORT"
}

@test "esxperf -c NAME: a name holding an escape sequence is printed escaped, JSON escapes it its way" {
    need_root
    command -v unshare >/dev/null || skip "unshare missing"
    esxperf_server
    local name=$'esx\e[2J01'
    printf '127.0.0.1 localhost\n127.0.0.1 %s\n' "$name" > "$D/hosts"
    run unshare -m sh -c 'mount --bind "$1" /etc/hosts && shift && exec "$@"' _ "$D/hosts" \
        "$BIN/esxperf" -c "$name" -p "$PORT" -n 64K
    assert_status 0
    assert_contains "Connecting to host esx\\x1b[2J01, port $PORT"
    [[ "$output" != *$'\e'* ]] || flunk "a raw ESC: $output"
    run unshare -m sh -c 'mount --bind "$1" /etc/hosts && shift && exec "$@"' _ "$D/hosts" \
        "$BIN/esxperf" -c "$name" -p "$PORT" -n 64K -J
    assert_status 0
    [ "$(jq -r '.start.connecting_to.host' <<<"$output")" = "$name" ] || flunk "$output"
    [[ "$output" != *$'\e'* ]] || flunk "a raw ESC in JSON: $output"
}
