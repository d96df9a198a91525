#!/usr/bin/env bats
# iperf3's own release command list (test/lib/iperf3-commands.sh: our adaptation, on
# loopback) run three ways per case, in the same run:
#   ref  iperf3 3.22 -c -> iperf3 3.22 -s    (the reference: does iperf3 pass it here?)
#   i2e  iperf3 3.22 -c -> esxperf -s
#   c2i  esxperf -c (the equivalent options) -> iperf3 3.22 -s
# A case must pass both ways wherever the reference passes. Where the reference fails
# on this machine (no SCTP in the kernel; options iperf3 itself refuses) nothing is
# required: the test ends as skipped, saying what the reference and esxperf did.
# A known esxperf fault is not run (a hang costs the stall guard's 30 s):
# `cmd ID --known "ROLE: fault: ..."` ends the test as skipped naming it,
# after the other way passed. COMMANDS_RUN_KNOWN=1 runs them like any other case.
load ../lib/common

setup_file() {
    source "$ESXDIAG_ROOT/test/lib/iperf3-peers.sh"
    iperf3_peers_setup_file
}

setup() {
    source "$ESXDIAG_ROOT/test/lib/iperf3-peers.sh"
    source "$ESXDIAG_ROOT/test/lib/iperf3-commands.sh"
    [ ! -f "$BATS_FILE_TMPDIR/peers.skip" ] || skip "$(cat "$BATS_FILE_TMPDIR/peers.skip")"
    IPERF3=$(iperf3_peer 3.22) || skip "no iperf3 3.22 peer"
    PIDS=()
    TMP=$(mktemp -d)
}

teardown() {
    stop_pids
    rm -rf "$TMP"
}

# a fresh server for one run: serve KIND (iperf3 3.22 or esxperf) on a free port (into
# PORT), log in $TMP; retried when another job takes the port
serve() {
    local _ pid
    for _ in 1 2 3; do
        PORT=$(free_port) || return 1
        if [ "$1" = esxperf ]; then
            "$BIN/esxperf" -s -p "$PORT" >"$TMP/server-$PORT.log" 2>&1 &
        else
            "$IPERF3" -s -p "$PORT" >"$TMP/server-$PORT.log" 2>&1 &
        fi
        pid=$!
        PIDS+=($pid)
        # bounded (5 s): our own process listens there, not another job's
        for _ in $(seq 1 50); do
            ss -ltnpH "sport = :$PORT" | grep -q "pid=$pid," && return 0
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill "$pid" 2>/dev/null
    done
    flunk "no server would listen on three free ports: $(cat "$TMP/server-$PORT.log")"
}

# one way of one case: way NAME CLIENTKIND CLIENTBIN SERVERKIND; sets WAY_RC, WAY_MSG
way() {
    serve "$4"
    WAY_RC=0
    commands_run "$2" "$3" "$PORT" "$CASE" "$TMP/$1.out" || WAY_RC=$?
    WAY_MSG="exit $WAY_RC$([ "$WAY_RC" = 124 ] && echo " (timed out after $COMMANDS_TIMEOUT s)"): $(grep -v '^\s*$' "$TMP/$1.out" | tail -n 2 | tr '\n' ' ' | cut -c1-300)"
    kill "${PIDS[-1]}" 2>/dev/null || true
}

