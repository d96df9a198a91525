#!/usr/bin/env bats
# esxmtu --each-uplink on the uplink bench (test/lib/uplink-net.bash): for each uplink of
# vmk1's team a scratch portgroup pinned to it and a scratch vmk, which the stand-in
# esxcli makes as a real macvlan on that uplink's veth, so its probes cross that
# uplink's switch port. vmnic0's port passes 9000; vmnic1's drops anything over 1500
# without a word. esxmtu must name vmnic0 good and vmnic1 bad, refuse what it must,
# and leave nothing scratch behind, with the production portgroup's policy as before,
# whatever fails: each making and removing step failing, a hanging esxcli, a signal.
# Last, the fleet role's MTU step runs it through ansible-playbook and its report names
# the same.
# Namespaces are named esxmtu-<pid>-upH/upS/upP and deleted in teardown_file.
load ../lib/common
load ../lib/esxmtu-net
load ../lib/uplink-net

MTU=$BIN/esxmtu
PEER=198.18.4.2
TESTIP=198.18.4.50/24

setup_file() {
    upnet_suite_up "$BATS_FILE_TMPDIR/fakebin"
}

teardown_file() {
    upnet_down
}

setup() {
    upnet_host "$BATS_TEST_TMPDIR/esxi"
    policy_before=$(esx network vswitch standard portgroup policy failover get -p vMotion)
}

teardown() {
    fake_esxcli_reap
    upnet_bad_port sp1
    # a row that failed must not leave a scratch vmk in H for the next one
    ip -n "$NS_H" -o link show 2>/dev/null | awk -F': ' '$2 ~ /^vmk9[0-9]@/ { sub(/@.*/, "", $2); print $2 }' |
        while read -r l; do ip -n "$NS_H" link del "$l"; done
}

esx() { PATH="$FAKEBIN:$PATH" esxcli "$@"; }
each() { PATH="$FAKEBIN:$PATH" "$MTU" -c 2 -i 0.2 -W 1 -I vmk1 --each-uplink "$@"; }
json_get() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))' "$1"; }

# nothing scratch on the host (esxcli's view and the real interfaces), and the
# production portgroup's policy reads as before
assert_clean() {
    ! esx network vswitch standard portgroup list | grep -q esxmtu-scratch ||
        flunk "a scratch portgroup is left: $(esx network vswitch standard portgroup list)"
    ! esx network ip interface list | grep -q 'Portgroup: esxmtu-scratch' || flunk "a scratch vmk is left"
    ! ip -n "$NS_H" -o link show | grep -q 'vmk9[0-9]' || flunk "a scratch interface is left in H"
    [ "$(esx network vswitch standard portgroup policy failover get -p vMotion)" = "$policy_before" ] ||
        flunk "vMotion's policy changed"
    [ "$(esx network ip interface list | grep -c '^vmk')" = 2 ] || flunk "the vmks changed: $(esx network ip interface list)"
}

@test "each uplink: vmnic0 passes 9000, vmnic1 is a black hole above 1500; nothing is left" {
    run each --test-ip "$TESTIP" "$PEER"
    assert_status 1
    grep -Eq '^  vmnic0 +active +198\.18\.4\.2 +PASS +largest MTU passed 9000$' <<<"$output" || flunk "$output"
    grep -Eq '^  vmnic1 +standby +198\.18\.4\.2 +BLACK-HOLE +largest MTU passed 1500$' <<<"$output" || flunk "$output"
    assert_contains "finding: jumbo frames fail through vmnic1 (standby): 198.18.4.2 BLACK-HOLE, MTU 1500 is the largest that passed"
    assert_contains "cleanup: nothing with the prefix esxmtu-scratch- is left (listed again); the production portgroup's failover policy reads as before"
    # what was made: the pinned portgroups with the vmk's VLAN, the scratch vmk at its MTU in its netstack
    grep -q 'portgroup policy failover set -p esxmtu-scratch-vmnic1 --active-uplinks vmnic1 --load-balancing explicit' "$FAKE_ESXI/log" ||
        flunk "no pin to vmnic1"
    grep -q 'ip interface add -i vmk90 -p esxmtu-scratch-vmnic1 -m 9000 -N vmotion' "$FAKE_ESXI/log" || flunk "no scratch vmk"
    grep -q 'diag ping --netstack vmotion --interface vmk90 --ipv4 --df --size 8972' "$FAKE_ESXI/log" || flunk "no probe through it"
    # never a change to a production object
    ! grep -E ' (set|add|remove) .*-p (vMotion|Management)' "$FAKE_ESXI/log" || flunk "a production portgroup was changed"
    ! grep -E 'interface (remove|ipv4 set) -i vmk[01] ' "$FAKE_ESXI/log" || flunk "a production vmk was changed"
    assert_clean
}

