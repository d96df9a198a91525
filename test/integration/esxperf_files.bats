#!/usr/bin/env bats
# The files an esxperf command line names, as a hostile or clumsy user names them:
# -F (a FIFO, a device, a directory, a file swapped for a FIFO while the server
# runs), -I (a file holding text, a symbolic link, a FIFO, a stale file of mode
# 644) and --logfile with -D on a port in use. Each is refused with one line and
# exit 2 before anything connects or listens, never waited on, and nothing of the
# user's is overwritten. Real esxperf servers and clients on 127.0.0.1 only.
load ../lib/common

setup() {
    PORT=$(free_port)
    PIDS=()
    TMP=$(mktemp -d)
    SERVER_ARGS=(-B 127.0.0.1)   # esxperf_server (test/lib/common.bash), log in $TMP/s.out
}

teardown() {
    stop_pids
    rm -rf "$TMP"
}


# one line "esxperf: ..." naming $1, exit 2 (timeout 10: a bound against a hang in
# open(); the refusal takes milliseconds)
assert_refused() {
    local want=$1
    shift
    run timeout 10 "$BIN/esxperf" "$@"
    [ "$status" -eq 2 ] || flunk "'$*' exited $status: $output"
    [ "${#lines[@]}" -eq 1 ] || flunk "'$*' printed ${#lines[@]} lines: $output"
    [[ "$output" == esxperf:*"$want"* ]] || flunk "'$*': $output (wanted '$want')"
}

@test "files: -s -F naming a FIFO, a device or a directory is refused at start" {
    mkfifo "$TMP/fifo"
    assert_refused "-F $TMP/fifo is a FIFO (named pipe), not a regular file" \
        -s -B 127.0.0.1 -p "$PORT" -F "$TMP/fifo"
    assert_refused "is a character device" -s -B 127.0.0.1 -p "$PORT" -F /dev/null
    assert_refused "is a directory" -s -B 127.0.0.1 -p "$PORT" -F "$TMP"
    ln -s "$TMP/fifo" "$TMP/link"
    assert_refused "is a FIFO" -s -B 127.0.0.1 -p "$PORT" -F "$TMP/link"
}

@test "files: a server's -F swapped for a FIFO refuses that test at once; the server goes on and stops on SIGTERM" {
    esxperf_server -F "$TMP/in"
    mkfifo "$TMP/in"
    # timeout 20: the refusal comes at once (the server's open never blocks); the old
    # server blocked in open() and its client waited 10 s for TEST_START
    run timeout 20 "$BIN/esxperf" -c 127.0.0.1 -p "$PORT" -t 1 -i 0
    assert_status 1
    assert_contains "the -F file cannot be opened (iperf3 error 14)"
    grep -q "cannot open the -F file $TMP/in: it is not a regular file" "$TMP/s.out" ||
        flunk "server log: $(cat "$TMP/s.out")"
    rm "$TMP/in"
    run timeout 20 "$BIN/esxperf" -c 127.0.0.1 -p "$PORT" -t 1 -i 0
    assert_status 0
    [ -s "$TMP/in" ] || flunk "the server wrote no -F file"
    kill -TERM "$SPID"
    local i
    for i in $(seq 1 50); do kill -0 "$SPID" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$SPID" 2>/dev/null && flunk "the server outlived SIGTERM"
    wait "$SPID" || flunk "the server exited $? after SIGTERM"
}

@test "files: a client's -F naming a FIFO (with or without -R), a directory or no file is refused before connecting" {
    esxperf_server
    mkfifo "$TMP/fifo"
    assert_refused "-F $TMP/fifo is a FIFO (named pipe), not a regular file" \
        -c 127.0.0.1 -p "$PORT" -t 1 -F "$TMP/fifo"
    assert_refused "-F $TMP/fifo is a FIFO" -c 127.0.0.1 -p "$PORT" -t 1 -R -F "$TMP/fifo"
    assert_refused "-F $TMP is a directory, not a regular file" -c 127.0.0.1 -p "$PORT" -F "$TMP"
    assert_refused "cannot open -F file $TMP/none to send: No such file or directory" \
        -c 127.0.0.1 -p "$PORT" -F "$TMP/none"
    # none of them reached the server
    grep -q "Accepted connection" "$TMP/s.out" && flunk "a refused client connected: $(cat "$TMP/s.out")"
    # a file -R writes that is not there yet is created (mode 600)
    run timeout 20 "$BIN/esxperf" -c 127.0.0.1 -p "$PORT" -t 1 -i 0 -R -F "$TMP/new"
    assert_status 0
    [ "$(stat -c %a "$TMP/new")" = 600 ] || flunk "-R -F wrote mode $(stat -c %a "$TMP/new")"
}

