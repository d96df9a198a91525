#!/usr/bin/env bats
# A multi-homed esxperf server (an ESXi host has several vmknics): a client that
# asks for one of its addresses gets every answer from that address, also when the
# server's route back to the client leaves by another interface with another
# address. A UDP client connects its socket to the address it asked for and drops
# datagrams from any other; esxperf -s on its wildcard listener used to answer a
# UDP stream from the address the routing table picks (as iperf3 3.22's server
# still does): the hello's reply and -R's data never arrived and the test hung.
#
# Two namespaces of our own, per test (removed in teardown, also on failure):
#   srv: s1 198.18.60.1/24 2001:db8:60::1/64 (towards cli), and the service address
#        198.18.61.1/24 2001:db8:61::1/64 on a second interface (veth s2, its peer
#        s2p in srv too)
#   cli: c1 198.18.60.2/24 2001:db8:60::2/64, routes to 198.18.61.0/24 and
#        2001:db8:61::/64 via srv's s1
# The client, esxperf or iperf3 3.12 / 3.22, asks for 198.18.61.1 (2001:db8:61::1);
# srv's route to the client is by s1, source 198.18.60.1 (2001:db8:60::1).
# A row passes when the client finishes within CASE_TIMEOUT with bytes received,
# and the server's JSON says each data stream's local address is the one asked
# for. TCP rows confirm what the kernel gives already (an accepted connection keeps
# the address its SYN came to; the control connection is one: the test completes).
load ../lib/common

PEERS_LIB="$ESXDIAG_ROOT/test/lib/iperf3-peers.sh"
# a row takes 1-2 s here (-t 1 plus setup); a UDP answer from the wrong address
# hangs a row 30-32 s (iperf3's 30 s wait for the hello's reply, or its data
# stream's). 20 s bounds a hang with tenfold slack over the worst run measured
CASE_TIMEOUT=20

setup_file() {
    source "$PEERS_LIB"
    iperf3_peers_setup_file
}

setup() {
    need_root
    source "$PEERS_LIB"
    PIDS=()
    TMP=$(mktemp -d)
    PORT=$(free_port)
    NS_S="esxdiag-mhs-$$-${BATS_TEST_NUMBER}"
    NS_C="esxdiag-mhc-$$-${BATS_TEST_NUMBER}"
    multihome_net
}

teardown() {
    stop_pids
    local n
    for n in "$NS_S" "$NS_C"; do
        ip netns pids "$n" 2>/dev/null | xargs -r kill 2>/dev/null || true
    done
    for n in "$NS_S" "$NS_C"; do ip netns del "$n" 2>/dev/null || true; done
    rm -rf "$TMP"
}

multihome_net() {
    ip netns add "$NS_S" && ip netns add "$NS_C" || flunk "cannot create namespaces"
    ip link add s1 netns "$NS_S" type veth peer name c1 netns "$NS_C" &&
        ip -n "$NS_S" link add s2 type veth peer name s2p || flunk "cannot create veths"
    local l
    for l in lo s1 s2 s2p; do ip -n "$NS_S" link set "$l" up; done
    for l in lo c1; do ip -n "$NS_C" link set "$l" up; done
    ip -n "$NS_S" addr add 198.18.60.1/24 dev s1
    ip -n "$NS_S" addr add 2001:db8:60::1/64 dev s1 nodad
    ip -n "$NS_S" addr add 198.18.61.1/24 dev s2
    ip -n "$NS_S" addr add 2001:db8:61::1/64 dev s2 nodad
    ip -n "$NS_C" addr add 198.18.60.2/24 dev c1
    ip -n "$NS_C" addr add 2001:db8:60::2/64 dev c1 nodad
    ip -n "$NS_C" route add 198.18.61.0/24 via 198.18.60.1
    ip -n "$NS_C" route add 2001:db8:61::/64 via 2001:db8:60::1
    SRV=(ip netns exec "$NS_S")
    CLI=(ip netns exec "$NS_C")
    # the premise: the routing table would answer the client from the other address
    ip -n "$NS_S" route get 198.18.60.2 | grep -q "src 198.18.60.1 " ||
        flunk "srv's route to the client: $(ip -n "$NS_S" route get 198.18.60.2)"
    ip -n "$NS_S" -6 route get 2001:db8:60::2 | grep -q "src 2001:db8:60::1 " ||
        flunk "srv's IPv6 route to the client: $(ip -n "$NS_S" -6 route get 2001:db8:60::2)"
}

# client_bin PEER: the command of client PEER (esxperf, 3.12, 3.22), or skip
client_bin() {
    if [ "$1" = esxperf ]; then
        echo "$BIN/esxperf"
        return 0
    fi
    if [ "$1" != 3.12 ] && [ -f "$BATS_FILE_TMPDIR/peers.skip" ]; then
        skip "iperf3 $1: $(cat "$BATS_FILE_TMPDIR/peers.skip")"
    fi
    iperf3_peer "$1" || skip "iperf3 $1 not available"
}

