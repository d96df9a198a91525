# A vCenter for the fleet tests: govmomi's simulator with the bench's hosts
# (test/lib/vcsim-fleet.go, built once into .cache/vcsim by build/deps.sh), serving
# HTTPS with a certificate made for the run, only on loopback or inside a test
# namespace. The inventory plugin (esxi/fleet/inventory_plugins/esxdiag_vcenter.py)
# reads it through pyVmomi as it would read a real vCenter.
#
#   fleet_vcenter_cert DIR IP       DIR/cert.pem + DIR/key.pem: self-signed, for IP
#   fleet_vcenter_spec OUT N [I:KEY=VALUE...]
#                                   the spec of hosts h1..hN as the bench has them
#                                   (fleet-net.bash's addresses; vmk1 on the vmotion
#                                   netstack at 9000; h1, h2 on vSwitch1, the others on
#                                   the distributed switch dvs-vmotion at 9000; h3's
#                                   vmk1 on the default netstack with the vMotion
#                                   service), then h(N+1) in maintenance mode and
#                                   h(N+2) disconnected; each I:KEY=VALUE changes host I
#                                   (a number for an MTU: 2:vmk_mtu=1500)
#   fleet_vcenter_up NS ADDR:PORT SPEC DIR
#                                   vcsim in namespace NS on ADDR:PORT with DIR's cert;
#                                   returns once it serves (bounded: 30 s)
#   fleet_vcenter_down DIR          stop it (and wait for it to go)
#   fleet_vcenter_healthcheck NS ADDR PORT SPEC [on|off]
#                                   the distributed switch's VLAN/MTU health check
#                                   config as vCenter has it, read through pyVmomi:
#                                   "dvs-vmotion on 1" (name, on/off, interval); with
#                                   on or off, first set so (UpdateDVSHealthCheckConfig_Task);
#                                   vcsim's log (DIR/vcsim.log) has a line
#                                   "vcsim-fleet: health check ..." for each change
#   fleet_vcenter_login SPEC ADDR [PORT]
#                                   export VMWARE_HOST, VMWARE_PORT, VMWARE_USER and
#                                   VMWARE_PASSWORD for it (exported, never on a command line)
#   fleet_vmk_names add|del         every bench host's vMotion interface v0 also
#                                   answers to vmk1, the name vCenter gives that vmk
#                                   (a Linux altname: esxmtu -I vmk1 binds to v0)
#   fleet_play_vcenter OUT [ARGS...]
#                                   the documented command with the vCenter inventory
#                                   (esxi/fleet/inventory/vcenter.example.yml as it is)
#                                   from the controller's namespace, plus the bench's
#                                   plumbing (fleet_bench_vars); all output in OUT, the
#                                   playbook's exit code returned (bound: 900 s); with
#                                   FLEET_COLLECTIONS set, the installed collection's
#                                   esxdiag.fleet.validate from outside the checkout
#   fleet_bench_vars DIR            DIR/bench-vars.yml (after fleet_inventory DIR): only
#                                   what the bench's stand-in hosts need beyond a real
#                                   ESXi (their folders, shell, PATH), no address: those
#                                   come from vCenter

FLEET_VCSIM=${FLEET_VCSIM:-$ESXDIAG_ROOT/.cache/vcsim/vcsim-fleet}

fleet_vcenter_cert() {
    mkdir -p "$1" || return 1
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=esxdiag-vcsim-$$" \
        -addext "subjectAltName=IP:$2" -addext "basicConstraints=critical,CA:TRUE" \
        -keyout "$1/key.pem" -out "$1/cert.pem" 2>/dev/null
}

