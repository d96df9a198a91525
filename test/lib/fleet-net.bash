# Fleet test bench: N "ESXi hosts" as network namespaces on this machine, each with
# a management interface (Ansible reaches its own sshd there) and a "vMotion"
# interface (the address the fleet tests). Nothing leaves the machine.
#
#   ctl (c0) ---- [mgmt bridge in sw] ---- (m0) h1 .. hN         198.18.0.0/24
#                  [vmo bridge in sw] ---- (v0) h1 .. hN         198.19.0.0/24, 2001:db8:19::/64
#                  [vmo bridge] --(r0) R (r1)-- (v0) hR           198.19.1.0/24, 2001:db8:191::/64
# ctl is the controller (ansible-playbook runs in it), sw holds the two bridges and
# the bridge-family nft table, R is a router, hR (FLEET_ROUTED, optional) is the one
# host whose vMotion link goes through R. Only 198.18.0.0/15 and 2001:db8::/32.
# Names carry "esxfleet" and the caller's tag (make it unique per run, e.g. $$).
#
#   fleet_net_up TAG N [ROUTED]   build it (all links MTU 9000); sets FLEET_NS_* and
#                                 FLEET_N, FLEET_ROUTED
#   fleet_ns I / fleet_mgmt_ip I / fleet_test_ip I / fleet_test_ip6 I
#   fleet_fault_host_mtu I MTU    host I's vMotion interface (and its switch port) at MTU
#   fleet_fault_port_drop I MAX   host I's switch port drops IP packets over MAX bytes
#                                 silently (nft, bridge family), both directions
#   fleet_fault_router_pair I J   R forwards I<->J over a route of MTU 1500 and sends
#                                 frag-needed / Packet Too Big (J must be the routed host)
#   fleet_faults_clear            every fault above undone
#   fleet_own_netstack I          host I's vMotion link moves into a namespace of its own
#                                 (fleet_vmo_ns I, the "vmotion" netstack) as vmk1, with
#                                 its addresses and routes: in the host's namespace (the
#                                 default netstack) it no longer exists
#   fleet_own_netstack_undo I     back into the host's namespace as v0 (altname vmk1)
#   fleet_net_down                kill every process in the namespaces, delete them

fleet_ns() { echo "esxfleet-$FLEET_TAG-h$1"; }
fleet_mgmt_ip() { echo "198.18.0.$((10 + $1))"; }
fleet_test_ip() {
    if [ "$1" = "${FLEET_ROUTED:-}" ]; then echo "198.19.1.$((10 + $1))"; else echo "198.19.0.$((10 + $1))"; fi
}
fleet_test_ip6() {
    if [ "$1" = "${FLEET_ROUTED:-}" ]; then echo "2001:db8:191::$((10 + $1))"; else echo "2001:db8:19::$((10 + $1))"; fi
}

# _fleet_ns_add NAME: a namespace with lo up and no duplicate address detection
_fleet_ns_add() {
    ip netns add "$1" || return 1
    ip netns exec "$1" sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
    ip -n "$1" link set lo up
}

