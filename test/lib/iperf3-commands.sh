#!/bin/bash
# iperf3's own release checklist (the list of client commands its maintainers run
# against a server before a release), adapted to this suite: loopback only (127.0.0.1,
# ::1 for the IPv6 cases), a port we choose, 1-second tests instead of 5 or 10, and the
# CPU-affinity case on a CPU this machine has. Each case has the iperf3 client command
# and its esxperf client equivalent (the same options unless the syntax differs).
#
# Sourced by test/integration/esxperf_commands.bats, which runs each case three ways:
# iperf3 3.22 -> iperf3 3.22 -s (the reference), iperf3 3.22 -> esxperf -s, and the
# esxperf equivalent -> iperf3 3.22 -s. Run alone against a server you started:
#   test/lib/iperf3-commands.sh [-e|--esxperf] [-b IPERF3] -p PORT [ID...]
# prints one line per case: id, exit code, seconds, the command (0 = it completed and
# printed its summary). No other host is ever contacted.

# last CPU of this machine: the affinity cases pin client and server to it
COMMANDS_CPU=$(($(nproc 2>/dev/null || echo 1) - 1))
# a case runs 1-3 s here; 25 s bounds a hang (below the 30 s stall guard of a server)
COMMANDS_TIMEOUT=${COMMANDS_TIMEOUT:-25}

# id | what it exercises | iperf3 client options | esxperf options ("=": the same)
COMMANDS=(
    "1|basic TCP, verbose, with a title|-V -t 1 -T test1|="
    "2|basic UDP, verbose|-u -V -t 1|="
    "3|omit a warm-up, short intervals|-i .3 -O 1 -t 1|="
    "4|JSON output|-i 1 -J -t 1|="
    "5|IPv4 only|-4 -t 1|="
    "6|IPv4 only, UDP|-4 -u -t 1|="
    "7|IPv6 only|-6 -t 1|="
    "8|IPv6 only, UDP|-6 -u -t 1|="
    "9|fair-queue pacing|-V -t 1 --fq-rate 5m|="
    "10|fair-queue pacing, UDP|-u -V -t 1 --fq-rate 5m|="
    "11|SCTP|--sctp -V -t 1|="
    "12|three parallel streams|-P 3 -t 1|="
    "13|three parallel streams, UDP|-u -P 3 -t 1|="
    "14|reverse, two streams|-P 2 -t 1 -R|="
    "15|reverse, two streams, UDP|-u -P 2 -t 1 -R|="
    "16|bidirectional, two streams|-P 2 -t 1 --bidir|="
    "17|bidirectional, two streams, UDP|-u -P 2 -t 1 --bidir|="
    "18|zero copy|-Z -t 1|="
    "19|zero copy, reverse|-Z -t 1 -R|="
    "20|8 MiB socket buffers|-t 1 -w 8M|="
    "21|a byte count|-n 5M|="
    "22|a byte count, UDP at 1 Gbit/s|-n 5M -u -b1G|="
    "23|a byte count, reverse|-n 5M -R|="
    "24|a byte count, reverse, UDP at 1 Gbit/s|-n 5M -u -b1G -R|="
    "25|a byte count and a time together (refused)|-n 5M -t 1|="
    "26|a block count|-k 1K|="
    "27|a block count, UDP at 1 Gbit/s|-k 1K -u -b1G|="
    "28|a block count, reverse|-k 1K -R|="
    "29|a block count, reverse, UDP at 1 Gbit/s|-k 1K -u -b1G -R|="
    "30|client and server pinned to the last CPU|-A $COMMANDS_CPU,$COMMANDS_CPU -t 1|="
    "31|pinned, UDP at 1 Gbit/s|-A $COMMANDS_CPU,$COMMANDS_CPU -u -b1G -t 1|="
    "32|UDP bursts of 100 datagrams|-u -b1G/100 -t 1|="
    "33|congestion control reno, verbose|-C reno -V -t 1|="
    "34|MSS 1000, verbose|-M 1000 -V -t 1|="
)

