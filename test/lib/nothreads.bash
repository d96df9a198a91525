# esxperf where the host gives a process no thread: every clone() fails ENOSYS
# (strace's injection; --seccomp-bpf stops the tracee at clone only, so the run
# keeps its speed), as in a userworld without it. pthread_create then fails: a
# test of one stream runs on the session's thread, the stop signals are taken by
# handlers instead of a waiter thread. The suites that load this set TMP and PIDS.

# the strace prefix of a run without threads
NOTHREADS=(strace -f --seccomp-bpf -qq -o /dev/null -e trace=clone -e inject=clone:error=ENOSYS)

# nothreads_bg NAME ARGS...: esxperf ARGS in the background without threads (inside
# the test's namespace when IN is set: lo_ns_up); the tracee's pid in $XPID
# (signals go to it, not to strace), strace's in $SPID, output in $TMP/NAME.out
# and $TMP/NAME.err
nothreads_bg() {
    local name=$1; shift
    rm -f "$TMP/$name.pid"
    "${IN[@]}" timeout 30 "${NOTHREADS[@]}" \
        sh -c 'echo $$ >"$1"; shift; exec "$@"' _ "$TMP/$name.pid" "$BIN/esxperf" "$@" \
        >"$TMP/$name.out" 2>"$TMP/$name.err" &
    SPID=$!
    PIDS+=($SPID)
    local i
    for i in $(seq 1 100); do [ -s "$TMP/$name.pid" ] && break; sleep 0.1; done
    XPID=$(cat "$TMP/$name.pid") || flunk "no pid from the traced $name"
    PIDS+=($XPID)
}

# nothreads ARGS...: esxperf ARGS in the foreground without threads, bounded (bats' run)
nothreads() {
    run "${IN[@]}" timeout 30 "${NOTHREADS[@]}" "$BIN/esxperf" "$@"
}