fleet_net_up() {
    FLEET_TAG=$1 FLEET_N=$2 FLEET_ROUTED=${3:-}
    FLEET_NS_SW=esxfleet-$FLEET_TAG-sw FLEET_NS_CTL=esxfleet-$FLEET_TAG-ctl FLEET_NS_R=esxfleet-$FLEET_TAG-r
    export FLEET_TAG FLEET_N FLEET_ROUTED FLEET_NS_SW FLEET_NS_CTL FLEET_NS_R
    if [ "$FLEET_N" -lt 2 ] || [ "$FLEET_N" -gt 100 ]; then echo "fleet_net_up: N=$FLEET_N (2..100)" >&2; return 1; fi
    local ns i
    for ns in "$FLEET_NS_SW" "$FLEET_NS_CTL" "$FLEET_NS_R"; do _fleet_ns_add "$ns" || return 1; done
    # the switch: two bridges, no addresses, no multicast snooping (IPv6 ND just floods)
    ip -n "$FLEET_NS_SW" link add mgmt type bridge mcast_snooping 0 || return 1
    ip -n "$FLEET_NS_SW" link add vmo mtu 9000 type bridge mcast_snooping 0 || return 1
    ip -n "$FLEET_NS_SW" link set mgmt up
    ip -n "$FLEET_NS_SW" link set vmo up
    # controller on the management bridge
    ip -n "$FLEET_NS_CTL" link add c0 type veth peer name pc netns "$FLEET_NS_SW" || return 1
    ip -n "$FLEET_NS_SW" link set pc master mgmt up
    ip -n "$FLEET_NS_CTL" addr add 198.18.0.1/24 dev c0
    ip -n "$FLEET_NS_CTL" link set c0 up
    # router R: r0 on the vMotion bridge, r1 to the routed host (if any)
    ip netns exec "$FLEET_NS_R" sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1 \
        net.ipv4.icmp_ratelimit=0 net.ipv6.icmp.ratelimit=0
    ip -n "$FLEET_NS_R" link add r0 mtu 9000 type veth peer name pr netns "$FLEET_NS_SW" mtu 9000 || return 1
    ip -n "$FLEET_NS_SW" link set pr master vmo up
    ip -n "$FLEET_NS_R" addr add 198.19.0.1/24 dev r0
    ip -n "$FLEET_NS_R" addr add 2001:db8:19::1/64 dev r0 nodad
    ip -n "$FLEET_NS_R" link set r0 up
    for i in $(seq 1 "$FLEET_N"); do
        ns=$(fleet_ns "$i")
        _fleet_ns_add "$ns" || return 1
        ip -n "$ns" link add m0 type veth peer name "pm$i" netns "$FLEET_NS_SW" || return 1
        ip -n "$FLEET_NS_SW" link set "pm$i" master mgmt up
        ip -n "$ns" addr add "$(fleet_mgmt_ip "$i")/24" dev m0
        ip -n "$ns" link set m0 up
        # the vMotion link: to R for the routed host, else to the bridge; the
        # route to the other subnet goes through R either way
        if [ "$i" = "$FLEET_ROUTED" ]; then
            ip -n "$ns" link add v0 mtu 9000 type veth peer name r1 netns "$FLEET_NS_R" mtu 9000 || return 1
            ip -n "$FLEET_NS_R" addr add 198.19.1.1/24 dev r1
            ip -n "$FLEET_NS_R" addr add 2001:db8:191::1/64 dev r1 nodad
            ip -n "$FLEET_NS_R" link set r1 up
            set -- 198.19.0.0/24 198.19.1.1 2001:db8:19::/64 2001:db8:191::1
        else
            ip -n "$ns" link add v0 mtu 9000 type veth peer name "pv$i" netns "$FLEET_NS_SW" mtu 9000 || return 1
            ip -n "$FLEET_NS_SW" link set "pv$i" master vmo up
            set -- 198.19.1.0/24 198.19.0.1 2001:db8:191::/64 2001:db8:19::1
        fi
        ip -n "$ns" addr add "$(fleet_test_ip "$i")/24" dev v0
        ip -n "$ns" addr add "$(fleet_test_ip6 "$i")/64" dev v0 nodad
        ip -n "$ns" link set v0 up
        ip -n "$ns" route add "$1" via "$2"
        ip -n "$ns" -6 route add "$3" via "$4"
    done
    fleet_faults_clear
}

fleet_fault_host_mtu() { # I MTU: the host's own interface and its switch port (equal
    # ends: a veth whose ends differ drops or fails with ENOBUFS, which no host does)
    ip -n "$(fleet_ns "$1")" link set v0 mtu "$2" && ip -n "$FLEET_NS_SW" link set "pv$1" mtu "$2"
}

fleet_fault_port_drop() { # I MAX
    ip netns exec "$FLEET_NS_SW" nft -f - <<NFT
add rule bridge esxfleet fw iifname "pv$1" ip length > $2 drop
add rule bridge esxfleet fw oifname "pv$1" ip length > $2 drop
add rule bridge esxfleet fw iifname "pv$1" ip6 length > $(($2 - 40)) drop
add rule bridge esxfleet fw oifname "pv$1" ip6 length > $(($2 - 40)) drop
NFT
}

fleet_fault_router_pair() { # I J: policy routes in R with a 1500 route MTU, both ways
    local a4 b4 a6 b6
    a4=$(fleet_test_ip "$1") b4=$(fleet_test_ip "$2") a6=$(fleet_test_ip6 "$1") b6=$(fleet_test_ip6 "$2")
    ip -n "$FLEET_NS_R" route add "$b4/32" dev r1 mtu 1500 table 100 &&
        ip -n "$FLEET_NS_R" route add "$a4/32" dev r0 mtu 1500 table 100 &&
        ip -n "$FLEET_NS_R" rule add from "$a4" to "$b4" table 100 &&
        ip -n "$FLEET_NS_R" rule add from "$b4" to "$a4" table 100 &&
        ip -n "$FLEET_NS_R" -6 route add "$b6/128" dev r1 mtu 1500 table 100 &&
        ip -n "$FLEET_NS_R" -6 route add "$a6/128" dev r0 mtu 1500 table 100 &&
        ip -n "$FLEET_NS_R" -6 rule add from "$a6" to "$b6" table 100 &&
        ip -n "$FLEET_NS_R" -6 rule add from "$b6" to "$a6" table 100
}

