#!/usr/bin/env bats
# The fleet's vCenter inventory (the collection's esxdiag.fleet.vcenter, esxi/fleet/
# collections/ansible_collections/esxdiag/fleet/plugins/inventory/vcenter.py) read
# by real Ansible through Debian's pyVmomi from govmomi's simulator (test/lib/
# vcsim-fleet.go), with the shipped example file esxi/fleet/inventory/vcenter.example.yml
# unchanged: what it gives each host, its options, ansible-vault, and every bad input
# stopping the playbook with one line before any host is touched. vcsim, a plain HTTP
# server and Ansible run in a namespace of this run's own with only loopback. The whole
# flow against the namespace hosts is in fleet.bats; the unit tests of the explanation
# module and of the throughput diagnosis against vCenter's uplink speeds
# (test/unit/fleet_explain_test.py, fleet_diagnosis_test.py) run here too, and those of
# the vDS health check (fleet_vds_health_test.py), whose read-only read and whose
# explicit option on a switch where it is on already are the last row.
load ../lib/common
load ../lib/fleet-net
load ../lib/fleet-vcenter

EXAMPLE=esxi/fleet/inventory/vcenter.example.yml

setup_file() {
    export W; W=$(mktemp -d)
    [ "$(id -u)" = 0 ] || return 0
    "$ESXDIAG_ROOT/build/deps.sh" vcsim >&2 || return 1
    # the bench's addresses (fleet-net.bash), h4 routed as in fleet.bats
    export FLEET_ROUTED=4 VC_NS="esxvc-$$"
    ip netns add "$VC_NS" || return 1
    ip -n "$VC_NS" link set lo up
    fleet_vcenter_cert "$W/vc" 127.0.0.1 || return 1
    fleet_vcenter_spec "$W/spec.json" 4 2:vmk_mtu=1500 || return 1
    # and a connected host whose name holds control characters (a C1 CSI and a
    # newline: XML carries those, not ESC itself)
    jq '.hosts += [.hosts[0] | .name = "h7\u009b31m\nh8" | .management = "198.18.0.203"
        | .ip = "198.19.0.203" | del(.ip6)]' "$W/spec.json" > "$W/spec7.json" && mv "$W/spec7.json" "$W/spec.json" || return 1
    fleet_vcenter_up "$VC_NS" 127.0.0.1:8443 "$W/spec.json" "$W/vc" || return 1
    # not a vCenter: a plain HTTP server
    mkdir -p "$W/www" "$W/home" "$W/tmp"
    ip netns exec "$VC_NS" /usr/bin/python3 -m http.server 8080 --bind 127.0.0.1 -d "$W/www" > /dev/null 2>&1 &
    wait_port 8080 "$VC_NS"
    # a peer that takes the connection and never answers (the kernel completes the
    # handshake from the backlog; nothing accepts): bounded at 120 s by itself
    ip netns exec "$VC_NS" /usr/bin/python3 -c 'import socket, time
s = socket.socket(); s.bind(("127.0.0.1", 8444)); s.listen(8); time.sleep(120)' &
    wait_port 8444 "$VC_NS"
    # a peer that writes a line to connections.log for each connection it takes
    # (and closes it): proves that nothing connected; gone after 600 s by itself
    : > "$W/connections.log"
    ip netns exec "$VC_NS" /usr/bin/python3 -c 'import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 8445)); s.listen(8); s.settimeout(600)
while True:
    c, a = s.accept(); open(sys.argv[1], "a").write("connection from %s:%d\n" % a); c.close()' "$W/connections.log" &
    wait_port 8445 "$VC_NS"
}

teardown_file() {
    [ -n "${W:-}" ] && fleet_vcenter_down "$W/vc"
    if [ -n "${VC_NS:-}" ]; then
        ip netns pids "$VC_NS" 2>/dev/null | xargs -r kill -9 2>/dev/null
        ip netns del "$VC_NS" 2>/dev/null
    fi
    [ -n "${W:-}" ] && rm -rf "$W"
    return 0
}

