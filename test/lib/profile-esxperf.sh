#!/bin/bash
# Where the CPU goes, per GB received: esxperf and iperf3 3.22 (test/lib/iperf3-peers.sh)
# on loopback, each client against a fresh server of its own kind, both ends under
# `perf stat` (software counters and tracepoints: this VM has no hardware PMU, so no
# cycles or instructions). Counts, not rates: system calls, context switches and
# wake-ups per GB do not bend much when another job shares the cores, CPU-ms per GB
# does somewhat (a crowded core runs the same work slower). The load average of the
# minute before each run is printed beside it.
# Run from the repo root:  ./test/lib/profile-esxperf.sh
#   ROUNDS=2 SECS=3 MODES_ONLY="-P 4" ./test/lib/profile-esxperf.sh
# Not a timed test: nothing here passes or fails on a number.
set -u
cd "$(dirname "$0")/../.." || exit 2
ESXPERF=${ESXPERF:-$PWD/out/bin/esxperf}
ROUNDS=${ROUNDS:-2}
SECS=${SECS:-3}
[ -x "$ESXPERF" ] || { echo "profile-esxperf: $ESXPERF missing (run make)" >&2; exit 2; }
# shellcheck source=test/lib/bench-lib.bash
source test/lib/bench-lib.bash
bench_need profile-esxperf perf jq
# shellcheck source=test/lib/iperf3-peers.sh
source test/lib/iperf3-peers.sh
iperf3_peers_fetch || { echo "profile-esxperf: $IPERF3_PEERS_ERROR" >&2; exit 2; }
I322=$(iperf3_peer 3.22) || exit 2
bench_tmp
PORT=$((20000 + RANDOM % 12000))
EVENTS=task-clock,context-switches,cpu-migrations,raw_syscalls:sys_enter,sched:sched_wakeup,syscalls:sys_enter_poll,syscalls:sys_enter_ppoll,syscalls:sys_enter_pselect6,syscalls:sys_enter_futex

# the counts of one perf stat -x, file: "task_ms cs migr sys wake poll futex"
counts() {
    awk -F, '
        $3 == "task-clock" { t = $1 }
        $3 == "context-switches" { cs = $1 }
        $3 == "cpu-migrations" { mg = $1 }
        $3 == "raw_syscalls:sys_enter" { sc = $1 }
        $3 == "sched:sched_wakeup" { wk = $1 }
        $3 ~ /sys_enter_(poll|ppoll|pselect6)$/ { pl += $1 }
        $3 == "syscalls:sys_enter_futex" { fx = $1 }
        END { printf "%s %s %s %s %s %s %s\n", t + 0, cs + 0, mg + 0, sc + 0, wk + 0, pl + 0, fx + 0 }' "$1"
}

