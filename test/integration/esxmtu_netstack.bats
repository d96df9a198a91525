#!/usr/bin/env bats
# esxmtu -S NETSTACK and -I vmkN's netstack, on a bench where namespaces stand for
# ESXi's netstacks (test/lib/esxmtu-net.bash, vmonet_*): namespace V is the "vmotion"
# netstack holding the vMotion vmknic vmk1, a switch namespace S bridges it to the
# peer P (198.18.3.0/24, 2001:db8:3::/64). esxmtu started in this (the default)
# namespace has no vmk1: Linux ignores the ++netstack= launch word, so the run falls back to esxcli's ping,
# played by test/lib/fake-esxcli running a real iputils ping inside V. Each verdict
# there must be the one esxmtu reaches run inside V itself: PASS on the 9000 path, a
# BLACK-HOLE behind a switch port dropping IP packets over 1500 (nft bridge rule), a
# NO-REPLY from a silent peer, LOCAL-MTU when vmk1 itself is 1500.
# Namespaces are named esxmtu-<pid>-V/S/P and deleted in teardown_file.
load ../lib/common
load ../lib/esxmtu-net

MTU=$BIN/esxmtu
PEER=198.18.3.2

setup_file() {
    [ "$(id -u)" = 0 ] || skip "needs root (namespaces, raw sockets)"
    command -v ping >/dev/null || skip "iputils ping missing (the stand-in esxcli runs it)"
    export ESXMTU=$BIN/esxmtu
    vmonet_up "$$" || { vmonet_down; return 1; }
    export FAKE_ESXI=$BATS_FILE_TMPDIR/esxi
    mkdir -p "$FAKE_ESXI" "$BATS_FILE_TMPDIR/fakebin"
    ln -sf "$ESXDIAG_ROOT/test/lib/fake-esxcli" "$BATS_FILE_TMPDIR/fakebin/esxcli"
    # no $FAKE_ESXI/interfaces: the stand-in's own host, vmk0 on the default netstack
    # and vmk1 on vmotion
    export FAKE_ESXCLI_NETSTACK_vmotion=$NS_V
    export FAKEBIN=$BATS_FILE_TMPDIR/fakebin
}

teardown_file() {
    vmonet_down
}

setup() {
    [ -n "${NS_V:-}" ] || skip "no test bench (needs root)"
    vmonet_reset
}

# what a sick esxcli left running must not outlive its row
teardown() {
    fake_esxcli_reap
    rm -f "$FAKE_ESXI/ping_lie" "$FAKE_ESXI/interfaces"
}

# the stand-in esxcli processes still running (their command lines name $FAKEBIN)
esxcli_left() { pgrep -f "$FAKEBIN/esxcli" | wc -l; }

# esxmtu in the default namespace, the stand-in esxcli first on PATH
onhost() { PATH="$FAKEBIN:$PATH" "$MTU" -c 2 -i 0.2 -W 1 "$@"; }
# esxmtu inside the vmotion netstack itself (no esxcli: it probes there as always)
inV() { ip netns exec "$NS_V" "$MTU" -c 2 -i 0.2 -W 1 "$@"; }
# the verdict word of the line naming $PEER
verdict() { awk -v p="$PEER" '$1 == p { print $2; exit }' <<<"$output"; }

# both ways reach verdict $1 (and exit $2); the host run says it used esxcli in vmotion
same_verdict() {
    run inV -I vmk1 "$PEER"
    assert_status "$2"
    [ "$(verdict)" = "$1" ] || flunk "inside the netstack: expected $1: $output"
    assert_contains "method raw"
    run onhost -S vmotion -I vmk1 "$PEER"
    assert_status "$2"
    [ "$(verdict)" = "$1" ] || flunk "from the default netstack with -S: expected $1: $output"
    assert_contains "netstack vmotion (-S): not entered (vmk1 does not exist in this process's netstack): probing through esxcli network diag ping"
    assert_contains "DF set; method esxcli: esxcli network diag ping --df"
    run onhost -I vmk1 "$PEER"
    assert_status "$2"
    [ "$(verdict)" = "$1" ] || flunk "from the default netstack, -I alone: expected $1: $output"
    assert_contains "netstack vmotion (esxcli: vmk1 is on it): not entered"
}