setup() {
    case $BATS_TEST_DESCRIPTION in fleet_explain:* | fleet_diagnosis:* | fleet_vds_health:*) return 0 ;; esac
    [ -n "${VC_NS:-}" ] || skip "needs root (a namespace for vcsim)"
    fleet_vcenter_login "$W/spec.json" 127.0.0.1 8443
    export SSL_CERT_FILE=$W/vc/cert.pem
    unset VMWARE_VALIDATE_CERTS
    : > "$W/connections.log"
    cd "$ESXDIAG_ROOT" || return 1
}

# in the run's namespace, with its own HOME and Ansible folders
vc() {
    ip netns exec "$VC_NS" env HOME="$W/home" ANSIBLE_LOCAL_TEMP="$W/tmp" ANSIBLE_HOME="$W/home/.ansible" \
        ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0 "$@"
}
inventory() { vc ansible-inventory --playbook-dir esxi/fleet -i "$@" --list; }

@test "fleet_explain: the explanation module's unit tests pass" {
    run /usr/bin/python3 "$ESXDIAG_ROOT/test/unit/fleet_explain_test.py"
    assert_status 0
    assert_contains "OK"
    [[ "$output" =~ Ran\ ([0-9]+)\ tests ]] && [ "${BASH_REMATCH[1]}" -ge 20 ] || flunk "too few tests: $output"
}

@test "fleet_latency: the unit tests of the latency check's pairs, roles and grid pass" {
    run /usr/bin/python3 "$ESXDIAG_ROOT/test/unit/fleet_latency_test.py"
    assert_status 0
    assert_contains "OK"
    [[ "$output" =~ Ran\ ([0-9]+)\ tests ]] && [ "${BASH_REMATCH[1]}" -ge 13 ] || flunk "too few tests: $output"
}

@test "fleet_uplinks: the unit tests of the per-host, vmk and uplink section (esxmtu's team and --each-uplink) pass" {
    run /usr/bin/python3 "$ESXDIAG_ROOT/test/unit/fleet_uplinks_test.py"
    assert_status 0
    assert_contains "OK"
    [[ "$output" =~ Ran\ ([0-9]+)\ tests ]] && [ "${BASH_REMATCH[1]}" -ge 4 ] || flunk "too few tests: $output"
}

@test "fleet_vds_health: the unit tests of the vDS health check's mapping to vmnics, findings and report pass" {
    run /usr/bin/python3 "$ESXDIAG_ROOT/test/unit/fleet_vds_health_test.py"
    assert_status 0
    assert_contains "OK"
    [[ "$output" =~ Ran\ ([0-9]+)\ tests ]] && [ "${BASH_REMATCH[1]}" -ge 13 ] || flunk "too few tests: $output"
}

@test "fleet_diagnosis: the unit tests of each throughput pair's diagnosis and share of its link pass" {
    run /usr/bin/python3 "$ESXDIAG_ROOT/test/unit/fleet_diagnosis_test.py"
    assert_status 0
    assert_contains "OK"
    [[ "$output" =~ Ran\ ([0-9]+)\ tests ]] && [ "${BASH_REMATCH[1]}" -ge 19 ] || flunk "too few tests: $output"
}

