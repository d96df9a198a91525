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

# kill every process in the PIDS array and reap it (for teardown)
stop_pids() {
    local p
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
}
