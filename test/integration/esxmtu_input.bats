#!/usr/bin/env bats
# esxmtu against clumsy input it cannot see: several -f lists, a list saved with a
# byte-order mark, peer names holding control or invisible bytes, a run stopped by a
# signal. Real probes to 127.0.0.1 and ::1; a name that must resolve comes from a
# hosts file bound over /etc/hosts in a private mount namespace (unshare -m), never
# the machine's own; the stopped run is in a network namespace of its own
# (esxmtu-<pid>-stop: lo, and a veth pair 198.18.77.1/24 on which 198.18.77.2 never
# answers), deleted in teardown.
load ../lib/common

MTU=$BIN/esxmtu

setup() {
    need_root
    D=$BATS_TEST_TMPDIR
    NS=""
}

teardown() {
    if [ -n "$NS" ]; then
        ip netns pids "$NS" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
        ip netns del "$NS" 2>/dev/null || true
    fi
}

@test "-f twice: both lists are read, in order after the operands; an empty one of several is named" {
    echo 127.0.0.1 > "$D/a"
    echo ::1 > "$D/b"
    run "$MTU" -q -W 0.3 -f "$D/a" -f "$D/b"
    assert_status 0
    [ "${#lines[@]}" = 3 ] || flunk "$output"
    [[ "${lines[0]}" == "127.0.0.1 "*PASS* ]] || flunk "$output"
    [[ "${lines[1]}" == "::1 "*PASS* ]] || flunk "$output"
    [ "${lines[2]}" = "summary: 2 of 2 peers pass (exit 0)" ] || flunk "$output"
    # operands first, then each list in the order given
    run "$MTU" -q -W 0.3 -f "$D/b" ::1 -f "$D/a"
    assert_status 0
    [[ "${lines[0]}" == "::1 "* && "${lines[1]}" == "::1 "* && "${lines[2]}" == "127.0.0.1 "* ]] || flunk "$output"
    # a second list that cannot be read is an error, never a run on the first alone
    run "$MTU" -q -W 0.3 -f "$D/a" -f "$D/missing"
    assert_status 2
    [ "$output" = "esxmtu: cannot open $D/missing: No such file or directory (check the -f path)" ] || flunk "$output"
    : > "$D/empty"
    run "$MTU" -q -W 0.3 -f "$D/a" -f "$D/empty"
    assert_status 2
    [ "$output" = "esxmtu: $D/empty: no peer in it (one address or name a line, # comments) (try 'esxmtu --help')" ] ||
        flunk "$output"
}

@test "-f list starting with a UTF-8 byte-order mark: the mark is skipped, the first peer is read" {
    printf '\xef\xbb\xbf127.0.0.1\r\n::1\r\n' > "$D/bom"
    run "$MTU" -q -W 0.3 -f "$D/bom"
    assert_status 0
    assert_contains "summary: 2 of 2 peers pass (exit 0)"
    printf '\xef\xbb\xbf# saved by an editor\n127.0.0.1\n' > "$D/bomc"
    run "$MTU" -q -W 0.3 -f "$D/bomc"
    assert_status 0
    # only a whole mark at the very start: a cut one stays in the name, shown escaped
    printf '\xef\xbb127.0.0.1\n' > "$D/half"
    run "$MTU" -q -W 0.3 -f "$D/half"
    assert_status 2
    [ "$output" = 'esxmtu: cannot resolve \xef\xbb127.0.0.1: unknown host or not an address (check the name, or give an address)' ] ||
        flunk "$output"
    printf '127.0.0.1\n\xef\xbb\xbf::1\n' > "$D/mid"
    run "$MTU" -q -W 0.3 -f "$D/mid"
    assert_status 2
    [ "$output" = 'esxmtu: cannot resolve \xef\xbb\xbf::1: unknown host or not an address (check the name, or give an address)' ] ||
        flunk "$output"
}