@test "vcenter inventory: the example file unchanged, only VMWARE_*: every connected host in esxdiag with its management address, vMotion vmk, addresses, netstack and MTUs" {
    inventory "$EXAMPLE" > "$W/inv.json" 2> "$W/inv.err" || flunk "$(cat "$W/inv.err")"
    run jq -c '.esxdiag.hosts' "$W/inv.json"
    [ "$output" = '["h1","h2","h3","h4"]' ] || flunk "group esxdiag: $output"
    run jq -r '._meta.hostvars | to_entries[] | .value | [.ansible_host, .esxdiag_test_ip, .esxdiag_test_ip6,
        .esxdiag_vmk, .esxdiag_netstack, .esxdiag_config.vmk_mtu, .esxdiag_config.chosen_by,
        .esxdiag_config.switch.type, .esxdiag_config.switch.name, .esxdiag_config.switch.mtu,
        (.esxdiag_config.uplinks | map("\(.device)@\(.speed_mb)") | join(",")), .esxdiag_config.portgroup,
        .esxdiag_config.cluster, .esxdiag_config.datacenter, .esxdiag_config.management_vmk] | map(tostring) | join(" ")' "$W/inv.json"
    local i want=() net stack how sw up pg
    for i in 1 2 3 4; do
        stack=vmotion how="vmotion netstack" sw="standard vSwitch1" up=vmnic1@10000 pg=vMotion
        [ "$i" = 3 ] && stack=defaultTcpipStack how="vMotion service"
        [ "$i" -ge 3 ] && sw="distributed dvs-vmotion" up=vmnic1@10000,vmnic2@10000 pg=vMotion-dv
        want+=("$(fleet_mgmt_ip "$i") $(fleet_test_ip "$i") $(fleet_test_ip6 "$i") vmk1 $stack $([ "$i" = 2 ] && echo 1500 || echo 9000) $how $sw 9000 $up $pg vmotion-lab Lab vmk0")
    done
    [ "$output" = "$(printf '%s\n' "${want[@]}")" ] || flunk "hostvars (want, got): $(diff <(printf '%s\n' "${want[@]}") <(echo "$output"))"
    # the hosts left out, each with its reason, and a summary; nothing else on stderr
    # (a name with control characters is left out, printed escaped)
    [ "$(cat "$W/inv.err")" = "esxdiag_vcenter: h5 left out: in maintenance mode
esxdiag_vcenter: h6 left out: not connected (vCenter says disconnected)
esxdiag_vcenter: h7\\x9b31m\\nh8 left out: its name holds control characters
esxdiag_vcenter: 4 hosts from vCenter 127.0.0.1:8443 in group esxdiag, 3 left out" ] || flunk "stderr: $(cat "$W/inv.err")"
    # the hosts get the settings ESXi needs from the folder's group_vars
    [ "$(jq -r '._meta.hostvars.h1 | "\(.ansible_user) \(.ansible_python_interpreter) \(.ansible_pipelining)"' "$W/inv.json")" = "root /bin/python true" ] ||
        flunk "group_vars/esxdiag.yml not applied: $(jq -c '._meta.hostvars.h1' "$W/inv.json")"
}

@test "vcenter inventory: the collection installed offline, the example file lists the hosts from any directory without --playbook-dir; the earlier name esxdiag_vcenter still works in a checkout" {
    "$ESXDIAG_ROOT/build/dist-fleet.sh" "$(sed -n 's/^VERSION *:= *//p' Makefile)" > "$W/coll.out" 2>&1 || flunk "$(cat "$W/coll.out")"
    # in the run's namespace: loopback only, so the install cannot reach a network
    run vc ansible-galaxy collection install --offline -p "$W/coll" dist/esxdiag-fleet-*.tar.gz
    assert_status 0
    mkdir -p "$W/elsewhere"
    (cd "$W/elsewhere" && ANSIBLE_COLLECTIONS_PATH="$W/coll" vc ansible-inventory -i "$ESXDIAG_ROOT/$EXAMPLE" --list) \
        > "$W/inv.json" 2> "$W/inv.err" || flunk "$(cat "$W/inv.err")"
    [ "$(jq -c '.esxdiag.hosts' "$W/inv.json")" = '["h1","h2","h3","h4"]' ] || flunk "$(cat "$W/inv.json" "$W/inv.err")"
    [ "$(tail -n 1 "$W/inv.err")" = "esxdiag_vcenter: 4 hosts from vCenter 127.0.0.1:8443 in group esxdiag, 3 left out" ] ||
        flunk "stderr: $(cat "$W/inv.err")"
    # an inventory written for the plugin's earlier name, in the checkout
    sed 's/^plugin: esxdiag.fleet.vcenter$/plugin: esxdiag_vcenter/' "$EXAMPLE" > esxi/fleet/inventory/old-name.$$.yml
    inventory esxi/fleet/inventory/old-name.$$.yml > "$W/inv-old.json" 2> "$W/inv.err"
    rc=$?
    rm -f esxi/fleet/inventory/old-name.$$.yml
    [ "$rc" = 0 ] || flunk "$(cat "$W/inv.err")"
    [ "$(jq -c '.esxdiag.hosts' "$W/inv-old.json")" = '["h1","h2","h3","h4"]' ] || flunk "$(cat "$W/inv-old.json")"
}

