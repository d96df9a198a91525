# esxmtu test bench: three network namespaces on this machine, nothing leaves it.
#
#   A (a0) <-> (r0) R (r1) <-> (b0) B        R forwards; nft table "esxmtu" in R
#   A 198.18.0.2/24  2001:db8:0::2/64   R 198.18.0.1 / 198.18.1.1, 2001:db8:0::1 / 2001:db8:1::1
#   B 198.18.1.2/24  2001:db8:1::2/64
# Only 198.18.0.0/15 and 2001:db8::/32. Names carry "esxmtu" and the caller's $$.
#   mtunet_up TAG            build (links at MTU 9000), sets NS_A NS_R NS_B
#   mtunet_mtu_a MTU         A's link (both veth ends)
#   mtunet_mtu_b MTU         the R-B link (both veth ends)
#   mtunet_reset             links back to 9000, nft rules and sysctls cleared
#   mtunet_down              delete all three namespaces (safe to call twice)

mtunet_up() {
    local tag=${1:-$$}
    NS_A=esxmtu-$tag-A NS_R=esxmtu-$tag-R NS_B=esxmtu-$tag-B
    export NS_A NS_R NS_B
    local ns
    for ns in $NS_A $NS_R $NS_B; do
        ip netns add "$ns" || return 1
        # no duplicate address detection: addresses usable at once
        ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
        ip -n "$ns" link set lo up
    done
    ip -n "$NS_A" link add a0 mtu 9000 type veth peer name r0 netns "$NS_R" mtu 9000 || return 1
    ip -n "$NS_R" link add r1 mtu 9000 type veth peer name b0 netns "$NS_B" mtu 9000 || return 1
    ip netns exec "$NS_R" sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
    ip -n "$NS_A" addr add 198.18.0.2/24 dev a0
    ip -n "$NS_A" addr add 2001:db8:0::2/64 dev a0 nodad
    ip -n "$NS_R" addr add 198.18.0.1/24 dev r0
    ip -n "$NS_R" addr add 2001:db8:0::1/64 dev r0 nodad
    ip -n "$NS_R" addr add 198.18.1.1/24 dev r1
    ip -n "$NS_R" addr add 2001:db8:1::1/64 dev r1 nodad
    ip -n "$NS_B" addr add 198.18.1.2/24 dev b0
    ip -n "$NS_B" addr add 2001:db8:1::2/64 dev b0 nodad
    ip -n "$NS_A" link set a0 up
    ip -n "$NS_R" link set r0 up
    ip -n "$NS_R" link set r1 up
    ip -n "$NS_B" link set b0 up
    ip -n "$NS_A" route add 198.18.0.0/15 via 198.18.0.1
    ip -n "$NS_A" -6 route add 2001:db8::/32 via 2001:db8:0::1
    ip -n "$NS_B" route add 198.18.0.0/15 via 198.18.1.1
    ip -n "$NS_B" -6 route add 2001:db8::/32 via 2001:db8:1::1
    mtunet_reset || return 1
    # ready when both families answer end to end (bounded: 3 s)
    local esxmtu=${ESXMTU:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/out/bin/esxmtu} i
    for i in $(seq 30); do
        ip netns exec "$NS_A" "$esxmtu" -q -m 1280 -c 1 -W 0.1 198.18.1.2 2001:db8:1::2 >/dev/null 2>&1 && return 0
    done
    echo "esxmtu test bench: no answer from B after 30 tries" >&2
    return 1
}

mtunet_mtu_a() {
    ip -n "$NS_A" link set a0 mtu "$1" && ip -n "$NS_R" link set r0 mtu "$1"
}

mtunet_mtu_b() {
    ip -n "$NS_R" link set r1 mtu "$1" && ip -n "$NS_B" link set b0 mtu "$1"
}

mtunet_reset() {
    mtunet_mtu_a 9000 && mtunet_mtu_b 9000 || return 1
    ip netns exec "$NS_R" nft flush ruleset
    ip netns exec "$NS_R" nft -f - <<'NFT'
table inet esxmtu {
    chain esxmtu_pre { type filter hook prerouting priority 0; policy accept; }
    chain esxmtu_fwd { type filter hook forward priority 0; policy accept; }
    chain esxmtu_out { type filter hook output priority 0; policy accept; }
}
NFT
    ip netns exec "$NS_B" sysctl -qw net.ipv4.icmp_echo_ignore_all=0 net.ipv6.icmp.echo_ignore_all=0
    # the router answers every TTL probe (Linux rate-limits time-exceeded per peer)
    ip netns exec "$NS_R" sysctl -qw net.ipv4.icmp_ratelimit=0 net.ipv6.icmp.ratelimit=0
    ip -n "$NS_A" route flush cache 2>/dev/null
    return 0
}

# a black hole in R: packets longer than $1 bytes are dropped on the way in, as a
# switch with a smaller MTU would (no ICMP error)
mtunet_blackhole() {
    ip netns exec "$NS_R" nft add rule inet esxmtu esxmtu_pre iifname r0 meta length gt "$1" drop
}
# R still has the small link but its frag-needed / Packet Too Big never leaves
mtunet_drop_toobig() {
    ip netns exec "$NS_R" nft add rule inet esxmtu esxmtu_out icmp type destination-unreachable icmp code frag-needed drop
    ip netns exec "$NS_R" nft add rule inet esxmtu esxmtu_out icmpv6 type packet-too-big drop
}
# random loss of $1 percent on the way from A to B
mtunet_loss() {
    ip netns exec "$NS_R" nft add rule inet esxmtu esxmtu_fwd iifname r0 numgen random mod 100 lt "$1" drop
}

mtunet_down() {
    local ns
    for ns in ${NS_A:-} ${NS_R:-} ${NS_B:-}; do
        ip netns del "$ns" 2>/dev/null
    done
    return 0
}