@test "netstack: MTU 9000 path: PASS inside the vmotion netstack and through esxcli from the default one" {
    same_verdict PASS 0
    assert_contains "$PEER         PASS        2/2 full-size replies, 0% loss"
    grep -q "network diag ping --netstack vmotion --interface vmk1 --ipv4 --df --size 8972 --count 2" "$FAKE_ESXI/log" ||
        flunk "no full-size esxcli ping: $(cat "$FAKE_ESXI/log")"
}

@test "netstack: IPv6 too: PASS both ways, esxcli asked with --ipv6 for 8952 data bytes" {
    local PEER=2001:db8:3::2
    same_verdict PASS 0
    grep -q "network diag ping --netstack vmotion --interface vmk1 --ipv6 --df --size 8952 --count 2" "$FAKE_ESXI/log" ||
        flunk "no IPv6 full-size esxcli ping: $(cat "$FAKE_ESXI/log")"
    vmonet_silent_peer
    same_verdict NO-REPLY 1
}

@test "netstack: a switch port dropping IP packets over 1500: BLACK-HOLE both ways" {
    vmonet_port_blackhole 1500
    same_verdict BLACK-HOLE 1
    assert_contains "small probes answered (2/2), full-size ones vanish without an error"
}

@test "netstack: --discover through esxcli finds the 1500 the switch port passes, as inside the netstack" {
    vmonet_port_blackhole 1500
    run inV --discover -I vmk1 "$PEER"
    assert_status 1
    assert_contains "discovered path MTU 1500 (1472 data bytes): smallest failed 1501 (loss)"
    run onhost --discover -S vmotion -I vmk1 "$PEER"
    assert_status 1
    [ "$(verdict)" = BLACK-HOLE ] || flunk "$output"
    assert_contains "discovered path MTU 1500 (1472 data bytes): smallest failed 1501 (loss)"
    assert_contains "method esxcli"
}

@test "netstack: a silent peer: NO-REPLY both ways" {
    vmonet_silent_peer
    same_verdict NO-REPLY 1
}

@test "netstack: vmk1 itself at MTU 1500: LOCAL-MTU both ways (esxcli: Message too long)" {
    ip -n "$NS_V" link set vmk1 mtu 1500
    same_verdict LOCAL-MTU 1
    assert_contains "send failed here: Message too long"
}

@test "netstack: -J says the netstack, where its name came from and the method" {
    run onhost -J -I vmk1 "$PEER"
    assert_status 0
    python3 - "$output" <<'PY' || flunk "$output"
import json, sys
d = json.loads(sys.argv[1])
ns = d["netstack"]
assert ns["name"] == "vmotion" and ns["method"] == "esxcli" and ns["from"] == "esxcli: vmk1 is on it", ns
assert "vmk1" in ns["note"], ns
p = d["peers"][0]
assert p["method"] == "esxcli" and p["verdict"] == "PASS" and p["probes"]["received"] == 2, p
PY
    run inV -J -B 198.18.3.1 "$PEER"
    assert_status 0
    python3 -c 'import json,sys; d=json.loads(sys.argv[1]); n=d["netstack"]; assert n["name"] is None and n["method"] == "current", n' "$output" || flunk "$output"
}

@test "netstack: inside the netstack, -S re-executes with the launch word and probes there" {
    run ip netns exec "$NS_V" env PATH="$FAKEBIN:$PATH" "$MTU" -c 2 -i 0.2 -W 1 -S vmotion -I vmk1 "$PEER"
    assert_status 0
    assert_contains "netstack vmotion (-S): entered with the ++netstack=vmotion launch word (vmk1's address 198.18.3.1 can be bound here)"
    assert_contains "method raw"
    [ "$(verdict)" = PASS ] || flunk "$output"
    # the interface by another of its names (a Linux altname, as the fleet bench gives
    # its vMotion link): its address is found by index
    ip -n "$NS_V" link property add dev vmk1 altname vmotion0
    run ip netns exec "$NS_V" "$MTU" -c 2 -i 0.2 -W 1 -S vmotion -I vmotion0 "$PEER"
    ip -n "$NS_V" link property del dev vmk1 altname vmotion0
    assert_status 0
    assert_contains "entered with the ++netstack=vmotion launch word (vmotion0's address 198.18.3.1 can be bound here)"
}

