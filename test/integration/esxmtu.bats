#!/usr/bin/env bats
# esxmtu on a real three-namespace path built here (test/lib/esxmtu-net.bash):
#   A (a0) <-> R (router) <-> B      198.18.0.0/15 and 2001:db8::/32 only
# Every verdict is produced for real: MTUs on the veth links, nft rules in R
# (drop big packets, drop frag-needed / Packet Too Big, random loss), sysctls in B.
# Namespaces are named esxmtu-<pid>-A/R/B and deleted in teardown_file.
load ../lib/common
load ../lib/esxmtu-net

MTU=$BIN/esxmtu

setup_file() {
    [ "$(id -u)" = 0 ] || skip "needs root (namespaces, raw sockets)"
    export ESXMTU=$BIN/esxmtu
    mtunet_up "$$"
}

teardown_file() {
    mtunet_down
}

setup() {
    [ -n "${NS_A:-}" ] || skip "no test bench (needs root)"
    mtunet_reset
}

teardown() {
    [ -z "${NS_A:-}" ] || mtunet_forge_stop
}

# esxmtu inside A, short timeouts
inA() { ip netns exec "$NS_A" "$MTU" -W 0.3 "$@"; }
# the first line of output that names a peer
line_of() { grep -m1 "^$1 " <<<"$output"; }
# the output has exactly $1 lines that match the grep pattern $2
count_is() { [ "$(grep -c -- "$2" <<<"$output")" = "$1" ] || flunk "expected $1 lines matching '$2': $output"; }
# each line of stdin is ARGS|TEXT: esxmtu ARGS (in A: a name lookup there cannot leave
# the machine) must exit 2 with one line, "esxmtu: ...", that contains TEXT
one_line_errors() {
    local args want
    while IFS='|' read -r args want; do
        [ -n "$args" ] || continue
        run ip netns exec "$NS_A" "$MTU" -W 0.3 $args
        [ "$status" = 2 ] || flunk "'$args' exited $status: $output"
        [ "${#lines[@]}" = 1 ] || flunk "'$args' printed ${#lines[@]} lines: $output"
        [[ "$output" == esxmtu:* ]] || flunk "$output"
        assert_contains "$want"
    done
}
# syscall audit inside A (strace must run in the namespace, not around `ip netns exec`);
# --nobody: as user nobody, from a readable copy (the clone may be in a private folder)
audit_in_A() {
    if [ "$1" = --nobody ]; then
        shift
        audit_as_nobody ip netns exec "$NS_A" -- "$@"
        return
    fi
    ip netns exec "$NS_A" bash -c 'ESXDIAG_ROOT=$1; shift; source "$ESXDIAG_ROOT/test/lib/audit.bash";
        audit_syscalls "$@" && audit_enosys "$@"' _ "$ESXDIAG_ROOT" "$@"
}

@test "127.0.0.1 passes at 9000 with the size arithmetic, no namespace needed" {
    run "$MTU" -W 0.3 127.0.0.1
    assert_status 0
    assert_contains "MTU 9000 = 8972 data + 8 ICMP + 20 IPv4"
    assert_contains "127.0.0.1          PASS        3/3 full-size replies, 0% loss"
    assert_contains "summary: 1 of 1 peer passes (exit 0)"
}

@test "PASS at 9000 end to end, IPv4 and IPv6, exit 0" {
    run inA 198.18.1.2 2001:db8:1::2
    assert_status 0
    assert_contains "MTU 9000 = 8952 data + 8 ICMPv6 + 40 IPv6"
    [[ "$(line_of 198.18.1.2)" == *"PASS        3/3 full-size replies"* ]] || flunk "$output"
    [[ "$(line_of 2001:db8:1::2)" == *"PASS"* ]] || flunk "$output"
    assert_contains "method raw"
}

@test "-s 8972 is MTU 9000; one byte more over a 9000 path is LOCAL-MTU" {
    run inA -s 8972 198.18.1.2
    assert_status 0
    run inA -s 8973 198.18.1.2
    assert_status 1
    assert_contains "LOCAL-MTU   send failed here: Message too long (this host's interface MTU is 9000)"
}

@test "LOCAL-MTU when A's own link is 1500 (both families)" {
    mtunet_mtu_a 1500
    run inA 198.18.1.2 2001:db8:1::2
    assert_status 1
    [[ "$(line_of 198.18.1.2)" == *"LOCAL-MTU   send failed here: Message too long (this host's interface MTU is 1500)"* ]] || flunk "$output"
    [[ "$(line_of 2001:db8:1::2)" == *"LOCAL-MTU"*"MTU is 1500"* ]] || flunk "$output"
}

@test "TOO-BIG names router R and next-hop MTU 1500 (IPv4 frag-needed, IPv6 Packet Too Big)" {
    mtunet_mtu_b 1500
    run inA 198.18.1.2 2001:db8:1::2
    assert_status 1
    [[ "$(line_of 198.18.1.2)" == *"TOO-BIG     router 198.18.0.1: frag needed and DF set, next-hop MTU 1500"* ]] || flunk "$output"
    [[ "$(line_of 2001:db8:1::2)" == *"TOO-BIG     router 2001:db8::1: Packet Too Big, next-hop MTU 1500"* ]] || flunk "$output"
}

@test "the 10th run gives the same verdict and router as the 1st (path-MTU cache is not used)" {
    mtunet_mtu_b 1500
    run inA -q 198.18.1.2 2001:db8:1::2
    local first=$output
    for i in 2 3 4 5 6 7 8 9; do inA -q 198.18.1.2 2001:db8:1::2 >/dev/null || true; done
    # the kernel has cached the 1500 path MTU by now ...
    run ip -n "$NS_A" route get 198.18.1.2
    assert_contains "mtu 1500"
    # ... and the 10th run still sees the router
    run inA -q 198.18.1.2 2001:db8:1::2
    assert_status 1
    [ "$output" = "$first" ] || flunk "1st: $first / 10th: $output"
    assert_contains "router 198.18.0.1"
    # every method, not only raw
    run inA -q --method errqueue 198.18.1.2 2001:db8:1::2
    [ "$output" = "$first" ] || flunk "errqueue: $output"
}

@test "anchor: ping -M do hides the router on its second run, esxmtu does not" {
    command -v ping >/dev/null || skip "iputils-ping not installed"
    mtunet_mtu_b 1500
    run ip netns exec "$NS_A" ping -M do -s 8972 -c 1 -W 1 198.18.1.2
    run ip netns exec "$NS_A" ping -M do -s 8972 -c 1 -W 1 198.18.1.2
    assert_contains "message too long, mtu=1500"
    assert_not_contains "198.18.0.1"
    run inA -q 198.18.1.2
    assert_contains "router 198.18.0.1"
}