# a name that resolves (from a hosts file of this test, in a mount namespace of its
# own) but holds an escape sequence, an invisible mark or a byte that is not UTF-8
with_hosts() {
    printf '127.0.0.1 localhost\n127.0.0.1 %s\n' "$1" > "$D/hosts"
    shift
    unshare -m sh -c 'mount --bind "$1" /etc/hosts && shift && exec "$@"' _ "$D/hosts" "$@"
}

@test "a peer name with control or invisible bytes is printed escaped (\\xNN), in text; JSON escapes it its way" {
    command -v unshare >/dev/null || skip "unshare missing"
    local esc=$'esx\e[2J01' zw=$'esx\xe2\x80\x8b02' bad=$'esx\xff03'
    run with_hosts "$esc" "$MTU" -q -W 0.3 "$esc"
    assert_status 0
    [ "${lines[0]%% PASS*}" = 'esx\x1b[2J01 (127.0.0.1)' ] || flunk "$output"
    [[ "$output" != *$'\e'* ]] || flunk "a raw ESC: $output"
    run with_hosts "$zw" "$MTU" -q -W 0.3 "$zw"
    assert_status 0
    [ "${lines[0]%% PASS*}" = 'esx\xe2\x80\x8b02 (127.0.0.1)' ] || flunk "$output"
    run with_hosts "$bad" "$MTU" -q -W 0.3 "$bad"
    assert_status 0
    [ "${lines[0]%% PASS*}" = 'esx\xff03 (127.0.0.1)' ] || flunk "$output"
    run with_hosts "$esc" "$MTU" -J -W 0.3 "$esc"
    assert_status 0
    [ "$(jq -r '.peers[0].target' <<<"$output")" = "$esc" ] || flunk "$output"
    [[ "$output" == *'"target": "esx\u001b[2J01"'* ]] || flunk "$output"
    # an error naming such a peer escapes it too (fail.c, the same rule)
    run "$MTU" -q -W 0.3 "$zw"
    assert_status 2
    [ "$output" = 'esxmtu: cannot resolve esx\xe2\x80\x8b02: unknown host or not an address (check the name, or give an address)' ] ||
        flunk "$output"
}

# ---- a run stopped by a signal

stop_ns_up() {
    NS=esxmtu-$$-stop
    ip netns add "$NS"
    ip -n "$NS" link set lo up
    ip -n "$NS" link add v0 mtu 9000 type veth peer name v1 mtu 9000
    ip -n "$NS" addr add 198.18.77.1/24 dev v0
    ip -n "$NS" link set v1 up
    ip -n "$NS" link set v0 up
    # 198.18.77.2's frames go to v1, which has no address and drops them: silence,
    # without the ARP failure that would answer in a few seconds
    ip -n "$NS" neigh replace 198.18.77.2 lladdr 02:00:00:00:77:02 dev v0 nud permanent
}
# ICMP echo replies the namespace's kernel has taken in (each reached esxmtu's raw
# socket first: raw delivery comes before the ICMP layer counts it)
echo_replies_in() {
    ip netns exec "$NS" awk '$1 == "Icmp:" && !h { for (i = 2; i <= NF; i++) if ($i == "InEchoReps") c = i; h = 1; next }
                             $1 == "Icmp:" { print $c }' /proc/net/snmp
}
# esxmtu ARGS in the namespace, stdout into a pipe (a FIFO read by cat into $D/out),
# stopped by signal $1 once 127.0.0.1 has all 6 replies (3 full-size, 3 small) and
# 198.18.77.2 is still waited for (-W 30); $status is esxmtu's
stopped_run() {
    local sig=$1 i pid
    shift
    rm -f "$D/fifo" "$D/out" "$D/err"
    mkfifo "$D/fifo"
    cat "$D/fifo" > "$D/out" &
    local cat_pid=$!
    local before; before=$(echo_replies_in)
    # a background job of a script starts with SIGINT ignored: give it back its default
    ip netns exec "$NS" env --default-signal=INT ${STOP_ENV:-} "$MTU" -c 3 -i 0.1 -W 30 "$@" 127.0.0.1 198.18.77.2 \
        > "$D/fifo" 2> "$D/err" &
    pid=$!
    for i in $(seq 200); do                       # at most 10 s; it takes about 0.3 s
        [ "$(echo_replies_in)" -ge $((before + 6)) ] && break
        sleep 0.05
    done
    [ "$(echo_replies_in)" -ge $((before + 6)) ] || { kill -9 "$pid"; flunk "no replies seen"; }
    if [ -n "${KILL_FIRST:-}" ]; then
        # esxmtu's handlers are in place once it probes: the signal must still be
        # ignored (the kernel's own record), and sending it changes nothing
        local n; n=$(kill -l "$KILL_FIRST")
        local ign; ign=$(awk '$1 == "SigIgn:" { print $2 }' "/proc/$pid/status")
        (( 0x$ign >> (n - 1) & 1 )) || { kill -9 "$pid"; flunk "SIG$KILL_FIRST not ignored (SigIgn $ign)"; }
        kill -"$KILL_FIRST" "$pid"
    fi
    kill -"$sig" "$pid"
    for i in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done   # 5 s bound
    kill -0 "$pid" 2>/dev/null && { kill -9 "$pid"; flunk "esxmtu still runs 5 s after SIG$sig"; }
    status=0
    wait "$pid" || status=$?
    wait "$cat_pid" || true
    output=$(cat "$D/out")
}