@test "vcenter inventory: the password is nowhere in what Ansible prints or gives the hosts, even at -vvvv" {
    run vc ansible-inventory --playbook-dir esxi/fleet -i "$EXAMPLE" --list -vvvv
    assert_status 0
    assert_contains '"h4"'
    [[ "$output" != *"$VMWARE_PASSWORD"* ]] || flunk "the password is printed"
    [[ "$output" != *"${VMWARE_PASSWORD% *}"* ]] || flunk "part of the password is printed"
}

@test "vcenter inventory: ca_file, datacenter and cluster filter, another group; validate_certs false" {
    cp "$EXAMPLE" "$W/filtered.yml"
    printf 'ca_file: %s\ndatacenters: [Lab]\nclusters: [vmotion-lab]\ngroup: vmo\n' "$W/vc/cert.pem" >> "$W/filtered.yml"
    unset SSL_CERT_FILE
    inventory "$W/filtered.yml" > "$W/inv.json" 2> "$W/inv.err" || flunk "$(cat "$W/inv.err")"
    [ "$(jq -c '[.vmo.hosts, .esxdiag]' "$W/inv.json")" = '[["h1","h2","h3","h4"],null]' ] || flunk "$(cat "$W/inv.json")"
    # no CA at all: refused while validate_certs is on (the default), read once it is off
    run inventory "$EXAMPLE"
    assert_status 2
    VMWARE_VALIDATE_CERTS=false run inventory "$EXAMPLE"
    assert_status 0
    assert_contains '"h3"'
}

@test "vcenter inventory: the password from ansible-vault, inline or the whole file" {
    echo "vault-$$" > "$W/vault-pass"
    local enc
    enc=$(vc ansible-vault encrypt_string --vault-password-file "$W/vault-pass" --name password "$VMWARE_PASSWORD") ||
        flunk "encrypt_string: $enc"
    { cat "$EXAMPLE"; echo "hostname: 127.0.0.1"; echo "port: 8443"; echo "username: $VMWARE_USER"; echo "$enc"; } > "$W/vaulted.yml"
    unset VMWARE_PASSWORD VMWARE_HOST VMWARE_PORT VMWARE_USER
    run inventory "$W/vaulted.yml" --vault-password-file "$W/vault-pass"
    assert_status 0
    assert_contains '"h4"'
    cp "$W/vaulted.yml" "$W/whole.yml"
    vc ansible-vault encrypt --vault-password-file "$W/vault-pass" "$W/whole.yml" > /dev/null || flunk "ansible-vault encrypt"
    head -c 14 "$W/whole.yml" | grep -q '^\$ANSIBLE_VAULT' || flunk "not encrypted"
    run inventory "$W/whole.yml" --vault-password-file "$W/vault-pass"
    assert_status 0
    assert_contains '"h4"'
}

# bad_input WANT INVENTORY: ansible-playbook stops with exit 2 and exactly the line WANT
# (no play started, so no host was touched); a hang is cut at 120 s
bad_input() {
    run timeout -k 5 120 ip netns exec "$VC_NS" env HOME="$W/home" ANSIBLE_LOCAL_TEMP="$W/tmp" \
        ANSIBLE_HOME="$W/home/.ansible" ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0 \
        ansible-playbook -i "$2" esxi/fleet/validate.yml -e esxdiag_kit=dist/esxdiag-0.1.0-x86_64.tar.gz
    [ "$status" = 2 ] || flunk "exit $status: $output"
    [ "$output" = "$1" ] || flunk "output (want, got): $1
$output"
}

