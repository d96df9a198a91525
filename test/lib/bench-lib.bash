# Helpers the esxperf benchmarks share (bench-esxperf.sh, profile-esxperf.sh): source it.

# wait_port PORT: 0 once something listens on TCP PORT, 1 after 5 s
wait_port() {
    local _
    for _ in $(seq 1 50); do
        ss -ltnH "sport = :$1" | grep -q . && return 0
        sleep 0.1
    done
    return 1
}

# split_env WORDS...: the leading VAR=VALUE words into ENVS, the rest into ARGS (both
# read by the caller)
# shellcheck disable=SC2034
split_env() {
    ENVS=()
    while [[ "${1:-}" == [A-Z]*=* ]]; do ENVS+=("$1"); shift; done
    ARGS=("$@")
}

# bench_need NAME CMD...: each command is on the PATH, else one line and exit 2
bench_need() {
    local name=$1 c
    shift
    for c in "$@"; do
        command -v "$c" >/dev/null || { echo "$name: $c missing (apt-get install $c)" >&2; exit 2; }
    done
}

# bench_tmp: TMP a fresh directory, SRV the running server's pid (set by the caller,
# "" when none); both are cleaned up when the script ends, also on a signal
bench_tmp() {
    TMP=$(mktemp -d)
    SRV=""
    trap bench_cleanup EXIT INT TERM
}
bench_cleanup() { [ -n "$SRV" ] && kill "$SRV" 2>/dev/null; rm -rf "$TMP"; }