# the same, for an esxmtu started with signal $1 ignored: it must still be ignored
# while esxmtu probes, then $1 and $2 are sent
stopped_run_twice() {
    local first=$1
    shift
    KILL_FIRST=$first stopped_run "$@"
}

@test "SIGINT mid-run, stdout a pipe: header, the finished peer's verdict, the other INTERRUPTED, exit 1; -J is whole" {
    stop_ns_up
    stopped_run INT
    [ "$status" = 1 ] || flunk "exit $status: $output $(cat "$D/err")"
    [ "$(cat "$D/err")" = "esxmtu: interrupted (SIGINT) during the check: what was measured so far is reported" ] ||
        flunk "$(cat "$D/err")"
    mapfile -t lines <<<"$output"
    [ "${#lines[@]}" = 4 ] || flunk "$output"
    [[ "${lines[0]}" == "MTU 9000 = 8972 data + 8 ICMP + 20 IPv4, DF set; method raw:"* ]] || flunk "$output"
    [[ "${lines[1]}" == "127.0.0.1          PASS        3/3 full-size replies, 0% loss"* ]] || flunk "$output"
    [[ "${lines[2]}" == "198.18.77.2        INTERRUPTED interrupted (SIGINT) before its probes were done (6 of 6 without an outcome); so far 0/0 full-size and 0/0 small probes answered; no conclusion" ]] ||
        flunk "$output"
    [ "${lines[3]}" = "summary: 1 of 2 peers pass; interrupted (SIGINT) during the check (exit 1)" ] || flunk "$output"
    stopped_run INT -J
    [ "$status" = 1 ] || flunk "exit $status: $output"
    jq -e '.error == "interrupted (SIGINT) during the check" and .summary.exit == 1 and .summary.pass == 1
           and .peers[0].verdict == "PASS" and .peers[0].probes.received == 3
           and .peers[1].verdict == "INTERRUPTED" and .peers[1].probes.sent == 0' <<<"$output" >/dev/null ||
        flunk "$output"
}

@test "SIGTERM and SIGHUP mid-run: the same report, named by the signal, exit 1" {
    stop_ns_up
    local s
    for s in TERM HUP; do
        stopped_run "$s" -q
        [ "$status" = 1 ] || flunk "SIG$s: exit $status: $output"
        assert_contains "198.18.77.2        INTERRUPTED interrupted (SIG$s) before"
        assert_contains "summary: 1 of 2 peers pass; interrupted (SIG$s) during the check (exit 1)"
    done
    # started with SIGHUP ignored (nohup): it stays ignored; the SIGINT then stops the run
    STOP_ENV=--ignore-signal=HUP stopped_run_twice HUP INT -q
    [ "$status" = 1 ] || flunk "exit $status: $output"
    assert_contains "interrupted (SIGINT) during the check (exit 1)"
}
