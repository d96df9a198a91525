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