fleet_vcenter_spec() {
    local out=$1 n=$2 i change host key value
    shift 2
    local hosts=()
    for i in $(seq 1 "$n"); do
        hosts+=("$(jq -nc --arg i "$i" --arg m "$(fleet_mgmt_ip "$i")" --arg a "$(fleet_test_ip "$i")" \
            --arg a6 "$(fleet_test_ip6 "$i")" '{name: "h\($i)", management: $m, vmk: "vmk1", ip: $a, ip6: $a6,
            vmk_mtu: 9000, netstack: "vmotion", service: false,
            switch: (if ($i | tonumber) <= 2 then "vss" else "dvs" end), vswitch: "vSwitch1", vswitch_mtu: 9000,
            uplinks: (if ($i | tonumber) <= 2 then ["vmnic1"] else ["vmnic1", "vmnic2"] end)}
            | if $i == "3" then .netstack = "defaultTcpipStack" | .service = true else . end')")
    done
    # two hosts the bench does not have: vCenter knows them, the inventory leaves them out
    hosts+=("$(jq -nc --arg n "h$((n + 1))" '{name: $n, management: "198.18.0.201", vmk: "vmk1",
        ip: "198.19.0.201", vmk_mtu: 9000, netstack: "vmotion", switch: "dvs", uplinks: ["vmnic1"], maintenance: true}')")
    hosts+=("$(jq -nc --arg n "h$((n + 2))" '{name: $n, management: "198.18.0.202", vmk: "vmk1",
        ip: "198.19.0.202", vmk_mtu: 9000, netstack: "vmotion", switch: "dvs", uplinks: ["vmnic1"],
        connection: "disconnected"}')")
    for change in "$@"; do
        host=$((${change%%:*} - 1)) key=${change#*:} key=${key%%=*} value=${change#*=}
        hosts[host]=$(jq -c --arg k "$key" --arg v "$value" \
            '.[$k] = ($v | if test("^[0-9]+$") then tonumber elif . == "true" then true elif . == "false" then false else . end)' \
            <<<"${hosts[host]}")
    done
    printf '%s\n' "${hosts[@]}" | jq -s --arg pw "vc-$$-$RANDOM pass" '{user: "esxdiag@vsphere.local", password: $pw,
        datacenter: "Lab", cluster: "vmotion-lab", empty_clusters: ["spare"], dvs: "dvs-vmotion", dvs_mtu: 9000,
        dvportgroup: "vMotion-dv", hosts: .}' > "$out"
}

fleet_vcenter_up() {
    local ns=$1 listen=$2 spec=$3 dir=$4 i
    [ -x "$FLEET_VCSIM" ] || { echo "fleet: no $FLEET_VCSIM (run build/deps.sh)" >&2; return 1; }
    ip netns exec "$ns" "$FLEET_VCSIM" -spec "$spec" -listen "$listen" -cert "$dir/cert.pem" \
        -key "$dir/key.pem" > "$dir/vcsim.log" 2>&1 &
    echo $! > "$dir/vcsim.pid"
    # serving within 30 s (bounded; it takes about 0.2 s)
    for i in $(seq 300); do
        grep -q '^vcsim-fleet: listening on ' "$dir/vcsim.log" && return 0
        kill -0 "$(cat "$dir/vcsim.pid")" 2>/dev/null || break
        sleep 0.1
    done
    echo "fleet: vcsim did not start: $(cat "$dir/vcsim.log")" >&2
    return 1
}

fleet_vcenter_down() {
    local pid i
    pid=$(cat "$1/vcsim.pid" 2>/dev/null) || return 0
    kill "$pid" 2>/dev/null
    # gone within 5 s (bounded; it stops at once on SIGTERM), else killed
    for i in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$1/vcsim.pid"
    return 0
}

