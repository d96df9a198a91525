#!/bin/bash
# Fleet benchmark: the Ansible fleet layer (esxi/fleet/validate.yml) on 4, 8 and 16
# namespace hosts (test/lib/fleet-net.bash, fleet-hosts.bash: real sshd, real
# Ansible, the real kit), no faults, against the sequential way an administrator
# scripts it: one `ssh HOST esxmtu PEER` per ordered pair, one after another, and
# one esxperf server + client per ordered pair, one after another (the same ssh
# configuration, ControlMaster on, the same binaries).
# Prints, per fleet size: the wall time of the fleet's MTU step and of its whole
# run, the sequential MTU loop, the fleet's throughput step (N-1 rounds) and the
# sequential throughput loop (N*(N-1) tests), and the ratios sequential / fleet.
# Run from the repo root as root:  ./test/lib/bench-fleet.sh
#   FLEET_SIZES="4 8 16"   fleet sizes        PERF_SECS=1   esxperf -t per test
#   SEQ_PERF=1             0 skips the sequential throughput loop (the longest part)
set -u
cd "$(dirname "$0")/../.." || exit 2
ESXDIAG_ROOT=$PWD
export ESXDIAG_ROOT
SIZES=${FLEET_SIZES:-4 8 16}
PERF_SECS=${PERF_SECS:-1}
SEQ_PERF=${SEQ_PERF:-1}
[ "$(id -u)" = 0 ] || { echo "bench-fleet: needs root (network namespaces, sshd)" >&2; exit 2; }
for t in ansible-playbook /usr/sbin/sshd ssh; do
    command -v "$t" >/dev/null || { echo "bench-fleet: $t missing (build/deps.sh installs it)" >&2; exit 2; }
done
source test/lib/fleet-net.bash
source test/lib/fleet-hosts.bash

W=$(mktemp -d)
bench_down() { fleet_hosts_down; fleet_net_down; }
trap 'bench_down; rm -rf "$W"' EXIT
trap 'exit 2' INT TERM

kit=$(make -s dist 2>&1 | sed -n 's/^dist: \(dist\/.*\.tar\.gz\)$/\1/p')
[ -n "$kit" ] || { echo "bench-fleet: make dist gave no kit" >&2; exit 2; }
FLEET_KIT=$W/$(basename "$kit")
export FLEET_KIT
cp "$kit" "$FLEET_KIT"

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
ratio() { awk -v s="$1" -v f="$2" 'BEGIN { if (f > 0) printf "%.1fx", s / f; else print "-" }'; }
row() { printf '%5s %6s  %9s %9s %7s   %9s %9s %7s   %9s\n' "$@"; }
# ssh from the controller namespace with the bench's key, known_hosts, ControlMaster
on() { # HOST_INDEX COMMAND...
    local i=$1; shift
    ip netns exec "$FLEET_NS_CTL" ssh -F "$FLEET_DIR/ssh/config" -o ControlMaster=auto \
        -o ControlPersist=60 -o ControlPath="$FLEET_DIR/cp/seq-%C" "$(fleet_mgmt_ip "$i")" "$@"
}

# sequential MTU: one esxmtu per ordered pair, one after another
seq_mtu() {
    local a b n=$1
    for a in $(seq 1 "$n"); do for b in $(seq 1 "$n"); do
        [ "$a" = "$b" ] && continue
        on "$a" "$ESXDIAG_ROOT/out/bin/esxmtu" -q -J "$(fleet_test_ip "$b")" >/dev/null || echo "seq mtu h$a->h$b failed" >&2
    done; done
}
# sequential throughput: a one-test server, then the client, per ordered pair
seq_perf() {
    local a b n=$1 port=5301
    for a in $(seq 1 "$n"); do for b in $(seq 1 "$n"); do
        [ "$a" = "$b" ] && continue
        on "$b" "$ESXDIAG_ROOT/out/bin/esxperf -s -1 -p $port -B $(fleet_test_ip "$b") --idle-timeout 30 >/dev/null 2>&1 </dev/null &"
        local i ok=0
        for i in $(seq 50); do   # listening within 5 s (bounded)
            ip netns exec "$(fleet_ns "$b")" ss -ltnH "sport = :$port" | grep -q . && { ok=1; break; }
            sleep 0.1
        done
        [ "$ok" = 1 ] || { echo "seq perf: h$b does not listen" >&2; continue; }
        on "$a" "$ESXDIAG_ROOT/out/bin/esxperf" -c "$(fleet_test_ip "$b")" -p "$port" -J -t "$PERF_SECS" >/dev/null ||
            echo "seq perf h$a->h$b failed" >&2
    done; done
}

echo "fleet bench: N namespace hosts (real sshd, Ansible $(ansible-playbook --version | sed -n '1s/.*core \([0-9.]*\).*/\1/p'), forks N+4), no faults,"
echo "  esxperf -t $PERF_SECS per direction; sequential = one ssh + esxmtu per ordered pair, one ssh'd esxperf"
echo "  server + client per ordered pair, one after another; ratio = sequential / fleet"
row hosts pairs "MTU fleet" "MTU seq" ratio "perf flt" "perf seq" ratio "whole run"
row "" "" "(1 round)" "" "" "(rounds)" "(tests)" "" "fleet"
rc=0
for n in $SIZES; do
    rm -rf "${W:?}/fleet"
    mkdir -p "$W/fleet"
    fleet_net_up "bench$$" "$n" || { echo "bench-fleet: bench of $n hosts failed" >&2; rc=1; bench_down; continue; }
    fleet_hosts_up "$W/fleet" || { rc=1; bench_down; continue; }
    fleet_inventory "$W/fleet"
    t0=$(now)
    fleet_play "$W/fleet/run.out" -e "esxdiag_perf_seconds=$PERF_SECS" -e "esxdiag_report_dir=$W/fleet/report" ||
        { echo "bench-fleet: the $n-host run failed: $(tail -3 "$W/fleet/run.out")" >&2; rc=1; }
    t1=$(now)
    rep=$W/fleet/report/report.json
    fmtu=$(jq -r '.seconds.mtu // 0' "$rep" 2>/dev/null || echo 0)
    fperf=$(jq -r '.seconds.perf // 0' "$rep" 2>/dev/null || echo 0)
    bad=$(jq -r '.summary.failed' "$rep" 2>/dev/null || echo '?')
    [ "$bad" = 0 ] || { echo "bench-fleet: $bad pairs failed in the $n-host run (no faults were set)" >&2; rc=1; }
    s0=$(now); seq_mtu "$n"; s1=$(now)
    smtu=$(secs "$s0" "$s1")
    if [ "$SEQ_PERF" != 0 ]; then
        s0=$(now); seq_perf "$n"; s1=$(now)
        sperf=$(secs "$s0" "$s1")
    else
        sperf=-
    fi
    rounds=$((n % 2 ? n : n - 1))
    if [ "$sperf" = - ]; then pseq=- pratio=-; else pseq="$sperf s" pratio=$(ratio "$sperf" "$fperf"); fi
    row "$n" "$((n * (n - 1)))" "$(printf '%.1f' "$fmtu") s" "$smtu s" "$(ratio "$smtu" "$fmtu")" \
        "$(printf '%.1f' "$fperf") s" "$pseq" "$pratio" "$(secs "$t0" "$t1") s"
    row "" "" "" "" "" "($rounds)" "($((n * (n - 1))))" "" ""
    bench_down
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $rc
