# The uplink bench: a host whose vMotion vmk has a team of two uplinks, each a different
# port of one physical switch, one port left at MTU 1500 (it drops bigger frames and
# says nothing). Namespaces stand for ESXi's parts; nothing leaves this machine.
#
#   H ("vmotion" netstack)          S (the physical switch)          P (the peer host)
#     vmnic0 ------------------------ sp0 (Gi1/0/1) \
#     vmnic1 ------------------------ sp1 (Gi1/0/2)  br0 ---- spp ---- p0 198.18.4.2/24
#     vmk1 198.18.4.1/24: a macvlan on vmnic0, the uplink its team picks
# All links at MTU 9000; S's nft bridge rule drops IP packets over 1500 bytes to and
# from sp1. In H a vmk answers ARP only for its own address (arp_ignore=1), as a vmk
# does, so a reply to a vmk comes back by the uplink it left by.
# Only 198.18.4.0/24. Names carry "esxmtu", the caller's tag ($$) and "up".
#   upnet_up TAG      build; sets NS_H NS_S NS_P
#   upnet_state DIR   the stand-in host's files in DIR ($FAKE_ESXI) for this bench: vSwitch1
#                     with vmnic0 (active) and vmnic1 (standby), portgroup vMotion VLAN 0,
#                     vmk1 on netstack vmotion at 9000, CDP: switch01 Gi1/0/1 at 9216,
#                     Gi1/0/2 at 1500; the vmk's address
#   upnet_bad_port P  the port left at 1500: sp0, sp1 (the default) or none
#   upnet_down        delete the three namespaces (safe to call twice)
#   upnet_suite_up DIR    for a suite's setup_file (skips without root or ping): the bench, the stand-in esxcli linked
#                     as esxcli, vsish and vim-cmd in DIR (exported as FAKEBIN), its
#                     vmotion netstack the bench's H
#   upnet_host DIR    for a row's setup: a fresh stand-in host in DIR (exported as FAKE_ESXI)

upnet_up() {
    local tag=${1:-$$}
    NS_H=esxmtu-$tag-upH NS_S=esxmtu-$tag-upS NS_P=esxmtu-$tag-upP
    export NS_H NS_S NS_P
    ns_fresh "$NS_H" "$NS_S" "$NS_P" || return 1
    ip -n "$NS_S" link add br0 mtu 9000 type bridge || return 1
    local i
    for i in 0 1; do
        ip -n "$NS_H" link add vmnic$i mtu 9000 type veth peer name sp$i netns "$NS_S" mtu 9000 || return 1
        ip -n "$NS_S" link set sp$i master br0 && ip -n "$NS_S" link set sp$i up && ip -n "$NS_H" link set vmnic$i up ||
            return 1
    done
    ip -n "$NS_P" link add p0 mtu 9000 type veth peer name spp netns "$NS_S" mtu 9000 || return 1
    ip -n "$NS_S" link set spp master br0 && ip -n "$NS_S" link set spp up && ip -n "$NS_S" link set br0 up || return 1
    ip -n "$NS_P" link set p0 up && ip -n "$NS_P" addr add 198.18.4.2/24 dev p0 || return 1
    ip netns exec "$NS_H" sysctl -qw net.ipv4.conf.all.arp_ignore=1 net.ipv4.conf.all.arp_announce=2 \
        net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
    ip -n "$NS_H" link add vmk1 link vmnic0 mtu 9000 address 00:50:56:6a:1b:2c type macvlan mode bridge || return 1
    ip -n "$NS_H" link set vmk1 up && ip -n "$NS_H" addr add 198.18.4.1/24 dev vmk1 || return 1
    ip netns exec "$NS_S" nft -f - <<'NFT' || return 1
table bridge esxmtu_up {
    chain fw { type filter hook forward priority 0; policy accept; }
}
NFT
    upnet_bad_port sp1 || return 1
    # ready when P answers vmk1 (bounded: 30 tries of 0.1 s)
    for i in $(seq 30); do
        ip netns exec "$NS_H" ping -q -c 1 -W 0.1 -I vmk1 198.18.4.2 >/dev/null 2>&1 && return 0
    done
    echo "uplink bench: no answer from P after 30 tries" >&2
    return 1
}

upnet_bad_port() {
    ip netns exec "$NS_S" nft flush chain bridge esxmtu_up fw || return 1
    [ "$1" = none ] && return 0
    ip netns exec "$NS_S" nft add rule bridge esxmtu_up fw oifname "$1" ip length gt 1500 drop &&
        ip netns exec "$NS_S" nft add rule bridge esxmtu_up fw iifname "$1" ip length gt 1500 drop
}

upnet_state() {
    local d=$1
    mkdir -p "$d/vs_policy"
    printf '%s\n' "vSwitch0 vmnic2" "vSwitch1 vmnic0,vmnic1" > "$d/uplinks"
    printf '%s\n' "vmnic0 10000 Up on" "vmnic1 10000 Up on" "vmnic2 1000 Up on" > "$d/nics"
    printf '%s\n' "vmk0 vSwitch0 Management_Network defaultTcpipStack 1500 00:50:56:00:00:01" \
        "vmk1 vSwitch1 vMotion vmotion 9000 00:50:56:6a:1b:2c" > "$d/interfaces"
    printf '%s\n' "Management_Network vSwitch0 0" "vMotion vSwitch1 0" > "$d/portgroups"
    printf '%s\n' "active vmnic0" "standby vmnic1" > "$d/vs_policy/vSwitch1"
    printf '%s\n' "vmnic0 switch01 Gi1/0/1 9216" "vmnic1 switch01 Gi1/0/2 1500" > "$d/cdp"
    printf '%s\n' "vmk1 198.18.4.1 255.255.255.0" > "$d/ipv4"
}

upnet_suite_up() {
    [ "$(id -u)" = 0 ] || skip "needs root (namespaces)"
    command -v ping >/dev/null || skip "iputils ping missing (the stand-in esxcli runs it)"
    upnet_up "$$" || { upnet_down; return 1; }
    export FAKEBIN=$1
    mkdir -p "$FAKEBIN"
    local n
    for n in esxcli vsish vim-cmd; do ln -sf "$ESXDIAG_ROOT/test/lib/fake-esxcli" "$FAKEBIN/$n"; done
    export FAKE_ESXCLI_NETSTACK_vmotion=$NS_H
}

upnet_host() {
    [ -n "${NS_H:-}" ] || skip "no test bench (needs root)"
    export FAKE_ESXI=$1
    mkdir -p "$FAKE_ESXI"
    upnet_state "$FAKE_ESXI"
}

upnet_down() {
    ns_gone ${NS_H:-} ${NS_S:-} ${NS_P:-}
}
