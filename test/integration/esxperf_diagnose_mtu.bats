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
    # minute (docs/esxperf.md: what fragmentation costs a receiver); V's the same, the
    # receiver of -R
    ip netns exec "$NS_P" sysctl -qw net.ipv4.ipfrag_high_thresh=67108864 || { vmonet_down; return 1; }
    ip netns exec "$NS_V" sysctl -qw net.ipv4.ipfrag_high_thresh=67108864 || { vmonet_down; return 1; }
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
    ip -n "$NS_S" link set sp mtu 9000
    ip netns exec "$NS_V" sysctl -qw net.ipv4.tcp_mtu_probing=0
}

# a share of what crosses the switch towards P (towards V with $3 = sv) dropped at
# random, $1 per mille; of IPv4 fragments only with $2 = frags (the UDP stream's one
# hello datagram, which nothing resends, and the control connection cross)
switch_drops() {
    local only=()
    [ "${2:-}" = frags ] && only=(ip frag-off '&' 0x3fff != 0)
    ip netns exec "$NS_S" nft add rule bridge esxmtu esxmtu_fwd oifname "${3:-sp}" "${only[@]}" numgen random mod 1000 lt "$1" drop
}

# the switch port towards V drops IP packets over $1 bytes, no ICMP (-R's black hole)
port_blackhole_to_v() {
    ip netns exec "$NS_S" nft add rule bridge esxmtu esxmtu_fwd oifname sv ip length gt "$1" drop
}

# V's link at $1 (both ends of its veth: the bridge port too)
v_mtu() {
    ip -n "$NS_V" link set vmk1 mtu "$1" && ip -n "$NS_S" link set sv mtu "$1"
}

# P's link at $1 (both ends)
p_mtu() {
    ip -n "$NS_P" link set p0 mtu "$1" && ip -n "$NS_S" link set sp mtu "$1"
}

# $1's end.diagnosis as shell variables, read in one python run: BOTTLENECK, ADVICE,
# DIAG (all of it, for messages), FINDINGS (the keys), FINDING0 (the first's text),
# and EV_<name> for each evidence item (a whole number)
diag_of() {
    eval "$(/usr/bin/python3 - "$1" <<'PY'
import json, shlex, sys
d = json.load(open(sys.argv[1]))['end']['diagnosis']
print('BOTTLENECK=%s ADVICE=%s' % (shlex.quote(d['bottleneck']), shlex.quote(d['advice'])))
print('DIAG=%s' % shlex.quote(json.dumps(d)))
print('FINDINGS=%s' % shlex.quote(' '.join(f['key'] for f in d['findings'])))
print('FINDING0=%s' % shlex.quote(d['findings'][0]['text'] if d['findings'] else ''))
for e in d['evidence']:
    print('EV_%s=%d' % (e['name'], round(e['value'])))
PY
)"
}

# verdict_is CLASS LABEL STATUS ARGS...: esxperf -c P with ARGS, -J into $JSON (read by
# diag_of), then the text run into $output; both exit STATUS and name CLASS (text: LABEL)
verdict_is() {
    local want=$1 label=$2 st=$3 rc=0
    shift 3
    JSON="$BATS_TEST_TMPDIR/run.json"
    ip netns exec "$NS_V" timeout 30 "$BIN/esxperf" -c 198.18.3.2 -p "$PORT" -J "$@" > "$JSON" || rc=$?
    [ "$rc" = "$st" ] || flunk "esxperf -J exit $rc, expected $st: $(cat "$JSON")"
    diag_of "$JSON"
    [ "$BOTTLENECK" = "$want" ] || flunk "-J: bottleneck $BOTTLENECK, expected $want: $DIAG"
    run ip netns exec "$NS_V" timeout 30 "$BIN/esxperf" -c 198.18.3.2 -p "$PORT" "$@"
    assert_status "$st"
    line=$(grep '^bottleneck: ' <<<"$output") || flunk "no bottleneck line: $output"
    [[ "$line" == "bottleneck: $label ("* ]] || flunk "text: '$line', expected $label"
}

@test "path-mtu: TCP through a switch port that drops IP packets over 1500 without ICMP; the esxmtu command" {
    vmonet_port_blackhole 1500
    verdict_is path-mtu "path MTU" 1 -t 2
    # the evidence: full-size segments (MSS 8948) retransmitted, next to nothing acknowledged
    [ "$EV_mss" = 8948 ] && [ "$EV_route_mtu" = 9000 ] || flunk "$DIAG"
    [ "$EV_bytes_acked" -lt 100 ] && [ "$EV_retransmits" -ge 1 ] || flunk "$DIAG"
    [ -z "$FINDINGS" ] || flunk "findings: $DIAG"
    [[ "$ADVICE" == *"esxmtu -I vmk1 -s 8972 -d 198.18.3.2" ]] || flunk "advice: $ADVICE"
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
    [ "$EV_mss_start" = 8948 ] && [ "$EV_mss" -le 1500 ] || flunk "$DIAG"
    assert_contains "black-hole detection"
}