@test "netstack: refusals: unknown vmk, contradicting netstacks, -S without -I or -B, --trace through esxcli" {
    run onhost -I vmk7 "$PEER"
    assert_status 2
    assert_contains "esxmtu: -I vmk7: no such vmknic on this host (esxcli network ip interface list has: vmk0, vmk1)"
    run onhost -S vxlan -I vmk1 "$PEER"
    assert_status 2
    assert_contains "-I vmk1 is on netstack vmotion (esxcli network ip interface list), not vxlan"
    run "$MTU" ++netstack=vxlan -S vmotion -B 198.18.3.1 "$PEER"
    assert_status 2
    assert_contains "-S vmotion contradicts the launch word ++netstack=vxlan"
    run "$MTU" -S vmotion "$PEER"
    assert_status 2
    assert_contains "-S vmotion needs -I vmkN or -B SRCADDR"
    run onhost --method dgram -I vmk1 "$PEER"
    assert_status 0
    assert_contains "esxmtu: --method dgram does nothing through esxcli"
    run onhost --trace -S vmotion -I vmk1 "$PEER"
    assert_status 2
    assert_contains "through esxcli --trace cannot run"
    # esxcli refuses (a netstack the host does not have): its own words, exit 2
    run onhost -S vxlan -B 198.18.3.1 "$PEER"
    assert_status 2
    [ "$output" = "esxmtu: netstack vxlan: esxcli network diag ping --host $PEER (exit 1): Error: Invalid netstack vxlan" ] ||
        flunk "$output"
    run env PATH=/nonexistent "$MTU" -S vmotion -I vmk1 "$PEER"
    assert_status 2
    assert_contains "and no esxcli on PATH, /bin or /sbin"
    [ "${#lines[@]}" = 1 ] || flunk "one line: $output"
}

