#!/usr/bin/env bats
# esxmtu and the uplinks of a vmk's team, on the uplink bench (test/lib/uplink-net.bash):
# the vMotion vmk1 leaves by vmnic0, whose switch port passes 9000; its standby vmnic1
# faces a port left at 1500 that drops bigger frames without a word. A check through
# vmk1 passes (it crosses vmnic0 only); the read-only report must still name vmnic1,
# its switch port and MTU from CDP, and failback's part, from the stand-ins of esxcli,
# vsish and vim-cmd (test/lib/fake-esxcli), and change nothing on the host.
# Namespaces are named esxmtu-<pid>-upH/upS/upP and deleted in teardown_file.
load ../lib/common
load ../lib/esxmtu-net
load ../lib/uplink-net

MTU=$BIN/esxmtu
PEER=198.18.4.2

setup_file() {
    upnet_suite_up "$BATS_FILE_TMPDIR/fakebin"
}

teardown_file() {
    upnet_down
}

setup() {
    upnet_host "$BATS_TEST_TMPDIR/esxi"
}

teardown() {
    fake_esxcli_reap
}

# esxmtu on the host's default netstack: vmk1 is on vmotion, so the check runs
# through the stand-in esxcli's ping inside H
onhost() { PATH="$FAKEBIN:$PATH" "$MTU" -c 2 -i 0.2 -W 1 "$@"; }
json_get() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }
# the host's state as esxcli shows it, for before/after comparisons
host_view() {
    PATH="$FAKEBIN:$PATH" esxcli network vswitch standard portgroup list
    PATH="$FAKEBIN:$PATH" esxcli network vswitch standard portgroup policy failover get -p vMotion
    PATH="$FAKEBIN:$PATH" esxcli network ip interface list
}

@test "read-only: the check passes through vmnic0, the finding names the standby vmnic1 and its 1500 switch port" {
    before=$(host_view)
    run onhost -V -I vmk1 "$PEER"
    assert_status 1
    assert_contains "$PEER"
    [ "$(awk -v p="$PEER" '$1 == p { print $2 }' <<<"$output")" = PASS ] || flunk "the check did not pass: $output"
    assert_contains "team of vmk1: vSwitch1, portgroup vMotion (VLAN 0), netstack vmotion, MTU 9000"
    assert_contains "load balancing srcport, failback yes"
    assert_contains "leaves by vmnic0 now (vsish teamUplink)"
    grep -Eq '^  vmnic1 +standby 1 +9000 +switch01 Gi1/0/2 +1500$' <<<"$output" || flunk "no vmnic1 row: $output"
    assert_contains "finding: jumbo frames fail after a failover to vmnic1 (switch01 Gi1/0/2 at MTU 1500, below vmk1's 9000); standby, Failback on"
    [ "$(grep -c '^finding:' <<<"$output")" = 1 ] || flunk "vmnic0 (9216) named too: $output"
    assert_contains "1 finding (exit 1)"
    # read-only: nothing but reads ran, and the host reads as before
    ! grep -E ' (add|remove|set) ' "$FAKE_ESXI/log" || flunk "a change was asked: $(cat "$FAKE_ESXI/log")"
    grep -q '^vsish -e get /net/portsets/vSwitch1/ports/33554442/teamUplink$' "$FAKE_ESXI/log" ||
        flunk "vsish not asked for vmk1's port: $(cat "$FAKE_ESXI/log")"
    grep -q '^vim-cmd hostsvc/net/query_networkhint --pnic-name=vmnic1$' "$FAKE_ESXI/log" || flunk "no CDP query"
    [ "$(host_view)" = "$before" ] || flunk "the host changed"
}

