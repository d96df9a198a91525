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
    PORT=$(free_port)
    SERVER_ARGS=(-B 127.0.0.1) SERVER_OUT=$D/s.out   # esxperf_server (test/lib/common.bash)
}

teardown() {
    stop_pids
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

# run "$@" with its stdout a pipe whose reader is already gone: the first write
# fails (EPIPE, or SIGPIPE when not ignored), whatever the timing; the status is
# the tool's, or 128 + the signal that ended it, as bash gives it
closed_pipe() {
    python3 -c 'import os, subprocess, sys
r, w = os.pipe()
os.close(r)
rc = subprocess.call(sys.argv[1:], stdout=w)
sys.exit(rc if rc >= 0 else 128 - rc)' "$@"
}

@test "--help and --version into /dev/full or a closed pipe: exit 2 and one line, all three tools" {
    local t a what
    for t in esxperf esxmtu esxpart; do
        for a in --help --version; do
            [ "$a" = --help ] && what="the help text" || what="the version"
            run bash -c '"$1" "$2" >/dev/full' _ "$BIN/$t" "$a"
            assert_status 2
            [ "$output" = "$t: cannot write $what to stdout: No space left on device" ] || flunk "$t $a >/dev/full: $output"
            run closed_pipe "$BIN/$t" "$a"
            assert_status 2
            [ "$output" = "$t: cannot write $what to stdout: Broken pipe" ] || flunk "$t $a | closed: $output"
        done
    done
}

@test "results into a closed pipe: exit 2 and one line, never death by SIGPIPE (141), all three tools" {
    . "$ESXDIAG_ROOT/test/lib/esxpart-images.sh"
    mk_small_gpt "$D/small.img"
    # more than a pipe holds (400 disks, about 180 KB): head leaves after one byte and
    # the rest of the writes meet the closed pipe
    local disks=() i
    for i in $(seq 400); do disks+=("$D/small.img"); done
    run bash -c '"$@" | head -c1 >/dev/null; echo "status ${PIPESTATUS[*]}"' _ "$BIN/esxpart" "${disks[@]}"
    [ "$output" = $'esxpart: cannot write the results to stdout: Broken pipe\nstatus 2 0' ] || flunk "$output"
    run closed_pipe "$BIN/esxpart" -J "$D/small.img"
    assert_status 2
    [ "$output" = "esxpart: cannot write the results to stdout: Broken pipe" ] || flunk "$output"
    need_root
    run closed_pipe "$BIN/esxmtu" -W 0.3 127.0.0.1
    assert_status 2
    [ "$output" = "esxmtu: cannot write the results to stdout: Broken pipe" ] || flunk "$output"
    run closed_pipe "$BIN/esxmtu" -J -W 0.3 127.0.0.1
    assert_status 2
    [ "$output" = "esxmtu: cannot write the results to stdout: Broken pipe" ] || flunk "$output"
    esxperf_server
    run closed_pipe "$BIN/esxperf" -c 127.0.0.1 -p "$PORT" -n 64K
    assert_status 2
    [ "$output" = "esxperf: cannot write the results to stdout: Broken pipe" ] || flunk "$output"
}