# mh_run [--server "OPTS"] [--env VAR=VALUE] PEER HOST ARGS...: esxperf -s -1 -J
# [OPTS] in srv (in its environment VAR=VALUE), client PEER in cli runs -c HOST -J
# ARGS; checks as the file's comment says
mh_run() {
    local sopts="" senv=() peer host bin spid i
    while [ "${1:0:2}" = -- ]; do
        case $1 in
            --server) sopts=$2 ;;
            --env) senv=("$2") ;;
        esac
        shift 2
    done
    peer=$1 host=$2
    shift 2
    bin=$(client_bin "$peer")
    # shellcheck disable=SC2086
    "${SRV[@]}" env "${senv[@]}" "$BIN/esxperf" -s -1 -J -p "$PORT" $sopts >"$TMP/s.json" 2>"$TMP/s.err" &
    spid=$!
    PIDS+=("$spid")
    wait_port "$PORT" "$NS_S"
    run timeout "$CASE_TIMEOUT" "${CLI[@]}" "$bin" -c "$host" -p "$PORT" -J "$@"
    printf '%s\n' "$output" >"$TMP/c.json"
    [ "$status" -eq 0 ] ||
        flunk "$peer -c $host $* exited $status (124 = hung, stopped by timeout): $output; server: $(cat "$TMP/s.err")"
    for i in $(seq 1 100); do   # the one-off server ends with the test (bounded, 10 s)
        kill -0 "$spid" 2>/dev/null || break
        sleep 0.1
    done
    python3 - "$TMP/c.json" "$TMP/s.json" "$host" <<'EOF' || flunk "$peer -c $host $*: $(cat "$TMP/s.err")"
import json, sys
c, s = (json.load(open(f)) for f in sys.argv[1:3])
host = sys.argv[3]
keys = [k for k in ("sum_received", "sum_received_bidir_reverse") if k in c["end"]]
got = {k: c["end"][k]["bytes"] for k in keys}
if not got or min(got.values()) <= 0:
    sys.exit(f"the client's JSON shows no bytes received: {got}")
ends = [(e["local_host"], e["local_port"]) for e in s["start"]["connected"]]
if not ends or any(h != host for h, _ in ends):
    sys.exit(f"the server's data streams are local to {ends}, not {host}")
EOF
}

V4=198.18.61.1
V6=2001:db8:61::1

@test "esxperf UDP to the second address (IPv4)"        { mh_run esxperf $V4 -u -t 1; }
@test "esxperf UDP -R to the second address (IPv4)"     { mh_run esxperf $V4 -u -t 1 -R; }
@test "esxperf UDP to the second address (IPv6)"        { mh_run esxperf $V6 -u -t 1; }
@test "esxperf UDP -R to the second address (IPv6)"     { mh_run esxperf $V6 -u -t 1 -R; }
@test "esxperf UDP --bidir -P 2 (IPv4)"                 { mh_run esxperf $V4 -u -t 1 --bidir -P 2; }
@test "esxperf UDP -R -P 2 (IPv6)"                      { mh_run esxperf $V6 -u -t 1 -R -P 2; }
@test "esxperf UDP -R to an IPv4-only server (-4)"      { mh_run --server -4 esxperf $V4 -u -t 1 -R; }
@test "esxperf UDP -R to an IPv6-only server (-6)"      { mh_run --server -6 esxperf $V6 -u -t 1 -R; }
@test "esxperf UDP -R to a server on the second address alone (-B)" {
    mh_run --server "-B $V4" esxperf $V4 -u -t 1 -R
}
# where the host gives no destination (VMkernel may lack IP_PKTINFO), the server
# answers as iperf3 does: from the routing table's address, right for the first one
@test "without IP_PKTINFO (ESXPERF_ENGINE_OFF=pktinfo): UDP -R -P 2 to the first address" {
    mh_run --env ESXPERF_ENGINE_OFF=pktinfo esxperf 198.18.60.1 -u -t 1 -R -P 2
}
@test "iperf3 3.22 UDP to the second address (IPv4)"    { mh_run 3.22 $V4 -u -t 1; }
@test "iperf3 3.22 UDP -R to the second address (IPv4)" { mh_run 3.22 $V4 -u -t 1 -R; }
@test "iperf3 3.22 UDP to the second address (IPv6)"    { mh_run 3.22 $V6 -u -t 1; }
@test "iperf3 3.22 UDP -R to the second address (IPv6)" { mh_run 3.22 $V6 -u -t 1 -R; }
@test "iperf3 3.22 UDP --bidir -P 2 (IPv6)"             { mh_run 3.22 $V6 -u -t 1 --bidir -P 2; }
@test "iperf3 3.12 UDP to the second address (IPv4)"    { mh_run 3.12 $V4 -u -t 1; }
@test "iperf3 3.12 UDP -R to the second address (IPv4)" { mh_run 3.12 $V4 -u -t 1 -R; }
@test "iperf3 3.12 UDP to the second address (IPv6)"    { mh_run 3.12 $V6 -u -t 1; }
@test "iperf3 3.12 UDP -R to the second address (IPv6)" { mh_run 3.12 $V6 -u -t 1 -R; }
@test "TCP to the second address: control and data (esxperf, IPv4 -R)" { mh_run esxperf $V4 -t 1 -R; }
@test "TCP to the second address: control and data (esxperf, IPv6)"    { mh_run esxperf $V6 -t 1; }
@test "TCP to the second address: control and data (iperf3 3.22, IPv4)" { mh_run 3.22 $V4 -t 1; }
@test "TCP to the second address: control and data (iperf3 3.12, IPv6 -R)" { mh_run 3.12 $V6 -t 1 -R; }