# commands_get ID: sets CMD_WHAT, CMD_IPERF3, CMD_ESXPERF, CMD_HOST; 1 if no such case
# shellcheck disable=SC2034 # CMD_WHAT is for the callers
commands_get() {
    local row id
    for row in "${COMMANDS[@]}"; do
        IFS='|' read -r id CMD_WHAT CMD_IPERF3 CMD_ESXPERF <<<"$row"
        [ "$id" = "$1" ] || continue
        [ "$CMD_ESXPERF" = "=" ] && CMD_ESXPERF=$CMD_IPERF3
        CMD_HOST=127.0.0.1
        [[ " $CMD_IPERF3 " == *" -6 "* ]] && CMD_HOST=::1
        return 0
    done
    return 1
}

# commands_ids: every case id, in order
commands_ids() {
    local row
    for row in "${COMMANDS[@]}"; do echo "${row%%|*}"; done
}

# commands_run KIND BIN PORT ID OUT: run case ID with client BIN (KIND iperf3 or esxperf)
# against 127.0.0.1/::1 port PORT, output in OUT; returns 0 when the client exited 0
# and printed its summary (iperf Done., or for -J a document with "end"), else the
# client's exit code (124: timed out), or 1 when it exited 0 without a summary
commands_run() {
    local kind=$1 bin=$2 port=$3 id=$4 out=$5 opts rc=0
    commands_get "$id" || return 2
    opts=$CMD_IPERF3
    [ "$kind" = esxperf ] && opts=$CMD_ESXPERF
    # shellcheck disable=SC2086 # the options are words
    timeout -k 2 "$COMMANDS_TIMEOUT" "$bin" -c "$CMD_HOST" -p "$port" $opts >"$out" 2>&1 || rc=$?
    [ "$rc" -eq 0 ] || return "$rc"
    if [[ " $opts " == *" -J "* ]]; then
        python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if "end" in d and "error" not in d else 1)' "$out" 2>/dev/null || return 1
    else
        grep -q 'iperf Done\.' "$out" || return 1
    fi
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -u
    kind=iperf3 bin="" port=""
    while [ $# -gt 0 ]; do
        case "$1" in
        -e|--esxperf) kind=esxperf; shift ;;
        -b) bin=$2; shift 2 ;;
        -p) port=$2; shift 2 ;;
        -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "iperf3-commands: unknown option $1 (see --help)" >&2; exit 2 ;;
        *) break ;;
        esac
    done
    [ -n "$port" ] || { echo "iperf3-commands: -p PORT is required (a server on loopback)" >&2; exit 2; }
    if [ -z "$bin" ]; then
        if [ "$kind" = esxperf ]; then
            bin=$(cd "$(dirname "$0")/../.." && pwd)/out/bin/esxperf
        else
            # shellcheck source=test/lib/iperf3-peers.sh
            source "$(dirname "$0")/iperf3-peers.sh"
            bin=$(iperf3_peer 3.22) || { echo "iperf3-commands: no iperf3 3.22 (run test/lib/iperf3-peers.sh fetch)" >&2; exit 2; }
        fi
    fi
    ids=("$@")
    [ ${#ids[@]} -gt 0 ] || mapfile -t ids < <(commands_ids)
    out=$(mktemp)
    trap 'rm -f "$out"' EXIT
    failed=0
    for id in "${ids[@]}"; do
        commands_get "$id" || { echo "iperf3-commands: no case $id" >&2; exit 2; }
        t0=$EPOCHREALTIME
        rc=0
        commands_run "$kind" "$bin" "$port" "$id" "$out" || rc=$?
        [ "$rc" -eq 0 ] || failed=$((failed + 1))
        opts=$CMD_IPERF3
        [ "$kind" = esxperf ] && opts=$CMD_ESXPERF
        printf '%3s  exit %-3s %5.1f s  %s -c %s -p %s %s\n' "$id" "$rc" \
            "$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }')" "$kind" "$CMD_HOST" "$port" "$opts"
    done
    echo "$(( ${#ids[@]} - failed )) of ${#ids[@]} cases completed"
    [ "$failed" -eq 0 ]
fi