@test "BLACK-HOLE when R drops its frag-needed / Packet Too Big; --discover finds 1500" {
    mtunet_mtu_b 1500
    mtunet_drop_toobig
    run inA --discover 198.18.1.2 2001:db8:1::2
    assert_status 1
    [[ "$(line_of 198.18.1.2)" == *"BLACK-HOLE  small probes answered (3/3), full-size ones vanish without an error; largest passed 1500, smallest failed 1501"* ]] || flunk "$output"
    [[ "$(line_of 2001:db8:1::2)" == *"BLACK-HOLE"* ]] || flunk "$output"
    assert_contains "discovered path MTU 1500 (1472 data bytes)"
    assert_contains "discovered path MTU 1500 (1452 data bytes)"
}

@test "--discover: exact MTU 8166 across a black hole (R drops longer packets), within 5 timeouts" {
    mtunet_blackhole 8166
    run inA -J --discover 198.18.1.2 2001:db8:1::2
    assert_status 1
    count_is 2 '"verdict": "BLACK-HOLE"'
    count_is 2 '"discovered_mtu": 8166'
    local t
    for t in $(grep -o '"timeouts": [0-9]*' <<<"$output" | grep -o '[0-9]*$'); do
        [ "$t" -le 5 ] || flunk "timeouts $t > 5: $output"
    done
    run inA --discover 198.18.1.2
    assert_contains "discovered path MTU 8166 (8138 data bytes): smallest failed 8167 (loss)"
    [[ "$output" =~ [0-9]+\ rounds?,\ [0-5]\ timeouts?,\ [0-9]+\ probes ]] || flunk "$output"
}

@test "--discover: exact MTU 4000 when R's link is 4000 and frag-needed is dropped" {
    mtunet_mtu_b 4000
    mtunet_drop_toobig
    run inA --discover 198.18.1.2 2001:db8:1::2
    assert_status 1
    count_is 2 'discovered path MTU 4000 '
}

# peer $1's "verdict discovered_mtu smallest_failed proof" in the -J output
disc_of() {
    jq -r --arg t "$1" '.peers[] | select(.target == $t) |
        "\(.verdict) \(.discovered_mtu) \(.discover.smallest_failed) \(.discover.proof)"' <<<"$output"
}

@test "--discover: four peers black-holed at four sizes each get their own MTU, searched side by side" {
    local holes=(1499 4000 7777 8166) peers i t0 t1 got
    mapfile -t peers < <(mtunet_peers_b 4)
    peers=("${peers[@]:0:4}")
    for i in 0 1 2 3; do mtunet_blackhole_to "${peers[$i]}" "${holes[$i]}"; done
    t0=$(date +%s.%N)
    run ip netns exec "$NS_A" "$MTU" -W 1 -J --discover "${peers[@]}"
    t1=$(date +%s.%N)
    assert_status 1
    for i in 0 1 2 3; do
        got=$(disc_of "${peers[$i]}")
        [ "$got" = "BLACK-HOLE ${holes[$i]} $((holes[$i] + 1)) loss" ] || flunk "${peers[$i]}: '$got': $output"
    done
    # A timed-out round waits the whole -W (1 s). Searched one after another, the run
    # lasts at least the sum of the peers' timeouts in seconds (12 here), and the peers'
    # searches do not overlap, so their seconds add up to less than the run. Side by
    # side, it lasts about one search (3 timeouts) plus the check (1.6 s), and each
    # peer's seconds span most of it. Both comparisons hold with room under load: they
    # compare the run with what esxmtu reports, not with a fixed time.
    local timeouts secs wall
    timeouts=$(jq '[.peers[].discover.timeouts] | add' <<<"$output")
    secs=$(jq '[.peers[].discover.seconds] | add' <<<"$output")
    wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
    [ "$timeouts" -ge 8 ] || flunk "only $timeouts timeouts: $output"
    awk -v w="$wall" -v t="$timeouts" 'BEGIN { exit !(w < t) }' ||
        flunk "the run took $wall s, not less than its peers' $timeouts timeouts of 1 s: searched one after another"
    awk -v w="$wall" -v s="$secs" 'BEGIN { exit !(s > w) }' ||
        flunk "the peers' searches took $secs s together, not more than the run's $wall s: they did not overlap"
}

@test "--discover side by side: IPv4 and IPv6 black holes at different sizes and a passing peer, each its own result" {
    local peers got
    mapfile -t peers < <(mtunet_peers_b 3)      # .10 .11 .12, then ::10 ::11 ::12
    mtunet_blackhole_to "${peers[0]}" 1499
    mtunet_blackhole_to "${peers[3]}" 1400
    mtunet_blackhole_to "${peers[4]}" 6000
    mtunet_blackhole_to "${peers[1]}" 6001
    run ip netns exec "$NS_A" "$MTU" -W 0.5 -J --discover "${peers[0]}" "${peers[3]}" 198.18.1.2 "${peers[4]}" "${peers[1]}"
    assert_status 1
    [ "$(disc_of "${peers[0]}")" = "BLACK-HOLE 1499 1500 loss" ] || flunk "$output"
    [ "$(disc_of "${peers[3]}")" = "BLACK-HOLE 1400 1401 loss" ] || flunk "$output"
    [ "$(disc_of "${peers[4]}")" = "BLACK-HOLE 6000 6001 loss" ] || flunk "$output"
    [ "$(disc_of "${peers[1]}")" = "BLACK-HOLE 6001 6002 loss" ] || flunk "$output"
    [ "$(disc_of 198.18.1.2)" = "PASS 9000 9001 local-mtu" ] || flunk "$output"
    # the text report says the same, peer by peer, in the order given
    run ip netns exec "$NS_A" "$MTU" -W 0.5 -q --discover "${peers[0]}" "${peers[3]}" 198.18.1.2 "${peers[4]}" "${peers[1]}"
    got=$(grep -o 'discovered path MTU [0-9]*' <<<"$output" | awk '{print $4}' | tr '\n' ' ')
    [ "$got" = "1499 1400 9000 6000 6001 " ] || flunk "$got: $output"
}

@test "NO-REPLY when B ignores echo requests (no MTU conclusion, no discovery)" {
    ip netns exec "$NS_B" sysctl -qw net.ipv4.icmp_echo_ignore_all=1 net.ipv6.icmp.echo_ignore_all=1
    run inA --discover 198.18.1.2 2001:db8:1::2
    assert_status 1
    [[ "$(line_of 198.18.1.2)" == *"NO-REPLY    no reply, not even to small probes"* ]] || flunk "$output"
    [[ "$(line_of 2001:db8:1::2)" == *"NO-REPLY"* ]] || flunk "$output"
    assert_not_contains "discovered"
}