@test "netstack: one re-exec at most: the re-executed run (the word, or the mark it carries) never re-executes" {
    command -v strace >/dev/null || skip "strace missing"
    local log=$BATS_TEST_TMPDIR/execs
    run env PATH="$FAKEBIN:$PATH" strace -f -qq -e trace=execve -o "$log" "$MTU" -c 1 -W 0.5 -S vmotion -I vmk1 "$PEER"
    assert_status 0
    [ "$(grep -c "execve(\"[^\"]*esxmtu\"\|execve(\"/proc/self/exe\"" "$log")" = 2 ] || flunk "expected 2 execs of esxmtu: $(cat "$log")"
    grep -q '"++netstack=vmotion"' "$log" || flunk "no ++netstack=vmotion word: $(cat "$log")"
    # a host that takes the word out of argv: the mark in the environment still stops a
    # second one. The mark a re-exec leaves is "PID:NAME" with the pid that exec keeps:
    # the shell exports it with its own pid and execs esxmtu, as esxmtu's re-exec does
    run env PATH="$FAKEBIN:$PATH" strace -f -qq -e trace=execve -o "$log" \
        sh -c 'export ESXMTU_NETSTACK_REEXEC=$$:vmotion ESXMTU_NETSTACK_FROM=-S; exec "$0" "$@"' \
        "$MTU" -c 1 -W 0.5 -S vmotion -I vmk1 "$PEER"
    assert_status 0
    [ "$(grep -c "execve(\"[^\"]*esxmtu\"\|execve(\"/proc/self/exe\"" "$log")" = 1 ] || flunk "expected 1 exec of esxmtu: $(cat "$log")"
    assert_contains "netstack vmotion (-S): not entered"
}

@test "netstack: a re-exec mark esxmtu did not set is not believed; two netstack words are refused" {
    # left in the environment by something else (another pid): no netstack is claimed
    run env ESXMTU_NETSTACK_REEXEC=1:vmotion ESXMTU_NETSTACK_FROM=-S "$MTU" -c 1 -W 0.5 127.0.0.1
    assert_status 0
    assert_not_contains "netstack"
    run env ESXMTU_NETSTACK_REEXEC=vmotion ESXMTU_NETSTACK_FROM=-S "$MTU" -c 1 -W 0.5 -J 127.0.0.1
    assert_status 0
    [ "$(jq -r '.netstack.name' <<<"$output")" = null ] || flunk "$output"
    run "$MTU" ++netstack=vmotion ++netstack=vxlan -c 1 127.0.0.1
    assert_status 2
    [ "$output" = "esxmtu: ++netstack=vmotion and ++netstack=vxlan: two netstacks named; give one (try 'esxmtu --help')" ] || flunk "$output"
    run "$MTU" ++netstack=vmotion ++netstack=vmotion -c 1 -W 0.5 -B 127.0.0.1 127.0.0.1
    [[ "$output" != *"two netstacks"* ]] || flunk "the same word twice is one netstack: $output"
}

@test "netstack: a re-exec that cannot be made is reported as method current with its reason, not as entered" {
    command -v strace >/dev/null || skip "strace missing"
    # inside the netstack, every execve after esxmtu's own start refused: the re-exec fails,
    # vmk1's address is usable here, so the probe runs, but nothing was entered
    run ip netns exec "$NS_V" strace -f -qq -o /dev/null -e trace=execve -e inject=execve:error=EACCES:when=1+ \
        "$MTU" -c 1 -W 0.5 -S vmotion -I vmk1 -J "$PEER"
    assert_status 0
    [ "$(jq -r '.netstack.method' <<<"$output")" = current ] || flunk "$(jq -c .netstack <<<"$output")"
    [[ "$(jq -r '.netstack.note' <<<"$output")" == *"not re-executed: cannot re-execute with ++netstack=vmotion: Permission denied"* ]] || flunk "$output"
    run ip netns exec "$NS_V" strace -f -qq -o /dev/null -e trace=execve -e inject=execve:error=EACCES:when=1+ \
        "$MTU" -c 1 -W 0.5 -S vmotion -I vmk1 "$PEER"
    assert_contains "netstack vmotion (-S): not entered, probing in this process's netstack"
}

@test "netstack: syscall audit: the re-exec, the bind check and the esxcli calls stay within build/syscalls.allow" {
    command -v strace >/dev/null || skip "strace missing"
    # shellcheck source=test/lib/audit.bash
    source "$ESXDIAG_ROOT/test/lib/audit.bash"
    local log=$BATS_TEST_TMPDIR/trace extra
    # esxmtu's own process only (no -f): esxcli and what it runs are the host's
    run env PATH="$FAKEBIN:$PATH" strace -qq -o "$log" "$MTU" -c 1 -i 0.2 -W 0.5 -S vmotion -I vmk1 "$PEER"
    assert_status 0
    assert_contains "method esxcli"
    extra=$(_audit_names "$log" strace | comm -23 - <(_audit_lists))
    [ -z "$extra" ] || flunk "syscalls outside the lists (esxcli method): $extra"
    run ip netns exec "$NS_V" strace -qq -o "$log" "$MTU" -c 1 -W 0.5 -S vmotion -I vmk1 "$PEER"
    assert_status 0
    assert_contains "launch word"
    extra=$(_audit_names "$log" strace | comm -23 - <(_audit_lists))
    [ -z "$extra" ] || flunk "syscalls outside the lists (launch word): $extra"
}

@test "netstack: esxperf --netstack vmotion: inside the netstack it enters with the word and tests over vmk1; from the default one it refuses in one line" {
    local port=5391 spid
    ip netns exec "$NS_P" "$BIN/esxperf" -s -1 -B 198.18.3.2 -p "$port" >"$BATS_TEST_TMPDIR/s.out" 2>&1 &
    spid=$!
    wait_port "$port" "$NS_P" || { kill "$spid"; return 1; }
    run ip netns exec "$NS_V" timeout 20 "$BIN/esxperf" -c 198.18.3.2 -p "$port" -t 1 -i 0 -J --netstack vmotion --bind-dev vmk1
    kill "$spid" 2>/dev/null || true
    wait "$spid" 2>/dev/null || true
    assert_status 0
    jq -e '.end.esxperf.netstack == {name: "vmotion", from: "--netstack", method: "launch-word",
           note: "vmk1'"'"'s address 198.18.3.1 can be bound here"} and .end.sum_received.bytes > 0' <<<"$output" >/dev/null ||
        flunk "$output"
    # from the default netstack: vmk1 is not here, and esxcli has no throughput test
    run timeout 10 "$BIN/esxperf" -c 198.18.3.2 -p "$port" -t 1 --netstack vmotion --bind-dev vmk1
    assert_status 2
    [ "$output" = "esxperf: could not enter netstack vmotion with the ++netstack=vmotion launch word: vmk1 does not exist in this process's netstack (run esxperf from a host where that address is on the default netstack; for the MTU, esxmtu -S vmotion -I vmk1 probes through esxcli)" ] ||
        flunk "$output"
}

@test "netstack: the re-exec keeps the other leading launch words as they were (++group=...), and reaches the same verdict" {
    run env PATH="$FAKEBIN:$PATH" "$MTU" ++group=host/vim/tmp -c 2 -i 0.2 -W 1 -S vmotion -I vmk1 "$PEER"
    assert_status 0
    [ "$(verdict)" = PASS ] || flunk "$output"
    assert_contains "netstack vmotion (-S): not entered"
    [ "${#lines[@]}" -gt 2 ] || flunk "$output"
}

@test "netstack: a slow esxcli (1 s a call, as a busy host's): the same PASS through it" {
    run env FAKE_ESXCLI_SICK=slow FAKE_ESXCLI_SLOW_S=1 PATH="$FAKEBIN:$PATH" "$MTU" -c 2 -i 0.2 -W 1 -I vmk1 "$PEER"
    assert_status 0
    [ "$(verdict)" = PASS ] || flunk "$output"
    assert_contains "netstack vmotion (esxcli: vmk1 is on it): not entered"
}

@test "netstack: an esxcli that leaves a child holding its output: the answer is read at once, the child killed" {
    # each call answers, then leaves a sleep of 40 s on the same stdout: a runner that
    # waits for the end of the output waits 40 s a call (the outer timeout ends it)
    run timeout 25 env FAKE_ESXCLI_SICK=orphan FAKE_ESXCLI_HANG_S=40 PATH="$FAKEBIN:$PATH" "$MTU" -c 2 -i 0.2 -W 1 -I vmk1 "$PEER"
    assert_status 0
    [ "$(verdict)" = PASS ] || flunk "$output"
    [ "$(fake_esxcli_strays)" = 0 ] || flunk "esxcli's children still run: $(xargs -r ps -o pid,ppid,pgid,stat,args -p < "$FAKE_ESXI/strays")"
}

@test "netstack: ^C while esxcli's pings are slow: stops at once, kills them, INTERRUPTED and exit 1" {
    local peers=() i pid rc=0
    for i in $(seq 10 19); do peers+=("198.18.5.$i"); done
    : > "$FAKE_ESXI/log"
    # a background job starts with SIGINT ignored (and esxmtu keeps an ignored stop
    # signal ignored): env gives it back its default, as at a terminal
    env --default-signal=INT FAKE_ESXCLI_SICK=slow FAKE_ESXCLI_SICK_ON='network diag ping' FAKE_ESXCLI_SLOW_S=30 \
        PATH="$FAKEBIN:$PATH" "$MTU" -c 1 -W 1 -S vmotion -I vmk1 "$PEER" "${peers[@]}" \
        > "$BATS_TEST_TMPDIR/out" 2>&1 &
    pid=$!
    for i in $(seq 1 100); do grep -q 'diag ping' "$FAKE_ESXI/log" && break; sleep 0.05; done
    grep -q 'diag ping' "$FAKE_ESXI/log" || { kill "$pid"; flunk "no esxcli ping started"; }
    kill -INT "$pid"
    # the calls would take 30 s each: a run that waits them out is killed at 10 s (exit 137)
    ( sleep 10; kill -9 "$pid" 2>/dev/null ) & local guard=$!
    wait "$pid" || rc=$?
    kill "$guard" 2>/dev/null || true
    output=$(cat "$BATS_TEST_TMPDIR/out")
    [ "$rc" = 1 ] || flunk "exit $rc, not 1: $output"
    assert_contains "interrupted (SIGINT)"
    assert_contains "INTERRUPTED"
    [ "$(fake_esxcli_strays)" = 0 ] || flunk "esxcli's children still run"
    [ "$(esxcli_left)" = 0 ] || flunk "esxcli calls still run: $(pgrep -af "$FAKEBIN/esxcli")"
}

@test "netstack: esxcli's figures that cannot be true (1000000 transmitted, an RTT of 1e308 ms) end the run naming esxcli, not a PASS" {
    printf 'Transmitted: 1000000\n' > "$FAKE_ESXI/ping_lie"
    run onhost -S vmotion -I vmk1 "$PEER"
    rm -f "$FAKE_ESXI/ping_lie"
    assert_status 2
    assert_contains "esxcli network diag ping --host $PEER answered Transmitted 1000000, but --count was 2: an answer this tool cannot trust"
    printf 'Round-trip Max: 1e308 ms\n' > "$FAKE_ESXI/ping_lie"
    run onhost -S vmotion -I vmk1 -J "$PEER"
    rm -f "$FAKE_ESXI/ping_lie"
    assert_status 2
    assert_contains "a round-trip time over 2000 ms"
    [[ "$output" != *PASS* ]] || flunk "$output"
}

@test "netstack: a netstack name esxcli gives that no netstack has (70 characters) is esxcli's error, not cut and used, nor blamed on a launch word" {
    local long; long=$(printf 'n%.0s' $(seq 1 70))
    printf '%s\n' "vmk0 vSwitch0 Management_Network defaultTcpipStack 1500 00:50:56:00:00:01" \
        "vmk1 vSwitch1 vMotion $long 9000 00:50:56:6a:1b:2c" > "$FAKE_ESXI/interfaces"
    run onhost -I vmk1 "$PEER"
    rm -f "$FAKE_ESXI/interfaces"
    assert_status 2
    assert_contains "esxcli network ip interface list puts it on netstack '$long', which is no netstack name"
    assert_not_contains "++netstack="
}

@test "netstack: with -S given, an interface list that fails or hangs is a warning: the run goes on with the netstack given" {
    run env FAKE_ESXCLI_SICK=error FAKE_ESXCLI_SICK_ON='network ip interface list' PATH="$FAKEBIN:$PATH" \
        "$MTU" -c 2 -i 0.2 -W 1 -S vmotion -I vmk1 "$PEER"
    assert_status 0
    [ "$(verdict)" = PASS ] || flunk "$output"
    assert_contains "esxmtu: -I vmk1: $FAKEBIN/esxcli network ip interface list exited non-zero: going on with netstack vmotion (-S)"
    # without -S the same failure ends the run, asking for it
    run env FAKE_ESXCLI_SICK=error FAKE_ESXCLI_SICK_ON='network ip interface list' PATH="$FAKEBIN:$PATH" \
        "$MTU" -c 2 -i 0.2 -W 1 -I vmk1 "$PEER"
    assert_status 2
    assert_contains "(give the netstack with -S NAME)"
}

@test "netstack: a directory named esxcli on PATH is not taken for the program" {
    local d=$BATS_TEST_TMPDIR/dirpath
    mkdir -p "$d/esxcli"
    run env PATH="$d:$FAKEBIN:$PATH" "$MTU" -c 2 -i 0.2 -W 1 -I vmk1 "$PEER"
    assert_status 0
    [ "$(verdict)" = PASS ] || flunk "$output"
}