# one run: one_run BIN [VAR=VALUE...] ARGS...: both ends with the VAR=VALUE words in
# their environment; prints "GB c_counts s_counts" or "fail"
one_run() {
    local bin=$1 out rc
    shift
    split_env "$@"
    set -- "${ARGS[@]}"
    PORT=$((PORT + 1))
    env "${ENVS[@]}" perf stat -x, -e "$EVENTS" -o "$TMP/srv.stat" -- "$bin" -s -1 -p "$PORT" >/dev/null 2>&1 &
    SRV=$!
    wait_port "$PORT" || { echo fail; return; }
    out=$(timeout 60 env "${ENVS[@]}" perf stat -x, -e "$EVENTS" -o "$TMP/cli.stat" -- \
        "$bin" -c 127.0.0.1 -p "$PORT" -t "$SECS" -J "$@" 2>/dev/null); rc=$?
    wait "$SRV" 2>/dev/null
    SRV=""
    [ $rc = 0 ] || { echo fail; return; }
    local gb
    gb=$(jq -r '.end | if .sum_received_bidir_reverse then
            (.sum_received.bytes + .sum_received_bidir_reverse.bytes) else .sum_received.bytes end
            / 1e9' <<<"$out") || { echo fail; return; }
    echo "$gb $(counts "$TMP/cli.stat") $(counts "$TMP/srv.stat")"
}

# MODES="..." replaces the list (words; ; between modes); TOOLS="esxperf" runs one
# tool; VAR=VALUE words at a mode's start go to both ends (ESXPERF_ENGINE_OFF=...)
if [ -n "${MODES:-}" ]; then IFS=';' read -r -a MODES <<<"$MODES"
else MODES=("-P 1" "-P 4" "-P 8" "-P 16" "-Z --skip-rx-copy" "-R" "--bidir"); fi
printf '%-44s %-8s %5s %6s | %8s %8s %8s %7s %7s %7s | %8s %8s %8s %7s %7s %7s\n' \
    mode tool load GB "c.CPUms" "c.sys" "c.cs" "c.wake" "c.poll" "c.futex" \
    "s.CPUms" "s.sys" "s.cs" "s.wake" "s.poll" "s.futex"
echo "(every count per GB received; c = client (the sender, receiver with -R), s = server)"
# rounds outside, modes and tools inside: every mode and tool takes its turn in each
# round, so a change of load mid-run bends all of them alike
for _ in $(seq 1 "$ROUNDS"); do
    for m in "${MODES[@]}"; do
        [[ "$m" == *"${MODES_ONLY:-}"* ]] || continue
        for tool in ${TOOLS:-esxperf iperf3-3.22}; do
            bin=$ESXPERF
            [ "$tool" = esxperf ] || bin=$I322
            load=$(cut -d' ' -f1 /proc/loadavg)
            # shellcheck disable=SC2086 # the options are words
            if [ "$tool" = esxperf ]; then res=$(one_run "$bin" $m)
            else res=$(one_run "$bin" ${m##*=* }); fi
            if [ "$res" = fail ]; then
                printf '%-44s %-8s %5s fail\n' "$m" "${tool#iperf3-}" "$load"
                continue
            fi
            awk -v m="$m" -v t="${tool#iperf3-}" -v l="$load" '{
                g = $1; if (g <= 0) { print m, t, "no bytes"; exit }
                printf "%-44s %-8s %5s %6.1f | %8.0f %8.0f %8.0f %7.0f %7.0f %7.0f | %8.0f %8.0f %8.0f %7.0f %7.0f %7.0f\n",
                    m, t, l, g, $2 / g, $5 / g, $3 / g, $6 / g, $7 / g, $8 / g,
                    $9 / g, $12 / g, $10 / g, $13 / g, $14 / g, $15 / g }' <<<"$res" | tee -a "$TMP/rows"
        done
    done
done
# the mean of the rounds per mode and tool; "both" = client + server CPU-ms per GB
echo
awk '
{
    mode = substr($0, 1, 44); sub(/ +$/, "", mode)
    split(substr($0, 46), a, " ")
    split($0, p, "|"); split(p[2], c, " "); split(p[3], s, " ")
    k = mode "|" a[1]; n[k]++; gb[k] += a[3]
    for (i = 1; i <= 4; i++) { C[k, i] += c[i]; S[k, i] += s[i] }
    if (!(k in seen)) { seen[k] = 1; order[++no] = k }
}
END {
    printf "%-44s %-8s %6s | %8s %8s %8s %7s | %8s %8s %8s %7s | %8s\n", "means", "tool", "GB",
        "c.CPUms", "c.sys", "c.cs", "c.wake", "s.CPUms", "s.sys", "s.cs", "s.wake", "both"
    for (j = 1; j <= no; j++) {
        k = order[j]; split(k, mk, "|"); m = n[k]
        printf "%-44s %-8s %6.1f | %8.0f %8.0f %8.0f %7.0f | %8.0f %8.0f %8.0f %7.0f | %8.0f\n",
            mk[1], mk[2], gb[k] / m, C[k, 1] / m, C[k, 2] / m, C[k, 3] / m, C[k, 4] / m,
            S[k, 1] / m, S[k, 2] / m, S[k, 3] / m, S[k, 4] / m, (C[k, 1] + S[k, 1]) / m
    }
}' "$TMP/rows"