@test "UNREACHABLE names the ICMP error and the router (no route in R, nft reject)" {
    run inA 198.19.255.1 2001:db8:ff::1
    assert_status 1
    [[ "$(line_of 198.19.255.1)" == *"UNREACHABLE net unreachable from 198.18.0.1"* ]] || flunk "$output"
    [[ "$(line_of 2001:db8:ff::1)" == *"UNREACHABLE no route to destination from 2001:db8::1"* ]] || flunk "$output"
    ip netns exec "$NS_R" nft add rule inet esxmtu esxmtu_fwd ip daddr 198.18.1.2 reject with icmp type admin-prohibited
    run inA 198.18.1.2
    assert_contains "UNREACHABLE communication administratively prohibited from 198.18.0.1"
    mtunet_reset
    run inA -t 1 198.18.1.2
    assert_contains "TTL-EXCEEDED time to live exceeded at 198.18.0.1 (raise -t)"
}

@test "20% random loss in R: PASS with the loss shown, and discover still exact" {
    mtunet_loss 20
    run inA -c 20 -i 0.01 198.18.1.2
    assert_status 0
    [[ "$(line_of 198.18.1.2)" =~ PASS\ +[0-9]+/20\ full-size\ replies,\ [0-9]+%\ loss ]] || flunk "$output"
    mtunet_mtu_b 4000
    mtunet_drop_toobig
    # -c 10: with 3 probes, all small ones are lost once in 125 runs at 20% (NO-REPLY, and
    # no discovery). The search itself needs more lost copies to call a size failed when
    # it sees loss (it ended on 1699 or 3978 about once in 50 runs here with 4 always).
    run inA -q -c 10 -i 0.01 --discover 198.18.1.2
    assert_contains "discovered path MTU 4000 "
}

@test "--trace names the limiting hop (TOO-BIG) and where big probes vanish (black hole)" {
    mtunet_mtu_b 1500
    run inA --trace 198.18.1.2 2001:db8:1::2
    assert_contains "trace: hop 1 (198.18.0.1) limits the path: next-hop MTU 1500"
    assert_contains "trace: hop 1 (2001:db8::1) limits the path: next-hop MTU 1500"
    mtunet_drop_toobig
    run inA --trace 198.18.1.2
    assert_contains "trace: full-size probes vanish after hop 1 (198.18.0.1), before hop 2 (198.18.1.2)"
    mtunet_reset
    mtunet_blackhole 8166
    run inA --trace 198.18.1.2
    assert_contains "trace: full-size probes vanish before hop 1 (198.18.0.1): on this host's link or in that hop"
    mtunet_reset
    run inA --trace 198.18.1.2
    assert_status 0
    assert_contains "trace: full-size probes reach the target (hop 2)"
}

@test "several peers with mixed verdicts: exit 1; all passing: exit 0; -f FILE with comments" {
    mtunet_mtu_b 1500
    printf '# R itself, then B\n198.18.0.1\n\n198.18.1.2   # behind the 1500 link\n' > "$BATS_TEST_TMPDIR/peers"
    run inA -f "$BATS_TEST_TMPDIR/peers"
    assert_status 1
    [[ "$(line_of 198.18.0.1)" == *PASS* ]] || flunk "$output"
    [[ "$(line_of 198.18.1.2)" == *TOO-BIG* ]] || flunk "$output"
    assert_contains "summary: 1 of 2 peers pass (exit 1)"
    run inA -m 1500 -f "$BATS_TEST_TMPDIR/peers"
    assert_status 0
    assert_contains "MTU 1500 = 1472 data + 8 ICMP + 20 IPv4"
}

@test "two runs at once (and a ping) do not count each other's replies" {
    local o1=$BATS_TEST_TMPDIR/o1 o2=$BATS_TEST_TMPDIR/o2
    inA -c 10 -i 0.02 198.18.1.2 > "$o1" &
    local p1=$!
    inA -c 10 -i 0.02 198.18.1.2 > "$o2" &
    local p2=$!
    if command -v ping >/dev/null; then ip netns exec "$NS_A" ping -q -c 20 -i 0.01 -s 8972 198.18.1.2 >/dev/null || true; fi
    wait "$p1" "$p2"
    grep -q "PASS        10/10 full-size replies" "$o1" || flunk "$(cat "$o1")"
    grep -q "PASS        10/10 full-size replies" "$o2" || flunk "$(cat "$o2")"
}

@test "-J has the documented keys" {
    mtunet_mtu_b 1500
    run inA -J --discover 198.18.1.2
    assert_status 1
    local k
    for k in '"tool": "esxmtu"' '"target": "198.18.1.2"' '"family": "ipv4"' '"mtu": 9000' \
             '"payload": 8972' '"method": "raw"' '"verdict": "TOO-BIG"' '"evidence": {' \
             '"router": "198.18.0.1"' '"next_hop_mtu": 1500' '"local_mtu": null' '"probes": {' \
             '"sent": 3' '"received": 0' '"small_received": 3' '"rtt_ms": null' '"discovered_mtu": 1500' '"discover": {' \
             '"rounds": 1' '"timeouts": 0' '"summary": {' '"exit": 1'; do
        assert_contains "$k"
    done
}

@test "non-root: ping sockets when ping_group_range allows, else one clear line and exit 2" {
    command -v setpriv >/dev/null || skip "setpriv missing"
    mtunet_mtu_b 1500
    ip netns exec "$NS_A" sysctl -qw net.ipv4.ping_group_range="1 0"
    run ip netns exec "$NS_A" setpriv --reuid=nobody --regid=nogroup --clear-groups "$MTU" -W 0.3 198.18.1.2
    assert_status 2
    [ "${#lines[@]}" = 1 ] || flunk "$output"
    assert_contains "ping_group_range"
    ip netns exec "$NS_A" sysctl -qw net.ipv4.ping_group_range="0 2147483647"
    run ip netns exec "$NS_A" setpriv --reuid=nobody --regid=nogroup --clear-groups "$MTU" -W 0.3 198.18.1.2 2001:db8:1::2
    ip netns exec "$NS_A" sysctl -qw net.ipv4.ping_group_range="1 0"
    assert_status 1
    assert_contains "method dgram"
    [[ "$(line_of 198.18.1.2)" == *"TOO-BIG     router 198.18.0.1"*"next-hop MTU 1500"* ]] || flunk "$output"
    [[ "$(line_of 2001:db8:1::2)" == *"TOO-BIG     router 2001:db8::1"* ]] || flunk "$output"
}

