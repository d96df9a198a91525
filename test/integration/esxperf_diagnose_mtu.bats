#!/usr/bin/env bats
# esxperf's verdict on the path's MTU (docs/esxperf.md#the-bottleneck-verdict): the
# classes path-mtu and fragmentation and the fragmentation finding, each provoked for
# real on the vMotion bench of test/lib/esxmtu-net.bash (vmonet_*):
#   V (vmk1, 198.18.3.1, the client) <-> S (bridge br0, a switch) <-> P (198.18.3.2, the server)
# both hosts at MTU 9000. The silent black hole is what a physical switch port left at
# 1500 does: an nft rule in the bridge family on S's port towards P drops IP packets
# over 1500 bytes, no ICMP. Fragmentation: V's link at 1500, -u -l 8000. Each case is
# run twice (-J, then text) and must name the same class both times; every run is
# under `timeout`, so one that hangs fails the row. Namespaces esxmtu-perfmtu<pid>-*,
# deleted with all they run in teardown_file.
load ../lib/common
load ../lib/esxmtu-net

setup_file() {
    [ "$(id -u)" = 0 ] || skip "needs root (namespaces, nft)"
    export ESXMTU=$BIN/esxmtu
    vmonet_up "perfmtu$$" || { vmonet_down; return 1; }
    # P's IP reassembly memory above a run's incomplete datagrams: they stay queued for
    # net.ipv4.ipfrag_time (30 s), and at the default 4 MiB one lossy run at 100
    # Mbit/s fills it, so that P drops every fragment of the next run for half a
    # minute (docs/esxperf.md: what fragmentation costs a receiver)
    ip netns exec "$NS_P" sysctl -qw net.ipv4.ipfrag_high_thresh=67108864 || { vmonet_down; return 1; }
    export PORT=5311
    ip netns exec "$NS_P" "$BIN/esxperf" -s -p "$PORT" -D -I "$BATS_FILE_TMPDIR/server.pid" ||
        { vmonet_down; return 1; }
    local i
    for i in $(seq 1 50); do
        ip netns exec "$NS_P" ss -ltn "sport = :$PORT" | grep -q LISTEN && return 0
        sleep 0.1
    done
    vmonet_down
    return 1
}

teardown_file() {
    vmonet_down
}

setup() {
    [ -n "${NS_V:-}" ] || skip "no test bench (needs root)"
    vmonet_reset
    ip -n "$NS_S" link set sv mtu 9000
    ip netns exec "$NS_V" sysctl -qw net.ipv4.tcp_mtu_probing=0
}

# a share of what crosses the switch towards P dropped at random, $1 per mille
switch_drops() {
    ip netns exec "$NS_S" nft add rule bridge esxmtu esxmtu_fwd oifname sp numgen random mod 1000 lt "$1" drop
}

# V's link at $1 (both ends of its veth: the bridge port too)
v_mtu() {
    ip -n "$NS_V" link set vmk1 mtu "$1" && ip -n "$NS_S" link set sv mtu "$1"
}

# verdict_is CLASS LABEL STATUS ARGS...: esxperf -c P with ARGS, -J into $JSON, then
# the text run into $output; both exit STATUS and name CLASS (text: LABEL)
verdict_is() {
    local want=$1 label=$2 st=$3 rc=0
    shift 3
    JSON="$BATS_TEST_TMPDIR/run.json"
    ip netns exec "$NS_V" timeout 30 "$BIN/esxperf" -c 198.18.3.2 -p "$PORT" -J "$@" > "$JSON" || rc=$?
    [ "$rc" = "$st" ] || flunk "esxperf -J exit $rc, expected $st: $(cat "$JSON")"
    got=$(jget "$JSON" 'd["end"]["diagnosis"]["bottleneck"]')
    [ "$got" = "$want" ] || flunk "-J: bottleneck $got, expected $want: $(jget "$JSON" 'd["end"]["diagnosis"]')"
    run ip netns exec "$NS_V" timeout 30 "$BIN/esxperf" -c 198.18.3.2 -p "$PORT" "$@"
    assert_status "$st"
    line=$(grep '^bottleneck: ' <<<"$output") || flunk "no bottleneck line: $output"
    [[ "$line" == "bottleneck: $label ("* ]] || flunk "text: '$line', expected $label"
}

# the value of evidence item $1 in $JSON
evidence() {
    jget "$JSON" "[x['value'] for x in d['end']['diagnosis']['evidence'] if x['name'] == '$1'][0]"
}

