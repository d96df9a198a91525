# Shared setup for the bats integration tests: load with `load ../lib/common`.
ESXDIAG_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BIN=${ESXDIAG_BIN:-$ESXDIAG_ROOT/out/bin}
export ESXDIAG_ROOT BIN
load "$ESXDIAG_ROOT/test/lib/audit.bash"

# fail with a message (bats shows stderr of failed tests)
flunk() { echo "$*" >&2; return 1; }
# assert the last `run` exit status
assert_status() { [ "$status" -eq "$1" ] || flunk "exit status $status, expected $1; output: $output"; }
# assert the last `run` output contains a fixed string
assert_contains() { [[ "$output" == *"$1"* ]] || flunk "output lacks '$1': $output"; }
assert_not_contains() { [[ "$output" != *"$1"* ]] || flunk "output has '$1': $output"; }
# skip unless root (namespaces, raw sockets)
need_root() { [ "$(id -u)" = 0 ] || skip "needs root"; }

# a TCP/UDP port for a test server: below the kernel's ephemeral range (32768+ by
# default, where client sockets of this and other runs take their local ports and
# a bind could meet EADDRINUSE), and not bound right now by anything
free_port() {
    local p i
    for i in $(seq 1 50); do
        p=$((20000 + RANDOM % 12000))
        ss -Htuan "sport = :$p" | grep -q . || { echo "$p"; return 0; }
    done
    flunk "no free port found in 20000-31999"
}

# jget FILE PYEXPR: the Python expression over d, FILE's JSON, printed
jget() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# wait (bounded, 5 s) until something listens on TCP port $1 [inside netns $2]
wait_port() {
    local i
    for i in $(seq 1 50); do
        if [ -n "${2:-}" ]; then
            ip netns exec "$2" ss -ltnH "sport = :$1" | grep -q . && return 0
        else
            ss -ltnH "sport = :$1" | grep -q . && return 0
        fi
        sleep 0.1
    done
    flunk "nothing listens on port $1"
}

# A network namespace of the test's own with only lo up, for UDP tests on loopback
# whose counts must be explained exactly: the kernel's UDP counters there belong to
# this test alone. lo_ns_up sets LONS and IN=(ip netns exec $LONS) to prefix
# commands with; lo_ns_down (teardown) kills what runs there and deletes it.
lo_ns_up() {
    need_root
    LONS="esxdiag-lo-$$-${BATS_TEST_NUMBER:-0}"
    ip netns add "$LONS" || flunk "cannot create namespace $LONS"
    ip -n "$LONS" link set lo up
    IN=(ip netns exec "$LONS")
}
lo_ns_down() {
    [ -n "${LONS:-}" ] || return 0
    ip netns pids "$LONS" 2>/dev/null | xargs -r kill 2>/dev/null || true
    ip netns del "$LONS" 2>/dev/null || true
    LONS=""
    IN=()
}
# datagrams (or GRO buffers) the kernel dropped in namespace $1 because a UDP
# socket's receive buffer was full (Udp RcvbufErrors + MemErrors of /proc/net/snmp)
udp_drops() {
    ip netns exec "$1" awk '/^Udp:/ { if (!h) { for (i = 2; i <= NF; i++) c[$i] = i; h = 1; next }
        print $c["RcvbufErrors"] + (c["MemErrors"] ? $c["MemErrors"] : 0) }' /proc/net/snmp
}

