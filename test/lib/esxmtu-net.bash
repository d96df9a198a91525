# esxmtu test bench: three network namespaces on this machine, nothing leaves it.
#
#   A (a0) <-> (r0) R (r1) <-> (b0) B        R forwards; nft table "esxmtu" in R
#   A 198.18.0.2/24  2001:db8:0::2/64   R 198.18.0.1 / 198.18.1.1, 2001:db8:0::1 / 2001:db8:1::1
#   B 198.18.1.2/24  2001:db8:1::2/64
# Only 198.18.0.0/15 and 2001:db8::/32. Names carry "esxmtu" and the caller's $$.
#   mtunet_up TAG            build (links at MTU 9000), sets NS_A NS_R NS_B
#   mtunet_mtu_a MTU         A's link (both veth ends)
#   mtunet_mtu_b MTU         the R-B link (both veth ends)
#   mtunet_reset             links back to 9000, nft rules and sysctls cleared, forger stopped
#   mtunet_down              delete all three namespaces (safe to call twice)
#   mtunet_veth_mismatch MTU only R's end of A's link (A stays 9000): ENOBUFS in A
#   mtunet_full_queue        A's interface queue takes nothing: ENOBUFS for every packet
#   mtunet_forge MODE [OPT]  a lying host in R (test/lib/icmp_forger.py on r0); FORGE_LOG
#   mtunet_forge_stop        stop it (mtunet_reset and mtunet_down do too)
#   mtunet_peers_b N         N more peers on B: 198.18.1.10.. and 2001:db8:1::10.. (printed,
#                            one a line: the IPv4 ones, then the IPv6 ones); mtunet_reset
#                            removes them
#   mtunet_blackhole_to DST SIZE   R drops packets to DST longer than SIZE (no ICMP)
#   mtunet_src_a ADDR DST    A gets a second IPv6 address ADDR and its route to DST picks
#                            it as the source; mtunet_reset removes both
#
# The vMotion netstack bench (a separate one; ESXi's netstacks stood in for by
# namespaces):
#   V (vmk1) <-> (sv) S: bridge br0 (sp) <-> (p0) P      S is a switch, not a router
#   V 198.18.3.1/24 2001:db8:3::1/64 (the "vmotion" netstack, holding the vMotion vmknic vmk1)
#   P 198.18.3.2/24 2001:db8:3::2/64 (the peer host's vMotion addresses); links at MTU 9000
#   vmonet_up TAG            build, sets NS_V NS_S NS_P
#   vmonet_reset             MTUs back to 9000, the switch's rules cleared, P answers
#   vmonet_port_blackhole N  the switch port towards P drops IP packets over N bytes
#                            (nft bridge rule: a port left at MTU N, no ICMP)
#   vmonet_silent_peer       P ignores echo requests
#   vmonet_down              delete all three (safe to call twice)

# ns_fresh NS...: each a new namespace, loopback up, no duplicate address detection
# (addresses usable at once)
ns_fresh() {
    local ns
    for ns in "$@"; do
        ip netns add "$ns" || return 1
        ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
        ip -n "$ns" link set lo up
    done
}

# ns_gone NS...: what still runs in each (started by these tests) killed, the
# namespace deleted; safe for names already gone
ns_gone() {
    local ns
    for ns in "$@"; do
        ip netns pids "$ns" 2>/dev/null | xargs -r kill 2>/dev/null
        ip netns del "$ns" 2>/dev/null
    done
    return 0
}

mtunet_up() {
    local tag=${1:-$$}
    NS_A=esxmtu-$tag-A NS_R=esxmtu-$tag-R NS_B=esxmtu-$tag-B
    export NS_A NS_R NS_B
    ns_fresh $NS_A $NS_R $NS_B || return 1
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
    mtunet_forge_stop
    tc -n "$NS_A" qdisc del dev a0 root 2>/dev/null || true
    ip -n "$NS_A" neigh flush dev a0 nud permanent 2>/dev/null || true
    mtunet_mtu_a 9000 && mtunet_mtu_b 9000 || return 1
    ip netns exec "$NS_R" nft flush ruleset
    ip netns exec "$NS_R" nft -f - <<'NFT'
table inet esxmtu {
    chain esxmtu_pre { type filter hook prerouting priority 0; policy accept; }
    chain esxmtu_fwd { type filter hook forward priority 0; policy accept; }
    chain esxmtu_out { type filter hook output priority 0; policy accept; }
}
NFT
    mtunet_peers_b_del
    mtunet_src_a_del
    ip netns exec "$NS_B" sysctl -qw net.ipv4.icmp_echo_ignore_all=0 net.ipv6.icmp.echo_ignore_all=0
    # the router answers every TTL probe (Linux rate-limits time-exceeded per peer)
    ip netns exec "$NS_R" sysctl -qw net.ipv4.icmp_ratelimit=0 net.ipv6.icmp.ratelimit=0
    # no earlier test's frag-needed / Packet Too Big left in A's path-MTU cache, which a
    # socket without PMTUDISC_PROBE would meet (IPv6's exceptions are flushed as listed
    # by "ip -6 route show cache")
    ip -n "$NS_A" route flush cache 2>/dev/null
    ip -n "$NS_A" -6 route flush cache 2>/dev/null
    return 0
}