@test "path-mtu: TCP through a switch port that drops IP packets over 1500 without ICMP; the esxmtu command" {
    vmonet_port_blackhole 1500
    verdict_is path-mtu "path MTU" 1 -t 2
    # the evidence: full-size segments (MSS 8948) retransmitted, next to nothing acknowledged
    [ "$(evidence mss)" = 8948.0 ] || flunk "mss $(evidence mss)"
    [ "$(evidence route_mtu)" = 9000.0 ]
    python3 -c "import sys; sys.exit(not ($(evidence bytes_acked) < 100 and $(evidence retransmits) >= 1))" ||
        flunk "acked $(evidence bytes_acked), retransmits $(evidence retransmits)"
    [ "$(jget "$JSON" 'd["end"]["diagnosis"]["findings"]')" = "[]" ]
    jget "$JSON" 'd["end"]["diagnosis"]["advice"]' | grep -qF "esxmtu -I vmk1 -s 8972 -d 198.18.3.2" ||
        flunk "advice: $(jget "$JSON" 'd["end"]["diagnosis"]["advice"]')"
    assert_contains "confirm with esxmtu -I vmk1 -s 8972 -d 198.18.3.2"
    assert_contains "the test moved no data"
    # the command it names exists and says the same: full-size probes vanish
    run ip netns exec "$NS_V" "$BIN/esxmtu" -I vmk1 -s 8972 -d -c 2 -W 0.5 198.18.3.2
    assert_contains "BLACK-HOLE"
}

@test "path-mtu: with tcp_mtu_probing 1 Linux cuts the MSS after ~3 s of timeouts; still path-mtu" {
    vmonet_port_blackhole 1500
    ip netns exec "$NS_V" sysctl -qw net.ipv4.tcp_mtu_probing=1
    verdict_is path-mtu "path MTU" 0 -t 5
    [ "$(evidence mss_start)" = 8948.0 ]
    python3 -c "import sys; sys.exit(not $(evidence mss) <= 1500)" || flunk "mss $(evidence mss)"
    assert_contains "black-hole detection"
}

@test "path-mtu: UDP through the same port, iperf3's default length at MTU 9000: every datagram lost" {
    vmonet_port_blackhole 1500
    verdict_is path-mtu "path MTU" 1 -u -b 100M -t 2
    [ "$(evidence datagram_size)" = 8948.0 ]
    [ "$(evidence datagrams_received)" = 0.0 ]
    assert_contains "esxmtu -I vmk1 -s 8972 -d 198.18.3.2"
}

@test "path-mtu with -R: UDP from the server through a port towards V that drops over 1500, judged by the counts" {
    # the sender is the server: this side has the receiver's count, the server's results its own
    ip netns exec "$NS_S" nft add rule bridge esxmtu esxmtu_fwd oifname sv ip length gt 1500 drop
    verdict_is path-mtu "path MTU" 1 -R -u -b 100M -t 2
    [ "$(evidence datagrams_received)" = 0.0 ]
    python3 -c "import sys; sys.exit(not $(evidence datagrams_sent) > 100)" || flunk "sent $(evidence datagrams_sent)"
}

@test "network-loss stays: 3 % of what crosses the switch dropped at random, datagrams and segments that fit" {
    switch_drops 30
    verdict_is network-loss "network loss" 0 -t 2
    python3 -c "import sys; sys.exit(not $(evidence bytes_acked) > 1e6)" || flunk "acked $(evidence bytes_acked)"
}

@test "fragmentation: -u -l 8000 from a host at 1500, 4 % of the fragments dropped: each datagram in 6" {
    v_mtu 1500
    switch_drops 40
    verdict_is fragmentation fragmentation 0 -u -l 8000 -b 100M -t 2
    [ "$(evidence route_mtu)" = 1500.0 ]
    [ "$(evidence fragments_per_datagram)" = 6.0 ]
    python3 -c "import sys; sys.exit(not $(evidence fragments_created) >= 6 * $(evidence datagrams_sent))" ||
        flunk "fragments $(evidence fragments_created) for $(evidence datagrams_sent) datagrams"
    assert_contains "-l 1472 keeps each in one packet; where jumbo frames are meant: esxmtu -I vmk1 -s 8972 -d 198.18.3.2"
}

@test "fragmentation finding: the same datagrams at -b 50M, nothing dropped: pacing, and a finding beside it" {
    v_mtu 1500
    verdict_is pacing pacing 0 -u -l 8000 -b 50M -t 2
    [ "$(jget "$JSON" '[f["key"] for f in d["end"]["diagnosis"]["findings"]]')" = "['fragmentation']" ]
    jget "$JSON" 'd["end"]["diagnosis"]["findings"][0]["text"]' | grep -q "each 8000-byte datagram left in 6 fragments" ||
        flunk "findings: $(jget "$JSON" 'd["end"]["diagnosis"]["findings"]')"
    # the text: one line after the bottleneck line
    grep -A1 '^bottleneck: ' <<<"$output" | tail -1 | grep -q '^finding: fragmentation: each 8000-byte datagram left in 6 fragments' ||
        flunk "no finding line after the bottleneck: $output"
    # datagrams that fit: no finding
    JSON="$BATS_TEST_TMPDIR/fit.json"
    ip netns exec "$NS_V" timeout 30 "$BIN/esxperf" -c 198.18.3.2 -p "$PORT" -J -u -l 1472 -b 50M -t 1 > "$JSON"
    [ "$(jget "$JSON" 'd["end"]["diagnosis"]["findings"]')" = "[]" ]
}