@test "each uplink -J, and the pin is real: with the bad port moved to vmnic0, vmnic0 fails and vmnic1 passes" {
    upnet_bad_port sp0
    run each -J --test-ip "$TESTIP" "$PEER"
    assert_status 1
    [ "$(json_get '[(u["name"], u["tested"], [(p["verdict"], p["largest_mtu"]) for p in u["peers"]]) for u in d["each_uplink"]["uplinks"]]' <<<"$output")" = \
        "[('vmnic0', True, [('BLACK-HOLE', 1500)]), ('vmnic1', True, [('PASS', 9000)])]" ] || flunk "$output"
    [ "$(json_get 'd["each_uplink"]["cleanup"]' <<<"$output")" = \
        "{'clean': True, 'left': None, 'production_policy_unchanged': True, 'note': None}" ] || flunk "$output"
    [ "$(json_get 'd["each_uplink"]["scratch_vmk"], d["each_uplink"]["test_ip"]' <<<"$output")" = "('vmk90', '198.18.4.50')" ] ||
        flunk "$output"
    # the team's finding (CDP: vmnic1's port at 1500) and the one measured through vmnic0
    [ "$(json_get '[f.split(" (")[0] for f in d["findings"]]' <<<"$output")" = \
        "['jumbo frames fail after a failover to vmnic1', 'jumbo frames fail through vmnic0']" ] || flunk "$output"
    assert_clean
}

@test "each uplink refuses, before making anything: an answering, outside or own address, a vDS, IP hash, leftovers" {
    refused() {
        : > "$FAKE_ESXI/log"
        run each --test-ip "$1" "$PEER"
        assert_status 2
        assert_contains "esxmtu: --each-uplink: $2"
        ! grep -E ' (add|set|remove) ' "$FAKE_ESXI/log" || flunk "something was made: $(cat "$FAKE_ESXI/log")"
    }
    refused 198.18.4.2/24 "--test-ip 198.18.4.2 is in use: it answers a ping from vmk1"
    refused 198.18.5.50/24 "--test-ip 198.18.5.50/24 lies outside vmk1's subnet (198.18.4.1/24)"
    refused 198.18.4.1/24 "--test-ip 198.18.4.1 is vmk1's own address"
    refused 198.18.4.50/16 "--test-ip 198.18.4.50/16: vmk1 is 198.18.4.1/24: give the same prefix"
    refused 2001:db8:4::50/64 "--test-ip 2001:db8:4::50/64: not an IPv4 ADDRESS/PREFIX"
    echo "vmk0 198.18.4.50 255.255.255.0" >> "$FAKE_ESXI/ipv4"
    refused "$TESTIP" "--test-ip 198.18.4.50 is in use: vmk0 holds it"
    sed -i '/^vmk0 /d' "$FAKE_ESXI/ipv4"
    printf 'lb iphash\n' >> "$FAKE_ESXI/vs_policy/vSwitch1"
    refused "$TESTIP" "vmk1's team balances by IP hash"
    sed -i '/^lb /d' "$FAKE_ESXI/vs_policy/vSwitch1"
    echo "esxmtu-scratch-vmnic0 vSwitch1 0" >> "$FAKE_ESXI/portgroups"
    refused "$TESTIP" "scratch objects of an earlier run are on the host (esxmtu-scratch-vmnic0 (vSwitch1)): remove them with esxi/cleanup.sh first"
    sed -i '/^esxmtu-scratch/d' "$FAKE_ESXI/portgroups"
    # the portgroup's VLAN unknown: the scratch portgroup would guess it
    FAKE_ESXCLI_SICK=error FAKE_ESXCLI_SICK_ON="network vswitch standard portgroup list" \
        refused "$TESTIP" "the VLAN of portgroup vMotion on vSwitch1 was not read"
    sed -i 's/^vmk1 vSwitch1 /vmk1 DvsPortset-0 /' "$FAKE_ESXI/interfaces"
    refused "$TESTIP" "vmk1 is on the distributed switch DSwitch"
    run "$MTU" -I vmk1 --each-uplink "$PEER"
    assert_status 2
    assert_contains "--each-uplink needs --test-ip"
}

@test "each uplink: every making and removing step failing once leaves nothing scratch, the policy as before" {
    local step
    upnet_bad_port none           # every uplink passes: no size search, the row is about the cleanup
    for step in "network vswitch standard portgroup add" "network vswitch standard portgroup set" \
        "network vswitch standard portgroup policy failover set" "network ip interface add" \
        "network ip interface ipv4 set" "network ip interface remove" "network vswitch standard portgroup remove"; do
        rm -f "$FAKE_ESXI/sick_done"
        : > "$FAKE_ESXI/log"
        run env FAKE_ESXCLI_SICK=error FAKE_ESXCLI_SICK_ONCE=1 FAKE_ESXCLI_SICK_ON="$step" PATH="$FAKEBIN:$PATH" \
            "$MTU" -q -c 1 -W 1 -I vmk1 --each-uplink --test-ip "$TESTIP" "$PEER"
        [ -e "$FAKE_ESXI/sick_done" ] || flunk "$step: never failed"
        case $step in
        *remove) assert_status 1      # retried: the removal proved, the test went on (exit 1: CDP says vmnic1 is at 1500)
                 assert_contains "vmnic1     standby  198.18.4.2         PASS" ;;
        *) assert_status 1
           assert_contains "not tested: "
           assert_contains "failed: esxcli exited 1: Error: something broke" ;;
        esac
        assert_contains "cleanup: nothing with the prefix esxmtu-scratch- is left"
        assert_clean
    done
}