@test "read-only -J: the team object and the findings, stable keys" {
    run onhost -J -I vmk1 "$PEER"
    assert_status 1
    [ "$(json_get 'd["team"]["current_uplink"]' <<<"$output")" = vmnic0 ] || flunk "$output"
    [ "$(json_get '[(u["name"], u["role"], u["switch_mtu"]) for u in d["team"]["uplinks"]]' <<<"$output")" = \
        "[('vmnic0', 'active', 9216), ('vmnic1', 'standby', 1500)]" ] || flunk "$output"
    [ "$(json_get 'd["team"]["failback"], d["team"]["vlan"], d["team"]["mtu"]' <<<"$output")" = "(True, 0, 9000)" ] ||
        flunk "$output"
    [ "$(json_get 'len(d["findings"])' <<<"$output")" = 1 ] || flunk "$output"
    [[ "$(json_get 'd["findings"][0]' <<<"$output")" == *"failover to vmnic1 (switch01 Gi1/0/2 at MTU 1500"* ]] ||
        flunk "$output"
    [ "$(json_get 'd["peers"][0]["verdict"]' <<<"$output")" = PASS ] || flunk "$output"
}

@test "read-only: Failback off, the schedTeamUplink spelling, a team without the bad port" {
    printf 'failback false\n' > "$FAKE_ESXI/vs_policy.tmp"
    cat "$FAKE_ESXI/vs_policy/vSwitch1" "$FAKE_ESXI/vs_policy.tmp" > "$FAKE_ESXI/vs_policy/x" &&
        mv "$FAKE_ESXI/vs_policy/x" "$FAKE_ESXI/vs_policy/vSwitch1"
    echo schedTeamUplink > "$FAKE_ESXI/vsish_node"
    run onhost -V -I vmk1 "$PEER"
    assert_status 1
    assert_contains "leaves by vmnic0 now (vsish schedTeamUplink)"
    assert_contains "Failback off: traffic stays there even after vmnic0 is back"
    # the switch fixed: no finding, exit 0
    printf '%s\n' "vmnic0 switch01 Gi1/0/1 9216" "vmnic1 switch01 Gi1/0/2 9216" > "$FAKE_ESXI/cdp"
    run onhost -I vmk1 "$PEER"
    assert_status 0
    ! grep -q '^finding:' <<<"$output" || flunk "$output"
}

@test "read-only: what is not known is said, never guessed" {
    rm -f "$FAKE_ESXI/cdp" "$FAKE_ESXI/vsish_node"
    echo nothing > "$FAKE_ESXI/vsish_node"           # neither node answers
    run onhost -V -I vmk1 "$PEER"
    assert_status 0
    assert_contains "leaves by: unknown"
    assert_contains "not announced"
    assert_contains "the uplink used now is unknown"
    # no vsish, no vim-cmd on the host at all
    mkdir -p "$BATS_TEST_TMPDIR/only"
    ln -sf "$ESXDIAG_ROOT/test/lib/fake-esxcli" "$BATS_TEST_TMPDIR/only/esxcli"
    run env PATH="$BATS_TEST_TMPDIR/only:/usr/sbin:/usr/bin:/sbin:/bin" "$MTU" -J -c 2 -i 0.2 -W 1 -I vmk1 "$PEER"
    assert_status 0
    [[ "$(json_get 'd["team"]["not_read"]' <<<"$output")" == *"no vim-cmd"*"no vsish"* ]] || flunk "$output"
    [ "$(json_get 'd["team"]["current_uplink"]' <<<"$output")" = None ] || flunk "$output"
    # esxcli refusing the policy: said, the rest still read
    echo schedTeamUplink > "$FAKE_ESXI/vsish_node"
    run env FAKE_ESXCLI_SICK=error FAKE_ESXCLI_SICK_ON='*failover get' PATH="$FAKEBIN:$PATH" "$MTU" -V -c 2 -i 0.2 -W 1 -I vmk1 "$PEER"
    assert_status 0
    assert_contains "the failover policy was not read"
    assert_contains "Error: something broke"
}

@test "read-only: the bad uplink carries the traffic now, and a vmk on a distributed switch" {
    echo "vmk1 vmnic1" > "$FAKE_ESXI/team_uplink"
    run onhost -I vmk1 "$PEER"
    assert_status 1
    assert_contains "finding: jumbo frames fail now: vmk1 leaves by vmnic1 (switch01 Gi1/0/2 at MTU 1500"
    rm -f "$FAKE_ESXI/team_uplink"
    sed -i 's/^vmk1 .*/vmk1 DvsPortset-0 vMotion vmotion 9000 00:50:56:6a:1b:2c/' "$FAKE_ESXI/interfaces"
    run onhost -V -I vmk1 "$PEER"
    assert_status 0
    assert_contains "distributed switch"
}