@test "path-mtu: UDP through the same port, iperf3's default length at MTU 9000: every datagram lost" {
    vmonet_port_blackhole 1500
    verdict_is path-mtu "path MTU" 1 -u -b 100M -t 2
    [ "$EV_datagram_size" = 8948 ] && [ "$EV_datagrams_received" = 0 ] || flunk "$DIAG"
    assert_contains "esxmtu -I vmk1 -s 8972 -d 198.18.3.2"
}

@test "path-mtu with -R: UDP from the server through a port towards V that drops over 1500, judged by the counts" {
    # the sender is the server: this side has the receiver's count, the server's results its own
    port_blackhole_to_v 1500
    verdict_is path-mtu "path MTU" 1 -R -u -b 100M -t 2
    [ "$EV_datagrams_received" = 0 ] && [ "$EV_datagrams_sent" -gt 100 ] || flunk "$DIAG"
}

@test "path-mtu with -R: TCP from the server through a port towards V that drops over 1500; its figures in its evidence" {
    # the sender is the server: the MSS, bytes acknowledged, timeouts and its route's
    # MTU come in its esxperf_evidence (without them the client's verdict is unknown)
    port_blackhole_to_v 1500
    verdict_is path-mtu "path MTU" 1 -R -t 2
    [ "$EV_mss" = 8948 ] && [ "$EV_mss_start" = 8948 ] && [ "$EV_route_mtu" = 9000 ] || flunk "$DIAG"
    [ "$EV_bytes_acked" -lt 100 ] && [ "$EV_retransmits" -ge 1 ] || flunk "$DIAG"
    [[ "$ADVICE" == *"esxmtu -I vmk1 -s 8972 -d 198.18.3.2" ]] || flunk "advice: $ADVICE"
    assert_contains "confirm with esxmtu -I vmk1 -s 8972 -d 198.18.3.2"
}

@test "network-loss stays: 3 % of what crosses the switch dropped at random, segments that fit" {
    switch_drops 30
    verdict_is network-loss "network loss" 0 -t 2
    [ "$EV_bytes_acked" -gt 1000000 ] || flunk "$DIAG"
}

@test "fragmentation: -u -l 8000 from a host at 1500, 4 % of the fragments dropped at random: each datagram in 6" {
    v_mtu 1500
    switch_drops 40 frags
    verdict_is fragmentation fragmentation 0 -u -l 8000 -b 100M -t 2
    [ "$EV_route_mtu" = 1500 ] && [ "$EV_fragments_per_datagram" = 6 ] || flunk "$DIAG"
    [ "$EV_fragments_created" -ge $((6 * EV_datagrams_sent)) ] || flunk "$DIAG"
    assert_contains "-l 1472 keeps each in one packet; where jumbo frames are meant: esxmtu -I vmk1 -s 8972 -d 198.18.3.2"
}

@test "fragmentation with -R: the server at 1500 sends -l 8000, 4 % of the fragments towards V dropped: its route MTU and fragments" {
    # V stays at 9000: the route's MTU (1500) and the fragments made are the server's
    p_mtu 1500
    switch_drops 40 frags sv
    verdict_is fragmentation fragmentation 0 -R -u -l 8000 -b 100M -t 2
    [ "$EV_route_mtu" = 1500 ] && [ "$EV_fragments_per_datagram" = 6 ] || flunk "$DIAG"
    [ "$EV_fragments_created" -ge $((6 * EV_datagrams_sent)) ] || flunk "$DIAG"
    assert_contains "-l 1472 keeps each in one packet"
}

@test "fragmentation finding: the same datagrams at -b 50M, nothing dropped: pacing, and a finding beside it" {
    v_mtu 1500
    verdict_is pacing pacing 0 -u -l 8000 -b 50M -t 2
    [ "$FINDINGS" = fragmentation ] || flunk "findings: $DIAG"
    [[ "$FINDING0" == "each 8000-byte datagram left in 6 fragments"* ]] || flunk "findings: $DIAG"
    # the text: one line after the bottleneck line
    grep -A1 '^bottleneck: ' <<<"$output" | tail -1 | grep -q '^finding: fragmentation: each 8000-byte datagram left in 6 fragments' ||
        flunk "no finding line after the bottleneck: $output"
    # datagrams that fit: no finding
    JSON="$BATS_TEST_TMPDIR/fit.json"
    ip netns exec "$NS_V" timeout 30 "$BIN/esxperf" -c 198.18.3.2 -p "$PORT" -J -u -l 1472 -b 50M -t 1 > "$JSON"
    diag_of "$JSON"
    [ -z "$FINDINGS" ] || flunk "findings: $DIAG"
}