@test "each uplink: a hanging esxcli is killed at ESXDIAG_ESXCLI_SECS and what it made is removed" {
    upnet_bad_port none
    # the bound holds for every call, the listings too: 10 s leaves a loaded machine's
    # stand-in (a shell script, a few processes a call) room to answer them
    run env ESXDIAG_ESXCLI_SECS=10 FAKE_ESXCLI_SICK=hang FAKE_ESXCLI_SICK_ONCE=1 FAKE_ESXCLI_SICK_ON="network ip interface add" \
        PATH="$FAKEBIN:$PATH" "$MTU" -c 2 -i 0.2 -W 1 -I vmk1 --each-uplink --test-ip "$TESTIP" "$PEER"
    assert_status 1
    assert_contains "vmk add failed: "
    assert_contains "cleanup: nothing with the prefix esxmtu-scratch- is left"
    [ "$(fake_esxcli_strays)" = 0 ] || flunk "the hung esxcli still runs"
    assert_clean
}

@test "each uplink: SIGTERM while probing through the scratch vmk, SIGINT while making it: removed before the exit" {
    stop_when() {   # $1 signal, $2 what the log must show first, then the slow command's pattern
        : > "$FAKE_ESXI/log"
        # a background job starts with SIGINT ignored: env gives it back its default
        env --default-signal=INT FAKE_ESXCLI_SICK=slow FAKE_ESXCLI_SLOW_S=4 FAKE_ESXCLI_SICK_ON="$3" PATH="$FAKEBIN:$PATH" \
            "$MTU" -c 2 -i 0.2 -W 1 -I vmk1 --each-uplink --test-ip "$TESTIP" "$PEER" > "$BATS_TEST_TMPDIR/out" 2>&1 &
        local pid=$! i
        for i in $(seq 300); do grep -q -- "$2" "$FAKE_ESXI/log" && break; sleep 0.1; done
        grep -q -- "$2" "$FAKE_ESXI/log" || { kill "$pid"; flunk "never reached: $2"; }
        sleep 0.3
        kill -"$1" "$pid"
        for i in $(seq 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        ! kill -0 "$pid" 2>/dev/null || { kill -9 "$pid"; flunk "still running 60 s after SIG$1 (the removal is a few esxcli calls)"; }
        wait "$pid" || status=$?
        output=$(cat "$BATS_TEST_TMPDIR/out")
    }
    upnet_bad_port none
    status=0
    stop_when TERM "--interface vmk90" "network diag ping"
    [ "$status" = 1 ] || flunk "exit $status: $output"
    assert_contains "stopped by SIGTERM: the scratch objects were removed before exiting"
    assert_contains "cleanup: nothing with the prefix esxmtu-scratch- is left"
    assert_clean
    status=0
    stop_when INT "portgroup set -p esxmtu-scratch-vmnic0" "network vswitch standard portgroup set"
    [ "$status" = 1 ] || flunk "exit $status: $output"
    assert_contains "stopped by SIGINT"
    assert_clean
}

# The fleet role's own MTU step (roles/esxdiag/tasks/mtu.yml) run by a real
# ansible-playbook, connection local, on h1, the bench's stand-in host, with
# esxdiag_each_uplink_ip set; h2 is the bench's peer P (its address, not driven: its
# esxdiag_testing is false, so the report's h2 -> h1 pair is an ERROR). Then the role's
# record.yml and report.yml build report.json/report.txt through the fleet's filters
# from what the task registered.
@test "each uplink from the fleet role: mtu.yml's --each-uplink task, then the report names vmnic0 PASS and vmnic1 BLACK-HOLE to h2" {
    command -v ansible-playbook >/dev/null || flunk "ansible-playbook missing (make deps installs it)"
    local W=$BATS_TEST_TMPDIR/fleet
    mkdir -p "$W/home" "$W/tmp" "$W/kit/bin"
    ln -s "$MTU" "$W/kit/bin/esxmtu"
    cat > "$W/inventory.yml" <<INV
all:
  vars:
    ansible_connection: local
    ansible_python_interpreter: $(command -v python3)
    esxdiag_kit_dir: $W/kit
    esxdiag_remote_dir: $W/kit
    esxdiag_mtu_args: ["-c", "2", "-i", "0.2", "-W", "1"]
    esxdiag_discover: false
  children:
    esxdiag:
      hosts:
        h1:
          esxdiag_test_ip: 198.18.4.1
          esxdiag_vmk: vmk1
          esxdiag_each_uplink_ip: ${TESTIP}
          esxdiag_host_env:
            PATH: $FAKEBIN:$PATH
            FAKE_ESXI: $FAKE_ESXI
            FAKE_ESXCLI_NETSTACK_vmotion: $NS_H
        h2:
          esxdiag_test_ip: ${PEER}
INV
    cat > "$W/play.yml" <<'PLAY'
- name: The role's MTU step on h1 and each host's record, as validate.yml runs them
  hosts: esxdiag
  gather_facts: false
  environment: "{{ esxdiag_host_env | default({}) }}"
  vars:
    esxdiag_state: ready
    esxdiag_detail: ""
    esxdiag_interrupted: ""
    esxdiag_testing: "{{ inventory_hostname == 'h1' }}"
    esxdiag_ready: [h1, h2]
    esxdiag_kit_info: {version: bench}
    esxdiag_started: "{{ now(utc=true).strftime('%Y-%m-%dT%H:%M:%SZ') }}"
    esxdiag_t0: "{{ now(utc=true).timestamp() }}"
  tasks:
    - name: MTU
      ansible.builtin.import_role: {name: esxdiag.fleet.esxdiag, tasks_from: mtu}
    - name: Record
      ansible.builtin.import_role: {name: esxdiag.fleet.esxdiag, tasks_from: record}
- name: The report
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Report
      ansible.builtin.import_role: {name: esxdiag.fleet.esxdiag, tasks_from: report}
PLAY
    : > "$FAKE_ESXI/log"
    run timeout -k 5 120 env -C "$W" HOME="$W/home" ANSIBLE_HOME="$W/home/.ansible" ANSIBLE_LOCAL_TEMP="$W/tmp" \
        ANSIBLE_REMOTE_TEMP="$W/tmp" ANSIBLE_COLLECTIONS_PATH="$ESXDIAG_ROOT/esxi/fleet/collections" \
        ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0 \
        ansible-playbook -i inventory.yml play.yml -e "esxdiag_report_dir=$W/report" -e esxdiag_fail_on_error=false
    assert_status 0
    grep -q 'portgroup policy failover set -p esxmtu-scratch-vmnic1 --active-uplinks vmnic1' "$FAKE_ESXI/log" ||
        flunk "the role's esxmtu never pinned vmnic1: $output"
    local R=$W/report/report.json
    [ "$(jget "$R" '[(u["name"], u["tested"], [(h, p["verdict"], p["largest_mtu"]) for h, p in sorted(u["pairs"].items())])
        for u in d["hosts"][0]["team"]["uplinks"]]')" = "[('vmnic0', True, [('h2', 'PASS', 9000)]), ('vmnic1', True, [('h2', 'BLACK-HOLE', 1500)])]" ] ||
        flunk "$(jget "$R" 'd["hosts"][0]["team"]')"
    [ "$(jget "$R" '(d["hosts"][0]["team"]["cleanup"]["clean"], d["hosts"][0]["raw"]["esxmtu_each_uplink"]["each_uplink"]["test_ip"])')" = \
        "(True, '198.18.4.50')" ] || flunk "$(jget "$R" 'd["hosts"][0]["team"]')"
    grep -Eq '^    vmnic0 .* h2: PASS 9000$' "$W/report/report.txt" || flunk "$(cat "$W/report/report.txt")"
    grep -Eq '^    vmnic1 +standby +NIC 9000 +switch01 Gi1/0/2 +port 1500 +h2: BLACK-HOLE 1500$' "$W/report/report.txt" ||
        flunk "$(cat "$W/report/report.txt")"
    assert_clean
}