# cmd ID [--known "ROLE: text"]...: the case both ways, against the reference
cmd() {
    CASE=$1
    shift
    local -a known=() skips=() fails=()
    local k role why ref
    while [ $# -gt 0 ]; do
        case "$1" in
        --known) known+=("$2"); shift 2 ;;
        *) flunk "cmd: unknown option $1" ;;
        esac
    done
    commands_get "$CASE" || flunk "no case $CASE in iperf3-commands.sh"
    way ref iperf3 "$IPERF3" iperf3
    ref=$WAY_RC
    local refmsg=$WAY_MSG
    for role in i2e c2i; do
        why=""
        for k in "${known[@]}"; do
            [ "${k%%:*}" = "$role" ] && why=${k#*: }
        done
        if [ -n "$why" ] && [ "${COMMANDS_RUN_KNOWN:-0}" != 1 ]; then
            skips+=("$role: $why")
            continue
        fi
        if [ "$role" = i2e ]; then
            way i2e iperf3 "$IPERF3" esxperf
        else
            way c2i esxperf "$BIN/esxperf" iperf3
        fi
        echo "# $role: $WAY_MSG" >&3
        if [ "$WAY_RC" -ne 0 ] && [ "$ref" -eq 0 ]; then
            fails+=("$role ($([ $role = i2e ] && echo "iperf3 -c $CMD_IPERF3 -> esxperf -s" || echo "esxperf -c $CMD_ESXPERF -> iperf3 -s")): $WAY_MSG")
        elif [ "$ref" -ne 0 ]; then
            skips+=("$role $WAY_MSG")
        fi
    done
    if [ ${#fails[@]} -gt 0 ]; then
        printf '%s\n' "${fails[@]}" >&2
        return 1
    fi
    if [ "$ref" -ne 0 ]; then
        skip "the reference (iperf3 3.22 against itself) fails here, nothing required: $refmsg; esxperf: $(printf '%s; ' "${skips[@]}")"
    fi
    if [ ${#skips[@]} -gt 0 ]; then
        skip "$(printf '%s; ' "${skips[@]}")"
    fi
}

@test "cmd 1: TCP -V -T"                  { cmd 1; }
@test "cmd 2: UDP -V"                     { cmd 2; }
@test "cmd 3: -i .3 -O"                   { cmd 3; }
@test "cmd 4: -J"                         { cmd 4; }
@test "cmd 5: -4"                         { cmd 5; }
@test "cmd 6: -4 -u"                      { cmd 6; }
@test "cmd 7: -6"                         { cmd 7; }
@test "cmd 8: -6 -u"                      { cmd 8; }
@test "cmd 9: --fq-rate"                  { cmd 9; }
@test "cmd 10: -u --fq-rate"              { cmd 10; }
@test "cmd 11: --sctp"                    { cmd 11; }
@test "cmd 12: -P 3"                      { cmd 12; }
@test "cmd 13: -u -P 3"                   { cmd 13; }
@test "cmd 14: -P 2 -R"                   { cmd 14; }
@test "cmd 15: -u -P 2 -R"                { cmd 15; }
@test "cmd 16: -P 2 --bidir"              { cmd 16; }
@test "cmd 17: -u -P 2 --bidir"           { cmd 17; }
@test "cmd 18: -Z"                        { cmd 18; }
@test "cmd 19: -Z -R"                     { cmd 19; }
@test "cmd 20: -w 8M"                     { cmd 20; }
@test "cmd 21: -n 5M"                     { cmd 21; }
@test "cmd 22: -n 5M -u -b1G"             { cmd 22; }
@test "cmd 23: -n 5M -R"                  { cmd 23; }
@test "cmd 24: -n 5M -u -b1G -R"          { cmd 24; }
@test "cmd 25: -n 5M -t 1 (refused)"      { cmd 25; }
@test "cmd 26: -k 1K"                     { cmd 26; }
@test "cmd 27: -k 1K -u -b1G"             { cmd 27; }
@test "cmd 28: -k 1K -R"                  { cmd 28; }
@test "cmd 29: -k 1K -u -b1G -R"          { cmd 29; }
@test "cmd 30: -A N,N"                    { cmd 30; }
@test "cmd 31: -A N,N -u -b1G"            { cmd 31; }
@test "cmd 32: -u -b1G/100"               { cmd 32; }
@test "cmd 33: -C reno -V"                { cmd 33; }
@test "cmd 34: -M 1000 -V"                { cmd 34; }