fleet_vcenter_healthcheck() {
    ip netns exec "$1" /usr/bin/python3 - "$2" "$3" "$4" "${5:-}" <<'PY'
import json, ssl, sys
from pyVim.connect import Disconnect, SmartConnect
from pyVim.task import WaitForTask
from pyVmomi import vim
spec = json.load(open(sys.argv[3]))
si = SmartConnect(host=sys.argv[1], port=int(sys.argv[2]), user=spec['user'], pwd=spec['password'],
                  sslContext=ssl.create_default_context())
content = si.RetrieveContent()
view = content.viewManager.CreateContainerView(content.rootFolder, [vim.DistributedVirtualSwitch], True)
for d in view.view:
    if sys.argv[4]:
        WaitForTask(d.UpdateDVSHealthCheckConfig_Task([vim.dvs.VmwareDistributedVirtualSwitch.VlanMtuHealthCheckConfig(
            enable=sys.argv[4] == 'on', interval=1)]))
    for c in d.config.healthCheckConfig or []:
        if isinstance(c, vim.dvs.VmwareDistributedVirtualSwitch.VlanMtuHealthCheckConfig):
            print(d.name, 'on' if c.enable else 'off', c.interval)
Disconnect(si)
PY
}

fleet_vcenter_login() {
    VMWARE_HOST=$2 VMWARE_PORT=${3:-443}
    VMWARE_USER=$(jq -r .user "$1") VMWARE_PASSWORD=$(jq -r .password "$1")
    export VMWARE_HOST VMWARE_PORT VMWARE_USER VMWARE_PASSWORD
}

fleet_vmk_names() {
    local i
    for i in $(seq 1 "$FLEET_N"); do
        ip -n "$(fleet_ns "$i")" link property "$1" dev v0 altname vmk1 || return 1
    done
}

fleet_bench_vars() { # from fleet_inventory's file, less what vCenter gives; at host
    # level, so that they win over the inventory folder's group_vars/esxdiag.yml
    /usr/bin/python3 - "$1/inventory.yml" "$1/bench-vars.yml" <<'PY'
import json, sys, yaml
inv = yaml.safe_load(open(sys.argv[1]))['esxdiag']
hosts = {}
for name, hv in inv['hosts'].items():
    v = dict(inv.get('vars') or {}, **hv)
    for k in ('ansible_host', 'esxdiag_test_ip', 'esxdiag_test_ip6', 'esxdiag_vmk', 'esxdiag_netstack'):
        v.pop(k, None)
    hosts[name] = v
json.dump({'all': {'hosts': hosts}}, open(sys.argv[2], 'w'), indent=1)
PY
}

# fleet_play_vcenter OUT [ARGS...]: the documented command from the checkout, with the
# example vCenter inventory; with FLEET_COLLECTIONS set (a folder the collection
# esxdiag.fleet was installed into), the installed collection's playbook
# esxdiag.fleet.validate instead, run from $FLEET_DIR, its callbacks named as
# docs/fleet.md says
fleet_play_vcenter() {
    local out=$1
    shift
    if [ -n "${FLEET_COLLECTIONS:-}" ]; then
        # shellcheck disable=SC2046
        (cd "$FLEET_DIR" && timeout -k 10 900 ip netns exec "$FLEET_NS_CTL" env $(fleet_env "$FLEET_DIR") \
            ANSIBLE_COLLECTIONS_PATH="$FLEET_COLLECTIONS" \
            ANSIBLE_CALLBACKS_ENABLED=esxdiag.fleet.esxdiag_interrupt,esxdiag.fleet.esxdiag_report \
            ansible-playbook esxdiag.fleet.validate -i "$ESXDIAG_ROOT/esxi/fleet/inventory/vcenter.example.yml" \
            -i "$FLEET_DIR/bench-vars.yml" -e "esxdiag_kit=$FLEET_KIT" "$@") > "$out" 2>&1
        return
    fi
    # shellcheck disable=SC2046
    (cd "$ESXDIAG_ROOT" && timeout -k 10 900 ip netns exec "$FLEET_NS_CTL" env $(fleet_env "$FLEET_DIR") \
        ansible-playbook -i esxi/fleet/inventory/vcenter.example.yml -i "$FLEET_DIR/bench-vars.yml" \
        esxi/fleet/validate.yml -e "esxdiag_kit=$FLEET_KIT" "$@") > "$out" 2>&1
}