@test "files: -I refuses a file holding text, a symbolic link and a FIFO, and leaves them as they were" {
    printf 'notes\n' >"$TMP/text"
    assert_refused "pid file $TMP/text holds something other than a pid" \
        -s -B 127.0.0.1 -p "$PORT" -I "$TMP/text"
    [ "$(cat "$TMP/text")" = notes ] || flunk "the text file was overwritten: $(cat "$TMP/text")"
    printf 'target\n' >"$TMP/target"
    ln -s "$TMP/target" "$TMP/link"
    assert_refused "pid file $TMP/link is a symbolic link: not followed" \
        -s -B 127.0.0.1 -p "$PORT" -I "$TMP/link"
    [ "$(cat "$TMP/target")" = target ] || flunk "the link's target was overwritten"
    [ -L "$TMP/link" ] || flunk "the link is gone"
    mkfifo "$TMP/fifo"
    assert_refused "pid file $TMP/fifo is not a regular file" -s -B 127.0.0.1 -p "$PORT" -I "$TMP/fifo"
    # a client's -I keeps the same rules
    assert_refused "holds something other than a pid" -c 127.0.0.1 -p "$PORT" -t 1 -I "$TMP/text"
    [ -e "$TMP/text" ] || flunk "the refused client removed the text file"
}

# a stale pid file of mode 644 ($1: its content) is taken over as a file of mode 600
# holding the server's pid, and removed when the server ends
pidfile_taken_over() {
    printf '%s' "$1" >"$TMP/pid"
    chmod 644 "$TMP/pid"
    "$BIN/esxperf" -s -1 -B 127.0.0.1 -p "$PORT" -I "$TMP/pid" >"$TMP/s.out" 2>&1 &
    SPID=$!
    PIDS+=($SPID)
    wait_port "$PORT"
    [ "$(cat "$TMP/pid")" = "$SPID" ] || flunk "pid file holds '$(cat "$TMP/pid")', not $SPID"
    [ "$(stat -c %a "$TMP/pid")" = 600 ] || flunk "pid file has mode $(stat -c %a "$TMP/pid")"
    run timeout 20 "$BIN/esxperf" -c 127.0.0.1 -p "$PORT" -t 1 -i 0
    assert_status 0
    wait "$SPID"
    [ ! -e "$TMP/pid" ] || flunk "the pid file outlived the server"
}

@test "files: -I takes over a stale pid file of mode 644 as a file of mode 600" {
    # a pid that is surely gone: a child that has exited
    sh -c 'exit 0' &
    local gone=$!
    wait "$gone"
    pidfile_taken_over "$gone"
}

@test "files: -I takes an empty file (as mktemp makes) as a stale pid file" {
    pidfile_taken_over ""
}

@test "files: -s -D --logfile on a port in use says so on the terminal, exit 2" {
    esxperf_server
    run timeout 10 "$BIN/esxperf" -s -D -B 127.0.0.1 -p "$PORT" --logfile "$TMP/log"
    assert_status 2
    assert_contains "esxperf: cannot listen on port $PORT"
    assert_contains "another server runs there"
    # a refused pid file is told on the terminal too, before the server detaches
    printf 'notes\n' >"$TMP/text"
    run timeout 10 "$BIN/esxperf" -s -D -B 127.0.0.1 -p "$(free_port)" --logfile "$TMP/log" \
        -I "$TMP/text"
    assert_status 2
    assert_contains "holds something other than a pid"
}