# UDP counts against what the kernel dropped in the test's namespace (udp_drops): a
# loaded host starves the receiver and its socket buffer overflows (one drop per
# datagram, or per GRO buffer of up to 64). With no drop, every datagram sent is
# counted and none is lost; with drops, the shortfall and the loss together stay
# within them. A datagram missed any other way (a bad sequence number, a short
# drain) fails, however loaded the host.
#   udp_counts_exact SENT COUNTED LOST DROPS      an esxperf receiver (drains at the end)
udp_counts_exact() {
    local sent=$1 got=$2 lost=$3 drops=$4
    [ "$sent" -gt 0 ] || flunk "no datagram sent"
    if [ "$drops" -eq 0 ]; then
        [ "$sent" = "$got" ] || flunk "sender $sent datagrams, receiver counted $got, the kernel dropped none"
        [ "$lost" = 0 ] || flunk "lost $lost of $got, the kernel dropped none"
    else
        [ "$got" -le "$sent" ] || flunk "receiver counted $got of $sent sent"
        [ $((sent - got + lost)) -le $((drops * 64)) ] ||
            flunk "sent $sent, counted $got, lost $lost: more than the $drops buffers the kernel dropped"
    fi
}
#   udp_counts_iperf3 SENT COUNTED LOST DROPS LEN  an iperf3 3.12 receiver: its server closes
# the data socket when TEST_END arrives, so datagrams still queued unread are not
# counted (iperf3 against itself too): what it misses beyond the drops fits in its
# receive buffer (the kernel's default size, as iperf3 sets none without -w)
udp_counts_iperf3() {
    local sent=$1 got=$2 lost=$3 drops=$4 max
    max=$(( $(cat /proc/sys/net/core/rmem_default) / $5 ))
    [ "$sent" -gt 0 ] || flunk "no datagram sent"
    [ "$got" -le "$sent" ] || flunk "iperf3 counted $got of $sent datagrams sent"
    [ $((sent - got)) -le $((max + drops * 64)) ] ||
        flunk "iperf3 missed $((sent - got)) of $sent datagrams: more than its buffer holds ($max) and the kernel dropped ($drops)"
    [ "$lost" -le $((drops * 64)) ] || flunk "iperf3 lost $lost, the kernel dropped $drops"
}

# wait (bounded, 20 s) until at least $2 TCP connections to local port $1 are
# established (default 2: a test's control connection and its first data stream,
# i.e. the test is set up): a fixed sleep is not enough on a loaded host
wait_established() {
    local i n=0
    for i in $(seq 1 200); do
        n=$(ss -tnH state established "( sport = :$1 )" | wc -l)
        [ "$n" -ge "${2:-2}" ] && return 0
        sleep 0.1
    done
    flunk "only $n connections established to port $1 after 20 s (wanted ${2:-2})"
}

# esxperf_server [ARG...]: an esxperf server, esxperf -s -p $PORT ARG..., in the
# background; returns once it listens (wait_port, bounded). What a suite's servers all
# get is set in its setup: SERVER_ARGS (options before ARG, e.g. -B 127.0.0.1),
# SERVER_OUT (its stdout and stderr; $TMP/s.out unless set); SERVER_UNDER (a command
# it runs under: strace, env); in namespace $LONS when lo_ns_up made one. Its pid is
# in SPID and in PIDS (teardown's stop_pids ends it).
esxperf_server() {
    "${IN[@]}" "${SERVER_UNDER[@]}" "$BIN/esxperf" -s -p "$PORT" "${SERVER_ARGS[@]}" "$@" \
        >"${SERVER_OUT:-$TMP/s.out}" 2>&1 &
    SPID=$!
    PIDS+=("$SPID")
    wait_port "$PORT" ${LONS:+"$LONS"}
}

# kill every process in the PIDS array and reap it (for teardown)
stop_pids() {
    local p
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
}

# The children the stand-in esxcli's sick modes left running ($FAKE_ESXI/strays, see
# test/lib/fake-esxcli): how many still run (fake_esxcli_strays), and end them
# (fake_esxcli_reap, for teardown: a tool that failed to kill its esxcli must not leave
# them to the next test)
fake_esxcli_strays() {
    local n=0 p
    [ -f "${FAKE_ESXI:-/nonexistent}/strays" ] || { echo 0; return 0; }
    # a killed child whose parent is gone stays a zombie until PID 1 reaps it: not running
    while read -r p; do
        [ -r "/proc/$p/stat" ] && [ "$(sed 's/.*) //' "/proc/$p/stat" | cut -d' ' -f1)" != Z ] && n=$((n + 1))
    done < "$FAKE_ESXI/strays"
    echo "$n"
}
fake_esxcli_reap() {
    [ -f "${FAKE_ESXI:-/nonexistent}/strays" ] || return 0
    xargs -r kill -9 < "$FAKE_ESXI/strays" 2>/dev/null || true
    rm -f "$FAKE_ESXI/strays"
}