@test "--method auto without IP_HDRINCL: an IPPROTO_RAW sender, else the error queue" {
    command -v strace >/dev/null || skip "strace missing"
    mtunet_mtu_b 1500
    # the first setsockopt (IP_HDRINCL) fails, as a userworld without it would: the
    # header goes out by an IPPROTO_RAW socket, which needs no option
    run ip netns exec "$NS_A" strace -qq -o /dev/null -e trace=setsockopt \
        -e inject=setsockopt:error=ENOPROTOOPT:when=1 "$MTU" -W 0.3 198.18.1.2
    assert_status 1
    assert_contains "method raw: raw socket, own IPv4 header with DF sent by an IPPROTO_RAW socket (IP_HDRINCL refused)"
    assert_contains "TOO-BIG     router 198.18.0.1: frag needed and DF set, next-hop MTU 1500"
    # and no IPPROTO_RAW socket either (the third socket() of the run, after the
    # source-address lookup and the ICMP socket): the error queue
    run ip netns exec "$NS_A" strace -qq -o /dev/null -e trace=setsockopt,socket \
        -e inject=setsockopt:error=ENOPROTOOPT:when=1 -e inject=socket:error=EPERM:when=3 "$MTU" -W 0.3 198.18.1.2
    assert_status 1
    assert_contains "method errqueue"
    assert_contains "TOO-BIG     router 198.18.0.1: frag needed and DF set, next-hop MTU 1500"
    # nothing on the sockets can set DF and no IPPROTO_RAW socket: one line, exit 2, never a false verdict
    run ip netns exec "$NS_A" strace -qq -o /dev/null -e trace=setsockopt,socket \
        -e inject=setsockopt:error=ENOPROTOOPT -e inject=socket:error=EPERM:when=3 "$MTU" -W 0.3 198.18.1.2
    assert_status 2
    [ "${#lines[@]}" = 1 ] || flunk "$output"
    assert_contains "cannot set Don't-Fragment"
}

@test "bad input: one line each, exit 2" {
    one_line_errors <<'EOF2'
nosuch-host.invalid
-s 65508 198.18.1.2
-c 0 198.18.1.2
-m 67 198.18.1.2
-m 65536 198.18.1.2
-6 -m 1000 2001:db8:1::2
-I nosuch0 198.18.1.2
-B 2001:db8::2 198.18.1.2
--method carrier-pigeon 198.18.1.2
-W 0 198.18.1.2
-m 1500 -s 1472 198.18.1.2

EOF2
    run ip netns exec "$NS_A" "$MTU" -s 65508 198.18.1.2
    assert_contains "-s '65508': out of range (0..65507)"
    run ip netns exec "$NS_A" "$MTU" -s 65500 2001:db8:1::2
    assert_status 2
    assert_contains "too big for IPv6 (at most 65487 data bytes)"
}

# Sends never block: a blocking raw sendto waits about 3 s per silent on-link peer
# while its ARP is unresolved, so a run would grow with the number of peers, and the
# late ones would read UNREACHABLE from this host's own ARP failure.
@test "100 silent on-link peers: the run is bounded by -c/-i/-W, each is NO-REPLY, the live peer PASS" {
    local peers
    peers=$(seq -f '198.18.0.%g' 10 109)       # on A's link, nobody answers ARP there
    # a bound against a hang, not a speed test: the run needs (c-1) x i + W plus 0.2 ms
    # per peer, 1.1 s measured; main's blocking sends took 22 s. 10 s is slack for load.
    run timeout 10 ip netns exec "$NS_A" "$MTU" -q -c 1 -W 0.5 $peers 198.18.1.2
    assert_status 1
    count_is 100 '^198\.18\.0\.[0-9]* *NO-REPLY '
    [[ "$(line_of 198.18.1.2)" == *"PASS        1/1 full-size replies"* ]] || flunk "$output"
    assert_contains "summary: 1 of 101 peers pass (exit 1)"
    # the same with the defaults (3 rounds 0.2 s apart): 1.5 s measured
    run timeout 10 ip netns exec "$NS_A" "$MTU" -q -J $(seq -f '198.18.0.%g' 110 209) 198.18.1.2
    assert_status 1
    count_is 100 '"verdict": "NO-REPLY"'
    count_is 1 '"verdict": "PASS"'
}