@test "vcenter bad input: wrong password" {
    VMWARE_PASSWORD=wrong bad_input "esxdiag_vcenter: vCenter 127.0.0.1:8443: login as esxdiag@vsphere.local refused: wrong user name or password (check username or VMWARE_USER, password or VMWARE_PASSWORD)" "$EXAMPLE"
}

@test "vcenter bad input: nothing listens at the address" {
    VMWARE_PORT=9 bad_input "esxdiag_vcenter: vCenter 127.0.0.1:9: connection refused (is that the vCenter's address and HTTPS port? VMWARE_HOST, VMWARE_PORT)" "$EXAMPLE"
}

@test "vcenter bad input: not a vCenter (a plain HTTP server)" {
    VMWARE_PORT=8080 bad_input "esxdiag_vcenter: vCenter 127.0.0.1:8080: not a vCenter: no TLS there (WRONG_VERSION_NUMBER; a plain HTTP server?) (check hostname and port, VMWARE_HOST and VMWARE_PORT)" "$EXAMPLE"
}

@test "vcenter bad input: a vCenter that never answers: timed out after the timeout option's seconds" {
    # without the bound it would wait until the peer's end, 120 s later, with another error
    { cat "$EXAMPLE"; echo "timeout: 2"; } > "$W/slow.yml"
    VMWARE_PORT=8444 bad_input "esxdiag_vcenter: vCenter 127.0.0.1:8444: no answer (timed out) (check the address and the network path to it)" "$W/slow.yml"
}

@test "vcenter bad input: a self-signed certificate with validation on" {
    unset SSL_CERT_FILE
    bad_input "esxdiag_vcenter: vCenter 127.0.0.1:8443: its certificate is not trusted: self-signed certificate (give the CA that signed it with ca_file, or set validate_certs: false to skip the check)" "$EXAMPLE"
}

@test "vcenter bad input: a cluster that does not exist, an empty cluster, a datacenter that does not exist" {
    { cat "$EXAMPLE"; echo "clusters: [vmotion-lab, nope]"; } > "$W/nope.yml"
    bad_input "esxdiag_vcenter: cluster 'nope' not found in vCenter 127.0.0.1:8443 (clusters there: spare, vmotion-lab)" "$W/nope.yml"
    { cat "$EXAMPLE"; echo "clusters: [spare]"; } > "$W/spare.yml"
    bad_input "esxdiag_vcenter: cluster 'spare' in datacenter Lab has no hosts (name the cluster whose hosts to test)" "$W/spare.yml"
    { cat "$EXAMPLE"; echo "datacenters: [Elsewhere]"; } > "$W/dc.yml"
    bad_input "esxdiag_vcenter: datacenter 'Elsewhere' not found in vCenter 127.0.0.1:8443 (datacenters there: Lab)" "$W/dc.yml"
}

@test "vcenter bad input: no vCenter or no password given" {
    unset VMWARE_HOST
    bad_input "esxdiag_vcenter: no vCenter given: set hostname in $ESXDIAG_ROOT/$EXAMPLE, or VMWARE_HOST" "$EXAMPLE"
    fleet_vcenter_login "$W/spec.json" 127.0.0.1 8443
    unset VMWARE_PASSWORD
    bad_input "esxdiag_vcenter: no password given: set password in $ESXDIAG_ROOT/$EXAMPLE, or VMWARE_PASSWORD" "$EXAMPLE"
}

# bad_option WANT OPTION-LINE: ansible-inventory on the example file plus OPTION-LINE
# exits 2 with exactly the line WANT, and nothing connected to port 8445's peer
bad_option() {
    { cat "$EXAMPLE"; printf '%s\n' "$2"; } > "$W/opt.yml"
    run inventory "$W/opt.yml"
    [ ! -s "$W/connections.log" ] || flunk "$2: it connected ($(cat "$W/connections.log")): $output"
    [ "$status" = 2 ] || flunk "$2: exit $status: $output"
    [ "$output" = "esxdiag_vcenter: $1" ] || flunk "$2: output (want, got): esxdiag_vcenter: $1
$output"
}