# a black hole in R: packets longer than $1 bytes are dropped on the way in, as a
# switch with a smaller MTU would (no ICMP error)
mtunet_blackhole() {
    ip netns exec "$NS_R" nft add rule inet esxmtu esxmtu_pre iifname r0 meta length gt "$1" drop
}
# a black hole for one destination only: packets to $1 longer than $2 bytes are
# dropped in R (several peers behind R, each with its own largest size)
mtunet_blackhole_to() {
    local fam=ip
    [[ "$1" == *:* ]] && fam=ip6
    ip netns exec "$NS_R" nft add rule inet esxmtu esxmtu_pre iifname r0 $fam daddr "$1" meta length gt "$2" drop
}

# $1 more peers behind R: extra addresses on B's link (198.18.1.10.., 2001:db8:1::10..),
# printed one a line, IPv4 first. Usable at once (no DAD; R resolves them on demand).
mtunet_peers_b() {
    local i
    [ "$1" -ge 1 ] && [ "$1" -le 100 ] || { echo "mtunet_peers_b: 1..100 peers, not '$1'" >&2; return 1; }
    for i in $(seq 10 $((9 + $1))); do
        ip -n "$NS_B" addr add "198.18.1.$i/24" dev b0 || return 1
        ip -n "$NS_B" addr add "2001:db8:1::$i/64" dev b0 nodad || return 1
    done
    for i in $(seq 10 $((9 + $1))); do echo "198.18.1.$i"; done
    for i in $(seq 10 $((9 + $1))); do echo "2001:db8:1::$i"; done
}

# every address on B's link but its own two (and the link-local one): what
# mtunet_peers_b added, also by an earlier test
mtunet_peers_b_del() {
    local a
    for a in $(ip -n "$NS_B" -o addr show dev b0 2>/dev/null | awk '{print $4}'); do
        case $a in
        198.18.1.2/24 | 2001:db8:1::2/64 | fe80:*) ;;
        *) ip -n "$NS_B" addr del "$a" dev b0 ;;
        esac
    done
    return 0
}

mtunet_src_a() {
    ip -n "$NS_A" addr add "$1/64" dev a0 nodad &&
        ip -n "$NS_A" -6 route add "$2/128" via 2001:db8::1 src "$1"
}

# what mtunet_src_a added, also by an earlier test: A's routes with a source of their
# own and every IPv6 address on a0 but its own and the link-local one
mtunet_src_a_del() {
    local r a
    for r in $(ip -n "$NS_A" -6 route show 2>/dev/null | awk '/ src / { print $1 }'); do
        ip -n "$NS_A" -6 route del "$r"
    done
    for a in $(ip -n "$NS_A" -6 -o addr show dev a0 2>/dev/null | awk '{print $4}'); do
        case $a in
        2001:db8::2/64 | fe80:*) ;;
        *) ip -n "$NS_A" addr del "$a" dev a0 ;;
        esac
    done
    return 0
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

# A's veth at 9000, R's end at $1: the kernel refuses every bigger packet in A with
# ENOBUFS (a veth artefact, and what a vNIC whose far end is smaller looks like)
mtunet_veth_mismatch() {
    ip -n "$NS_R" link set r0 mtu "$1"
}

# a queue that takes nothing (pfifo limit 0) on A's link: every send is refused with
# ENOBUFS, as on a host whose vmnic queue is full. R's address is made permanent first
# (ARP and ND would be refused too, and unresolved probes wait instead of failing).
mtunet_full_queue() {
    local mac
    mac=$(ip -n "$NS_R" -br link show r0 | awk '{print $3}')
    ip -n "$NS_A" neigh replace 198.18.0.1 lladdr "$mac" dev a0 nud permanent &&
        ip -n "$NS_A" neigh replace 2001:db8::1 lladdr "$mac" dev a0 nud permanent &&
        tc -n "$NS_A" qdisc add dev a0 root pfifo limit 0
}