fleet_faults_clear() {
    local i
    for i in $(seq 1 "$FLEET_N"); do
        [ "$i" = "$FLEET_ROUTED" ] || fleet_fault_host_mtu "$i" 9000 || return 1
        ip -n "$(fleet_ns "$i")" route flush cache 2>/dev/null
    done
    ip netns exec "$FLEET_NS_SW" nft -f - <<'NFT' || return 1
table bridge esxfleet
delete table bridge esxfleet
table bridge esxfleet {
    chain fw { type filter hook forward priority 0; policy accept; }
}
NFT
    ip -n "$FLEET_NS_R" route flush table 100 2>/dev/null
    ip -n "$FLEET_NS_R" -6 route flush table 100 2>/dev/null
    while ip -n "$FLEET_NS_R" rule del table 100 2>/dev/null; do :; done
    while ip -n "$FLEET_NS_R" -6 rule del table 100 2>/dev/null; do :; done
    return 0
}

fleet_vmo_ns() { echo "esxfleet-$FLEET_TAG-h$1v"; }

# _fleet_vmo_addrs NS DEV I: host I's test addresses and the routes through R on DEV in NS
_fleet_vmo_addrs() {
    ip -n "$1" addr add "$(fleet_test_ip "$3")/24" dev "$2" || return 1
    ip -n "$1" addr add "$(fleet_test_ip6 "$3")/64" dev "$2" nodad || return 1
    ip -n "$1" link set "$2" up || return 1
    ip -n "$1" route add 198.19.1.0/24 via 198.19.0.1 || return 1
    ip -n "$1" -6 route add 2001:db8:191::/64 via 2001:db8:19::1
}

fleet_own_netstack() { # I (not the routed host)
    local ns v
    ns=$(fleet_ns "$1") v=$(fleet_vmo_ns "$1")
    _fleet_ns_add "$v" || return 1
    ip -n "$ns" link property del dev v0 altname vmk1 2>/dev/null
    ip -n "$ns" link set v0 netns "$v" || return 1
    ip -n "$v" link set v0 name vmk1 || return 1
    _fleet_vmo_addrs "$v" vmk1 "$1"
}

fleet_own_netstack_undo() { # I
    local ns v
    ns=$(fleet_ns "$1") v=$(fleet_vmo_ns "$1")
    if ip -n "$v" link show vmk1 >/dev/null 2>&1; then
        ip -n "$v" link set vmk1 down
        ip -n "$v" link set vmk1 netns "$ns" || return 1
        ip -n "$ns" link set vmk1 name v0 || return 1
        ip -n "$ns" link property add dev v0 altname vmk1 || return 1
        _fleet_vmo_addrs "$ns" v0 "$1" || return 1
    fi
    _fleet_ns_kill "$v"
    ip netns del "$v" 2>/dev/null
    return 0
}

# every process in a namespace (sshd and its sessions, Ansible's ssh masters): killed
# before the namespace goes, or they keep its veths alive (bounded wait: 3 s)
_fleet_ns_kill() {
    local pids i
    pids=$(ip netns pids "$1" 2>/dev/null)
    [ -n "$pids" ] || return 0
    # shellcheck disable=SC2086
    kill $pids 2>/dev/null
    for i in $(seq 30); do
        [ -n "$(ip netns pids "$1" 2>/dev/null)" ] || return 0
        sleep 0.1
    done
    # shellcheck disable=SC2046
    kill -9 $(ip netns pids "$1" 2>/dev/null) 2>/dev/null
    return 0
}

fleet_net_down() {
    [ -n "${FLEET_TAG:-}" ] || return 0
    local ns
    for ns in $(ip netns list | awk '{print $1}' | grep -E "^esxfleet-$FLEET_TAG-(sw|ctl|r|h[0-9]+v?)\$"); do
        _fleet_ns_kill "$ns"
        ip netns del "$ns" 2>/dev/null
        rm -rf "/etc/netns/$ns"     # fleet-hosts.bash's passwd for the namespace
    done
    return 0
}