@test "vcenter bad input: validate_certs not a boolean (maybe, ture, VMWARE_VALIDATE_CERTS=nope, VMWARE_VALIDATE_CERTS=) is refused before any connection" {
    # the port's peer logs every connection: a typo read as false would connect there
    unset SSL_CERT_FILE
    export VMWARE_PORT=8445
    local why="not a boolean (true or false; yes/no, on/off, 1/0 also do)"
    bad_option "validate_certs 'maybe': $why (set validate_certs in $W/opt.yml, or VMWARE_VALIDATE_CERTS)" "validate_certs: maybe"
    bad_option "validate_certs 'ture': $why (set validate_certs in $W/opt.yml, or VMWARE_VALIDATE_CERTS)" "validate_certs: ture"
    VMWARE_VALIDATE_CERTS=nope bad_option "validate_certs 'nope': $why (set validate_certs in $W/opt.yml, or VMWARE_VALIDATE_CERTS)" ""
    VMWARE_VALIDATE_CERTS= bad_option "validate_certs '': $why (set validate_certs in $W/opt.yml, or VMWARE_VALIDATE_CERTS)" ""
    # the peer does log a connection (bounded: 5 s)
    ip netns exec "$VC_NS" bash -c 'exec 3<>/dev/tcp/127.0.0.1/8445' || flunk "no peer on 8445"
    local i
    for i in $(seq 50); do [ -s "$W/connections.log" ] && break; sleep 0.1; done
    [ -s "$W/connections.log" ] || flunk "the peer logs no connection"
}

@test "vcenter bad input: ca_file a FIFO (it would hang the read) or a directory" {
    mkfifo "$W/ca.fifo"
    bad_input "esxdiag_vcenter: ca_file '$W/ca.fifo': a FIFO (named pipe), not a regular file (give the PEM file of the CA) (set ca_file in $W/fifo.yml)" \
        "$(cat "$EXAMPLE" > "$W/fifo.yml"; echo "ca_file: $W/ca.fifo" >> "$W/fifo.yml"; echo "$W/fifo.yml")"
    bad_option "ca_file '$W': a directory, not a regular file (give the PEM file of the CA) (set ca_file in $W/opt.yml)" "ca_file: $W"
}

@test "vcenter bad input: an option of the wrong type or out of range (port, timeout, datacenters, group, password)" {
    local in="in $W/opt.yml"
    bad_option "port 'abc': not a whole number (set port $in, or VMWARE_PORT)" "port: abc"
    bad_option "port [1]: not a whole number (set port $in, or VMWARE_PORT)" "port: [1]"
    bad_option "port 12345678901234567890: out of range (1 to 65535) (set port $in, or VMWARE_PORT)" "port: 12345678901234567890"
    VMWARE_PORT=0 bad_option "port '0': out of range (1 to 65535) (set port $in, or VMWARE_PORT)" ""
    VMWARE_PORT= bad_option "port '': not a whole number (set port $in, or VMWARE_PORT)" ""
    bad_option "timeout '': not a whole number (set timeout $in)" "timeout: ''"
    bad_option "timeout -1: out of range (1 to 86400) (set timeout $in)" "timeout: -1"
    bad_option "timeout 0: out of range (1 to 86400) (set timeout $in)" "timeout: 0"
    bad_option "datacenters 5: not a list of names (quote a name that looks like a number) (set datacenters $in)" "datacenters: 5"
    bad_option "group ['a']: not a name (set group $in)" "group: [a]"
    # the password's value is never shown, not even a wrong one
    bad_option "password: not a string (quote it, or encrypt it with ansible-vault encrypt_string) (set password $in, or VMWARE_PASSWORD)" "password: [pw-$$]"
}