# a lying host on the path: icmp_forger.py in R reads what arrives on r0 (before R's
# nft rules) and answers echo requests longer than 1500 with forged ICMP ($1 = mode,
# then its options). Ready when it says so (bounded: 5 s); FORGE_LOG counts its lies.
mtunet_forge() {
    mtunet_forge_stop
    local log=${TMPDIR:-/tmp}/$NS_R.forger.log i
    : > "$log"
    ip netns exec "$NS_R" python3 "$(dirname "${BASH_SOURCE[0]}")/icmp_forger.py" r0 "$@" \
        --log "$log" --seconds 120 > "$log.out" 2>&1 &
    echo $! > "$log.pid"        # a file, so a later bats test (another process) can stop it
    FORGE_LOG=$log
    export FORGE_LOG
    for i in $(seq 50); do
        grep -q '^ready' "$log.out" 2>/dev/null && return 0
        kill -0 "$(cat "$log.pid")" 2>/dev/null || break
        sleep 0.1
    done
    echo "icmp forger did not start: $(cat "$log.out")" >&2
    return 1
}

mtunet_forge_stop() {
    local log=${TMPDIR:-/tmp}/${NS_R:-none}.forger.log pid
    if [ -f "$log.pid" ]; then
        pid=$(cat "$log.pid")
        kill "$pid" 2>/dev/null
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    fi
    rm -f "$log" "$log.out" "$log.pid"
    return 0
}

mtunet_down() {
    mtunet_forge_stop
    ns_gone ${NS_A:-} ${NS_R:-} ${NS_B:-}
}

vmonet_up() {
    local tag=${1:-$$}
    NS_V=esxmtu-$tag-V NS_S=esxmtu-$tag-S NS_P=esxmtu-$tag-P
    export NS_V NS_S NS_P
    ns_fresh $NS_V $NS_S $NS_P || return 1
    ip -n "$NS_V" link add vmk1 mtu 9000 type veth peer name sv netns "$NS_S" mtu 9000 || return 1
    ip -n "$NS_P" link add p0 mtu 9000 type veth peer name sp netns "$NS_S" mtu 9000 || return 1
    ip -n "$NS_S" link add br0 mtu 9000 type bridge || return 1
    ip -n "$NS_S" link set sv master br0 && ip -n "$NS_S" link set sp master br0 || return 1
    ip -n "$NS_V" addr add 198.18.3.1/24 dev vmk1
    ip -n "$NS_P" addr add 198.18.3.2/24 dev p0
    ip -n "$NS_V" addr add 2001:db8:3::1/64 dev vmk1 nodad
    ip -n "$NS_P" addr add 2001:db8:3::2/64 dev p0 nodad
    local l
    for l in "$NS_V vmk1" "$NS_S sv" "$NS_S sp" "$NS_S br0" "$NS_P p0"; do
        # shellcheck disable=SC2086  # namespace and link, two words
        ip -n ${l% *} link set ${l#* } up || return 1
    done
    vmonet_reset || return 1
    # ready when P answers through the switch (bounded: 3 s; bridge ports start forwarding at once
    # without STP)
    local esxmtu=${ESXMTU:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/out/bin/esxmtu} i
    for i in $(seq 30); do
        ip netns exec "$NS_V" "$esxmtu" -q -m 1280 -c 1 -W 0.1 198.18.3.2 2001:db8:3::2 >/dev/null 2>&1 && return 0
    done
    echo "vMotion netstack bench: no answer from P after 30 tries" >&2
    return 1
}

vmonet_reset() {
    ip -n "$NS_V" link set vmk1 mtu 9000 && ip -n "$NS_P" link set p0 mtu 9000 || return 1
    ip netns exec "$NS_S" nft flush ruleset
    ip netns exec "$NS_S" nft -f - <<'NFT'
table bridge esxmtu {
    chain esxmtu_fwd { type filter hook forward priority 0; policy accept; }
}
NFT
    ip netns exec "$NS_P" sysctl -qw net.ipv4.icmp_echo_ignore_all=0 net.ipv6.icmp.echo_ignore_all=0
}

vmonet_port_blackhole() {
    ip netns exec "$NS_S" nft add rule bridge esxmtu esxmtu_fwd oifname sp ip length gt "$1" drop
}

vmonet_silent_peer() {
    ip netns exec "$NS_P" sysctl -qw net.ipv4.icmp_echo_ignore_all=1 net.ipv6.icmp.echo_ignore_all=1
}

vmonet_down() {
    ns_gone ${NS_V:-} ${NS_S:-} ${NS_P:-}
}