# ENOBUFS for every big packet (a veth whose far end is 1500) is this host's link
# refusing the size: LOCAL-MTU with that reason, the same on a cold neighbour as on a
# warm one (never BLACK-HOLE, never UNREACHABLE), and --discover still runs
@test "ENOBUFS for full-size probes only: LOCAL-MTU with that reason on the first run and the tenth; --discover runs" {
    mtunet_veth_mismatch 1500
    ip -n "$NS_A" neigh flush dev a0            # the first run meets unresolved neighbours
    # -W 1: the small probe's reply must be in for the verdict; it costs nothing here
    # (the run ends when the small one is answered and the big one refused)
    run inA -W 1 -c 1 -q 198.18.1.2 2001:db8:1::2
    assert_status 1
    local first=$output
    [[ "$(line_of 198.18.1.2)" == *"LOCAL-MTU   send failed here: No buffer space available (refused 8 times over 127 ms) for full-size probes while small ones are answered (1/1): this host's link refuses the size"* ]] || flunk "$output"
    [[ "$(line_of 2001:db8:1::2)" == *"LOCAL-MTU   send failed here: No buffer space available"* ]] || flunk "$output"
    local i
    for i in 2 3 4 5 6 7 8 9; do inA -W 1 -c 1 -q 198.18.1.2 2001:db8:1::2 >/dev/null || true; done
    run inA -W 1 -c 1 -q 198.18.1.2 2001:db8:1::2
    [ "$output" = "$first" ] || flunk "1st: $first / 10th: $output"
    # discovery runs and finds what the veth lets through (1500, plus the few bytes of
    # slack the kernel's veth check allows), refused here: proof local-mtu
    run inA -W 1 -J --discover 198.18.1.2
    assert_status 1
    assert_contains '"verdict": "LOCAL-MTU"'
    assert_contains '"send_error": "No buffer space available"'
    assert_contains '"proof": "local-mtu"'
    [[ "$output" =~ \"discovered_mtu\":\ 150[0-4], ]] || flunk "$output"
    assert_not_contains "UNREACHABLE"
}

@test "nothing can be sent (a full interface queue: ENOBUFS for every size): SEND-FAILED, not UNREACHABLE" {
    mtunet_full_queue
    run inA -c 1 --discover 198.18.1.2 2001:db8:1::2
    assert_status 1
    [[ "$(line_of 198.18.1.2)" == *"SEND-FAILED send failed here: No buffer space available (refused 8 times over 127 ms), and nothing answered: this host's interface queue or socket buffer is full; no MTU conclusion"* ]] || flunk "$output"
    [[ "$(line_of 2001:db8:1::2)" == *"SEND-FAILED send failed here: No buffer space available"* ]] || flunk "$output"
    assert_not_contains "discover"
    run inA -J -c 1 198.18.1.2
    assert_contains '"verdict": "SEND-FAILED"'
    assert_contains '"send_error": "No buffer space available"'
}

# a host on the path lies (test/lib/icmp_forger.py in R); R drops
# packets over 1500 itself, so only the lies answer the full-size probes
# -W 1 in these: the forger (Python) answers in milliseconds, 1 s is slack for a loaded machine.
# lies_told KIND...: since its last call (so each run is checked on its own), the forger
# told each kind of lie; if not, the failure says what the forger logged and printed
forge() { mtunet_forge "$@" && LIES_MARK=0; }
lies_told() {
    local new k
    new=$(tail -n +"$((${LIES_MARK:-0} + 1))" "$FORGE_LOG")
    LIES_MARK=$(wc -l < "$FORGE_LOG")
    for k in "$@"; do
        grep -q "^forged $k " <<<"$new" ||
            flunk "no '$k' lie in this run; forger log: $(tail -3 "$FORGE_LOG" | tr '\n' ' ') out: $(cat "$FORGE_LOG.out")"
    done
}

@test "lying ICMP: frag-needed / Packet Too Big with next-hop MTU 0 is named as bogus; BLACK-HOLE; --discover finds 1500 by loss" {
    mtunet_blackhole 1500
    forge too-big --mtu 0
    run inA -W 1 --discover 198.18.1.2 2001:db8:1::2
    assert_status 1
    lies_told too-big
    [[ "$(line_of 198.18.1.2)" == *"BLACK-HOLE  small probes answered (3/3), full-size ones got no true answer; largest passed 1500, smallest failed 1501; 198.18.0.1 sent frag needed with next-hop MTU 0, which cannot be (below the IPv4 minimum 68): ignored"* ]] || flunk "$output"
    [[ "$(line_of 2001:db8:1::2)" == *"BLACK-HOLE"*"2001:db8::1 sent Packet Too Big with next-hop MTU 0, which cannot be (below the IPv6 minimum 1280): ignored"* ]] || flunk "$output"
    count_is 2 'discovered path MTU 1500 (.*smallest failed 1501 (loss)'
    run inA -W 1 -J 198.18.1.2
    lies_told too-big
    assert_contains '"next_hop_mtu": null'
    assert_contains '"bogus_next_hop_mtu": 0'
    assert_contains '"bogus_router": "198.18.0.1"'
    # the error-queue method reads the same lies another way
    run inA -W 1 --method errqueue -q 198.18.1.2 2001:db8:1::2
    lies_told too-big
    count_is 2 'BLACK-HOLE .*next-hop MTU 0, which cannot be'
}

@test "lying ICMP: next-hop MTU 68 under an answered size, and one larger than the probe, are bogus; --discover still ends at 1500" {
    mtunet_blackhole 1500
    forge too-big --mtu 68
    run inA -W 1 --discover 198.18.1.2 2001:db8:1::2
    lies_told too-big
    [[ "$(line_of 198.18.1.2)" == *"BLACK-HOLE"*"next-hop MTU 68, which cannot be (below 1500, which was answered): ignored"* ]] || flunk "$output"
    [[ "$(line_of 2001:db8:1::2)" == *"BLACK-HOLE"*"next-hop MTU 68, which cannot be (below the IPv6 minimum 1280)"* ]] || flunk "$output"
    count_is 2 'discovered path MTU 1500 '
    forge too-big --mtu 65535
    run inA -W 1 --discover 198.18.1.2 2001:db8:1::2
    lies_told too-big
    count_is 2 'BLACK-HOLE .*next-hop MTU 65535, which cannot be (not below the 9000-byte probe): ignored'
    count_is 2 'discovered path MTU 1500 (.*(loss)'
}

@test "lying ICMP: Packet Too Big under 1280 is bogus; a plausible false MTU (1000) is unmasked by --discover" {
    mtunet_blackhole 1500
    forge too-big --mtu 1000
    run inA -W 1 -q 2001:db8:1::2
    lies_told too-big
    [[ "$(line_of 2001:db8:1::2)" == *"BLACK-HOLE"*"Packet Too Big with next-hop MTU 1000, which cannot be (below the IPv6 minimum 1280): ignored"* ]] || flunk "$output"
    # IPv4: 1000 can be a next-hop MTU, until discovery sees 1500 pass
    run inA -W 1 -q 198.18.1.2
    lies_told too-big
    [[ "$(line_of 198.18.1.2)" == *"TOO-BIG     router 198.18.0.1: frag needed and DF set, next-hop MTU 1000"* ]] || flunk "$output"
    run inA -W 1 --discover 198.18.1.2
    lies_told too-big
    [[ "$(line_of 198.18.1.2)" == *"BLACK-HOLE"*"next-hop MTU 1000, which cannot be (below 1500, which was answered): ignored"* ]] || flunk "$output"
    assert_contains "discovered path MTU 1500 (1472 data bytes): smallest failed 1501 (loss)"
}

@test "lying ICMP: errors quoting a probe we never sent (the next sequence, another stamp) are ignored" {
    mtunet_blackhole 1500
    forge quote-other
    run inA -W 1 --discover 198.18.1.2 2001:db8:1::2
    lies_told quote-next-seq quote-other-stamp
    count_is 2 'BLACK-HOLE  small probes answered (3/3), full-size ones vanish without an error'
    assert_not_contains "TOO-BIG"
    count_is 2 'discovered path MTU 1500 (.*(loss)'
    run inA -W 1 --method errqueue -q 198.18.1.2 2001:db8:1::2
    lies_told quote-next-seq quote-other-stamp
    count_is 2 'BLACK-HOLE'
}

@test "lying ICMP: echo replies with the right id and sequence but a wrong or missing stamp are ignored" {
    mtunet_blackhole 1500
    forge reply-bad-stamp
    run inA -W 1 --discover 198.18.1.2 2001:db8:1::2
    lies_told reply-bad-stamp reply-no-stamp
    count_is 2 'BLACK-HOLE  small probes answered (3/3), full-size ones vanish without an error'
    assert_not_contains "SHORT-REPLY"
    count_is 2 'discovered path MTU 1500 (.*(loss)'
}

# this mode was already handled on main (replies are taken only from the peer's
# address); the test keeps it so
@test "lying ICMP: a perfect echo reply from an address that is not the peer is ignored" {
    mtunet_blackhole 1500
    forge reply-foreign
    run inA -W 1 --discover 198.18.1.2 2001:db8:1::2
    lies_told reply-foreign
    count_is 2 'BLACK-HOLE'
    count_is 2 'discovered path MTU 1500 '
}

# the rows after the limiting hop are all alike: one line says so, not 28 rows
@test "--trace folds the identical rows behind the limiting hop (a target that does not answer echo)" {
    mtunet_mtu_b 1500
    ip netns exec "$NS_B" sysctl -qw net.ipv4.icmp_echo_ignore_all=1 net.ipv6.icmp.echo_ignore_all=1
    run inA --trace 198.18.1.2 2001:db8:1::2
    assert_contains "    2  198.18.0.1                   *            FRAG NEEDED, MTU 1500 from 198.18.0.1"
    assert_contains "    3-30  the same as hop 2 (28 hops)"
    assert_contains "    2  2001:db8::1                  *            PACKET TOO BIG, MTU 1500 from 2001:db8::1"
    count_is 2 'FRAG NEEDED\|PACKET TOO BIG'
    assert_contains "trace: hop 1 (198.18.0.1) limits the path: next-hop MTU 1500"
    # JSON keeps every hop
    run inA -J --trace 198.18.1.2
    count_is 29 '"full_size": "too-big"'
}

# one line, ours: getopt's own message is silenced, so it never adds a second one
@test "a missing or unwanted option value is one right line, exit 2" {
    one_line_errors <<'EOF2'
-c|esxmtu: option -c needs a value
127.0.0.1 -W|esxmtu: option -W needs a value
--method|esxmtu: option --method needs a value
--max-hops|esxmtu: option --max-hops needs a value
--json=yes 127.0.0.1|esxmtu: option --json takes no value
-x 127.0.0.1|esxmtu: unknown option -x
--bogus 127.0.0.1|esxmtu: unknown option '--bogus'
--json -xz 127.0.0.1|esxmtu: unknown option -x
EOF2
}

# a good address of the other family is named as such, not "unknown host"
@test "-4/-6 against an address of the other family says the family does not match" {
    one_line_errors <<'EOF2'
-4 2001:db8:1::2|2001:db8:1::2 is an IPv6 address, but -4 asks for IPv4 (drop -4
-6 198.18.1.2|198.18.1.2 is an IPv4 address, but -6 asks for IPv6 (drop -6
-6 ::ffff:198.18.1.2|::ffff:198.18.1.2 is an IPv4 address (IPv4-mapped), but -6 asks for IPv6
-4 -B 2001:db8::2 198.18.1.2|-B 2001:db8::2 is an IPv6 address, but -4 asks for IPv4
-4 -6 198.18.1.2|-4 and -6 contradict
EOF2
}

# no verdict for a target that is not one peer (a probe to it would read UNREACHABLE
# "Permission denied", NO-REPLY or even PASS): refused before anything is sent
@test "broadcast, unspecified and multicast peers and a multicast -B are refused up front; ::ffff:a.b.c.d is IPv4" {
    one_line_errors <<'EOF2'
255.255.255.255|255.255.255.255 is the broadcast address, not a path-MTU target
198.18.0.255|198.18.0.255 is a broadcast address (this host's routing table says so)
0.0.0.0|0.0.0.0 is the unspecified address
::|:: is the unspecified address
224.0.0.1|224.0.0.1 is a multicast address
ff02::1|ff02::1 is a multicast address
::ffff:224.0.0.1|::ffff:224.0.0.1 is a multicast address
-B 224.0.0.1 198.18.1.2|-B 224.0.0.1 is a multicast address (give one of this host's unicast addresses)
-B ff02::1 2001:db8:1::2|-B ff02::1 is a multicast address
198.18.1.2 224.0.0.1|224.0.0.1 is a multicast address
EOF2
    # v4-mapped is IPv4: the same verdict as the IPv4 address, with the IPv4 arithmetic
    run ip netns exec "$NS_A" "$MTU" -W 0.3 -J ::ffff:198.18.1.2
    assert_status 0
    assert_contains '"family": "ipv4"'
    assert_contains '"address": "198.18.1.2"'
    assert_contains '"payload": 8972'
    assert_contains '"verdict": "PASS"'
}

# a peer file is never read short in silence: a cap, a directory, a long line, extra
# words and NUL bytes are each named, with the line
@test "-f FILE: one line is one peer; other words warn with the line; bad files are errors naming the line" {
    local d=$BATS_TEST_TMPDIR
    printf '198.18.1.2 behind R\n# comment\n\n2001:db8:1::2\r\n' > "$d/words"
    run ip netns exec "$NS_A" "$MTU" -q -W 0.3 -f "$d/words"
    assert_status 0
    [ "${#lines[@]}" = 4 ] || flunk "$output"
    [ "${lines[0]}" = "esxmtu: $d/words line 1: 'behind R' after the peer ignored (one peer a line; start comments with #)" ] || flunk "$output"
    assert_contains "summary: 2 of 2 peers pass (exit 0)"
    # a line over 1024 bytes: an error naming line 2, not two peers
    { echo 198.18.1.2; printf '198.18.1.2%02000d\n' 0; } > "$d/long"
    run ip netns exec "$NS_A" "$MTU" -q -W 0.3 -f "$d/long"
    assert_status 2
    [ "$output" = "esxmtu: $d/long line 2: longer than 1024 bytes (one peer a line)" ] || flunk "$output"
    printf '198.18.1.2\n\0\n' > "$d/nul"
    run ip netns exec "$NS_A" "$MTU" -q -W 0.3 -f "$d/nul"
    assert_status 2
    [ "$output" = "esxmtu: $d/nul line 2: a NUL byte (is it a text file? one peer a line)" ] || flunk "$output"
    # comments count: 100,000 lines are read, one more is an error, never a silent stop
    { seq 99999 | sed 's/^/# /'; echo 198.18.1.2; } > "$d/many"
    run ip netns exec "$NS_A" "$MTU" -q -W 0.3 -f "$d/many"
    assert_status 0
    echo '# one more' >> "$d/many"
    run ip netns exec "$NS_A" "$MTU" -q -W 0.3 -f "$d/many"
    assert_status 2
    assert_contains "$d/many: more than 100000 lines"
    run ip netns exec "$NS_A" "$MTU" -f "$d"
    assert_status 2
    [ "$output" = "esxmtu: $d is a directory (-f takes a file with one peer a line)" ] || flunk "$output"
    run ip netns exec "$NS_A" "$MTU" -f /dev/zero
    assert_status 2
    assert_contains "/dev/zero is a character device"
    # a FIFO with no writer neither blocks nor passes: its emptiness is named (bound 10 s
    # against a hang; it answers in milliseconds)
    mkfifo "$d/fifo"
    run timeout 10 ip netns exec "$NS_A" "$MTU" -f "$d/fifo"
    assert_status 2
    assert_contains "$d/fifo: no peer in it"
    # a pipe is a file of peers
    run ip netns exec "$NS_A" "$MTU" -q -W 0.3 -f <(echo 198.18.1.2)
    assert_status 0
    # a read error and a file cut short while read: errors, not a shorter list
    command -v strace >/dev/null || skip "strace missing"
    seq -f '198.18.1.%g' 2 901 > "$d/big"
    run ip netns exec "$NS_A" strace -qq -o /dev/null -P "$d/big" -e trace=read -e inject=read:error=EIO:when=2 \
        "$MTU" -q -W 0.3 -f "$d/big"
    assert_status 2
    [ "${#lines[@]}" = 1 ] || flunk "$output"
    assert_contains "cannot read $d/big:"
    run ip netns exec "$NS_A" strace -qq -o /dev/null -P "$d/big" -e trace=read -e inject=read:retval=0:when=2 \
        "$MTU" -q -W 0.3 -f "$d/big"
    assert_status 2
    assert_contains "$d/big: cut short while read (8192 of"
}

# the help names the four methods only: a note after them must not read as a fifth
@test "--help: --method lists its four values and no 'none'" {
    run "$MTU" --help
    assert_status 0
    assert_contains "--method M    M is auto, raw, errqueue or dgram"
    assert_not_contains "none uses"
}

@test "ESXi launch words, -d, -I and -B accepted; --help and --version" {
    run ip netns exec "$NS_A" "$MTU" ++netstack=vmotion ++group=host/vim/tmp -d -I a0 -B 198.18.0.2 -W 0.3 198.18.1.2
    assert_status 0
    run "$MTU" --help
    assert_status 0
    [[ "${lines[0]}" == "usage: esxmtu"* ]] || flunk "$output"
    assert_contains "Exit codes: 0 every peer passes, 1 a peer fails, 2 usage or system error."
    assert_contains "Examples:"
    run "$MTU" --version
    assert_status 0
    assert_contains "esxmtu (esxdiag"
}

@test "syscall audit: check, discover and trace (raw), ping sockets, JSON, loopback" {
    command -v strace >/dev/null || skip "strace missing"
    mtunet_mtu_b 1500
    audit_in_A "$MTU" -W 0.2 198.18.1.2 2001:db8:1::2
    audit_in_A "$MTU" -W 0.2 -J --discover --trace 198.18.1.2 2001:db8:1::2
    mtunet_drop_toobig
    audit_in_A "$MTU" -W 0.2 --discover 198.18.1.2
    audit_in_A "$MTU" -W 0.2 --method errqueue 198.18.1.2 2001:db8:1::2
    ip netns exec "$NS_A" sysctl -qw net.ipv4.ping_group_range="0 2147483647"
    audit_in_A --nobody "$MTU" -W 0.2 --discover 198.18.1.2 2001:db8:1::2 || { ip netns exec "$NS_A" sysctl -qw net.ipv4.ping_group_range="1 0"; false; }
    ip netns exec "$NS_A" sysctl -qw net.ipv4.ping_group_range="1 0"
    audit_syscalls "$MTU" -W 0.2 127.0.0.1
    audit_enosys "$MTU" -W 0.2 127.0.0.1
}

# setsockopt refused inside A as an ESXi userworld may refuse it (audit_sockopt_refusals)
sockopt_in_A() {
    ip netns exec "$NS_A" bash -c 'ESXDIAG_ROOT=$1; shift; source "$ESXDIAG_ROOT/test/lib/audit.bash";
        AUDIT_SOCKOPT_SECS=10 audit_sockopt_refusals "$@"' _ "$ESXDIAG_ROOT" "$@"
}
# esxmtu in A with every setsockopt refused with $1
refused_in_A() {
    local err=$1; shift
    run ip netns exec "$NS_A" timeout -k 2 10 strace -f -qq -o /dev/null -e trace=setsockopt \
        -e inject=setsockopt:error="$err" "$MTU" -W 0.3 "$@"
}

@test "sockopt refusals: IPv4 probes keep DF through an IPPROTO_RAW socket; PASS, TOO-BIG, --discover stay right" {
    command -v strace >/dev/null || skip "strace missing"
    refused_in_A ENOPROTOOPT 198.18.1.2
    assert_status 0
    assert_contains "method raw: raw socket, own IPv4 header with DF sent by an IPPROTO_RAW socket (IP_HDRINCL refused)"
    assert_contains "fallback: IP_HDRINCL refused (ENOPROTOOPT): probes leave by an IPPROTO_RAW socket, which carries our own header"
    [[ "$(line_of 198.18.1.2)" == *"PASS        3/3 full-size replies"* ]] || flunk "$output"
    mtunet_mtu_b 1500
    refused_in_A EPERM -J 198.18.1.2
    assert_status 1
    [ "$(jq -r '.peers[0].verdict' <<<"$output")" = TOO-BIG ] || flunk "$output"
    [ "$(jq -c '[.fallbacks[] | select(.option == "IP_HDRINCL" or .option == "IP_MTU_DISCOVER") | [.option, .errno]]' <<<"$output")" = '[["IP_HDRINCL","EPERM"],["IP_MTU_DISCOVER","EPERM"]]' ] || flunk "$output"
    mtunet_reset
    mtunet_mtu_b 1500
    mtunet_drop_toobig
    refused_in_A EINVAL --discover 198.18.1.2
    assert_status 1
    assert_contains "discovered path MTU 1500 (1472 data bytes)"
    # without a refusal the list is empty
    run ip netns exec "$NS_A" "$MTU" -W 0.3 -J 198.18.1.2
    [ "$(jq -c .fallbacks <<<"$output")" = "[]" ] || flunk "$output"
}

@test "sockopt refusals: IPv6 probes keep DF through an IPPROTO_RAW socket with our own header; PASS, TOO-BIG, --discover, --trace stay right" {
    command -v strace >/dev/null || skip "strace missing"
    # without PMTUDISC_PROBE the sender meets A's path-MTU cache: an earlier test's
    # Packet Too Big must be gone (mtunet_reset flushes it)
    run ip -n "$NS_A" -6 route get 2001:db8:1::2
    assert_not_contains " mtu "
    # a second peer whose route leaves from another address of A, which R checks: the
    # source in our header (and its checksum) is the route's, per destination
    local peer2
    peer2=$(mtunet_peers_b 1 | tail -1)
    mtunet_src_a 2001:db8::3 "$peer2"
    ip netns exec "$NS_R" nft add rule inet esxmtu esxmtu_fwd ip6 daddr "$peer2" ip6 saddr != 2001:db8::3 drop
    refused_in_A ENOPROTOOPT 2001:db8:1::2 "$peer2"
    assert_status 0
    assert_contains "method raw: raw socket, own IPv6 header sent by an IPPROTO_RAW socket (IPV6_DONTFRAG and IPV6_MTU_DISCOVER refused)"
    assert_contains "fallback: IPV6_DONTFRAG refused (ENOPROTOOPT): probes leave by an IPPROTO_RAW socket with our own IPv6 header"
    [[ "$(line_of 2001:db8:1::2)" == *"PASS        3/3 full-size replies"* ]] || flunk "$output"
    [[ "$(line_of "$peer2")" == *"PASS        3/3 full-size replies"* ]] || flunk "$output"
    mtunet_reset
    mtunet_mtu_b 1500
    refused_in_A EPERM -J -B 2001:db8::2 2001:db8:1::2
    assert_status 1
    [ "$(jq -r '.peers[0] | "\(.verdict) \(.evidence.router) \(.evidence.next_hop_mtu)"' <<<"$output")" = "TOO-BIG 2001:db8::1 1500" ] || flunk "$output"
    [ "$(jq -c '[.fallbacks[] | select(.option == "IPV6_DONTFRAG" or .option == "IPV6_MTU_DISCOVER") | [.option, .errno]]' <<<"$output")" = '[["IPV6_DONTFRAG","EPERM"],["IPV6_MTU_DISCOVER","EPERM"]]' ] || flunk "$output"
    # --discover by loss, and --trace, whose hop limits are in our header: hop 1 answers
    mtunet_reset
    mtunet_mtu_b 1500
    mtunet_drop_toobig
    refused_in_A EINVAL --discover --trace 2001:db8:1::2
    assert_status 1
    assert_contains "discovered path MTU 1500 (1452 data bytes)"
    assert_contains "trace: full-size probes vanish after hop 1 (2001:db8::1), before hop 2 (2001:db8:1::2)"
    # all at once and one call at a time: each run ends as it does without, both
    # families, no option essential
    mtunet_reset
    sockopt_in_A "$MTU" -W 0.2 198.18.1.2 2001:db8:1::2
    mtunet_mtu_b 1500
    sockopt_in_A "$MTU" -W 0.2 198.18.1.2 2001:db8:1::2
    mtunet_drop_toobig
    sockopt_in_A "$MTU" -W 0.2 --discover 198.18.1.2 2001:db8:1::2
}

@test "sockopt refusals: a link-local IPv6 peer (fe80::...%a0) through the IPPROTO_RAW fallback: PASS, then LOCAL-MTU at 1500" {
    command -v strace >/dev/null || skip "strace missing"
    # R's link-local on A's link: the scope goes with every probe our own header
    # carries, and the source lookup keeps link-local sources apart per interface
    local ll
    ll=$(ip -n "$NS_R" -6 -o addr show dev r0 scope link | awk '{ sub(/\/.*/, "", $4); print $4; exit }')
    [[ "$ll" == fe80:* ]] || flunk "no link-local address on r0: $(ip -n "$NS_R" -6 addr show dev r0)"
    local i   # R answers for it once its duplicate address detection is over (about 1 s)
    for i in $(seq 30); do
        [ -z "$(ip -n "$NS_R" -6 addr show dev r0 scope link tentative)" ] && break
        sleep 0.1
    done
    refused_in_A ENOPROTOOPT "$ll%a0"
    assert_status 0
    assert_contains "own IPv6 header sent by an IPPROTO_RAW socket (IPV6_DONTFRAG and IPV6_MTU_DISCOVER refused)"
    [[ "$(line_of "$ll%a0")" == *"PASS        3/3 full-size replies"* ]] || flunk "$output"
    mtunet_mtu_a 1500
    refused_in_A ENOPROTOOPT "$ll%a0"
    assert_status 1
    [[ "$(line_of "$ll%a0")" == *"LOCAL-MTU   send failed here: Message too long"* ]] || flunk "$output"
}

@test "sockopt refusals: IPv6 with no IPPROTO_RAW socket either is one line naming all that was tried, exit 2" {
    command -v strace >/dev/null || skip "strace missing"
    # every setsockopt refused and no IPPROTO_RAW socket (the second socket() of an
    # IPv6 run, after the ICMPv6 socket): nothing can set DF, never a false verdict
    run ip netns exec "$NS_A" strace -qq -o /dev/null -e trace=setsockopt,socket \
        -e inject=setsockopt:error=ENOPROTOOPT -e inject=socket:error=EPERM:when=2 "$MTU" -W 0.3 2001:db8:1::2
    assert_status 2
    [ "${#lines[@]}" = 1 ] || flunk "$output"
    assert_contains "esxmtu: cannot set Don't-Fragment on raw sockets here (IPV6_DONTFRAG and IPV6_MTU_DISCOVER refused, and no IPPROTO_RAW socket), and no ping socket either"
    # --method raw says the same of its own socket
    run ip netns exec "$NS_A" strace -qq -o /dev/null -e trace=setsockopt,socket \
        -e inject=setsockopt:error=ENOPROTOOPT -e inject=socket:error=EPERM:when=2 "$MTU" -W 0.3 --method raw 2001:db8:1::2
    assert_status 2
    [ "${#lines[@]}" = 1 ] || flunk "$output"
    assert_contains "esxmtu: cannot set Don't-Fragment on the socket (IPV6_DONTFRAG and IPV6_MTU_DISCOVER refused, and no IPPROTO_RAW socket)"
}

@test "results that cannot be written (>/dev/full) exit 2 with one line, text and -J" {
    local form
    for form in "" -J; do
        run bash -c '"$1" -W 0.3 $2 127.0.0.1 >/dev/full' _ "$MTU" "$form"
        assert_status 2
        [ "$output" = "esxmtu: cannot write the results to stdout: No space left on device" ] ||
            flunk "esxmtu $form: $output"
    done
}