@test "vcenter vDS health check: read-only, the check off: every vmnic of h3 and h4 unknown, nothing guessed, nothing changed; esxdiag_vds_healthcheck_enable with the check on leaves it on" {
    fleet_vcenter_healthcheck "$VC_NS" 127.0.0.1 8443 "$W/spec.json" > "$W/hc.before"
    inventory "$EXAMPLE" > "$W/inv.json" 2> "$W/inv.err" || flunk "$(cat "$W/inv.err")"
    run jq -r '._meta.hostvars | to_entries[] | .key as $h | (.value.esxdiag_config.vds_health // [])[] |
        "\($h) \(.dvs) \(.check) \(.uplinks | map("\(.vmnic)=\(.port):\(.mtu)/\(.vlan)") | join(",")) \(.findings | length) \(.note)"' "$W/inv.json"
    [ "$output" = "h3 dvs-vmotion off vmnic1=120:unknown/unknown,vmnic2=121:unknown/unknown 0 health check off on dvs-vmotion: results unknown
h4 dvs-vmotion off vmnic1=130:unknown/unknown,vmnic2=131:unknown/unknown 0 health check off on dvs-vmotion: results unknown" ] ||
        flunk "vds_health: $output"
    [ "$(jq -c '[._meta.hostvars.h1.esxdiag_config.vds_health, ._meta.hostvars.h1.esxdiag_vcenter.hostname]' "$W/inv.json")" = '[[],"127.0.0.1"]' ] ||
        flunk "h1 (standard vSwitch): $(jq -c ._meta.hostvars.h1 "$W/inv.json")"
    [ "$(fleet_vcenter_healthcheck "$VC_NS" 127.0.0.1 8443 "$W/spec.json")" = "$(cat "$W/hc.before")" ] &&
        [ "$(cat "$W/hc.before")" = "dvs-vmotion off 1" ] || flunk "the read changed the config: $(cat "$W/hc.before")"
    ! grep -q '^vcsim-fleet: health check' "$W/vc/vcsim.log" || flunk "vCenter saw a change: $(cat "$W/vc/vcsim.log")"
    # on already (as an administrator left it): the option reads it and leaves it on,
    # through the role's tasks as the report play runs them (block, always)
    fleet_vcenter_healthcheck "$VC_NS" 127.0.0.1 8443 "$W/spec.json" on > /dev/null
    local rc=0
    printf '%s\n' '- hosts: localhost' '  gather_facts: false' '  tasks:' '    - block:' \
        '        - {ansible.builtin.import_role: {name: esxdiag.fleet.esxdiag, tasks_from: vds_health}}' \
        '        - {ansible.builtin.debug: {var: esxdiag_vds_run}}' '      always:' \
        '        - {ansible.builtin.import_role: {name: esxdiag.fleet.esxdiag, tasks_from: vds_restore}}' > "$W/vds.yml"
    vc env ANSIBLE_COLLECTIONS_PATH="$ESXDIAG_ROOT/esxi/fleet/collections" ansible-playbook -i "$EXAMPLE" "$W/vds.yml" \
        -e esxdiag_vds_healthcheck_enable=true -e esxdiag_vds_healthcheck_poll=1 > "$W/vds.out" 2>&1 || rc=$?
    local after; after=$(fleet_vcenter_healthcheck "$VC_NS" 127.0.0.1 8443 "$W/spec.json")
    fleet_vcenter_healthcheck "$VC_NS" 127.0.0.1 8443 "$W/spec.json" off > /dev/null
    [ "$rc" = 0 ] || flunk "playbook: $(tail -20 "$W/vds.out")"
    [ "$after" = "dvs-vmotion on 1" ] || flunk "not left on: $after"
    [ "$(grep -c '^vcsim-fleet: health check' "$W/vc/vcsim.log")" = 2 ] || flunk "changes: $(grep health "$W/vc/vcsim.log")"
    grep -q '"after": "on"' "$W/vds.out" && grep -q '"complete": true' "$W/vds.out" || flunk "$(cat "$W/vds.out")"
}
