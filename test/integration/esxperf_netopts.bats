#!/usr/bin/env bats
# iperf3 3.22's socket and wire options, proven where they act: on the
# wire (the TOS byte and the IPv6 flow label captured by test/lib/tos_capture.py),
# on the sockets of the running processes (test/lib/sockopt_peek.py copies each
# socket of a running esxperf or iperf3 with pidfd_getfd and asks getsockopt), in
# the interface counters of a namespace with two interfaces (--bind-dev), and in
# what a test does when its peer stops (--rcv-timeout). Against esxperf and iperf3
# 3.22 (test/lib/iperf3-peers.sh) in both roles where both have the option.
# Loopback and namespaces of our own (198.18.40.0/22) only; all removed in teardown.
load ../lib/common

PEEK="$ESXDIAG_ROOT/test/lib/sockopt_peek.py"
CAPTURE="$ESXDIAG_ROOT/test/lib/tos_capture.py"

setup() {
    need_root
    PORT=$(free_port)
    PIDS=()
    STOPPED=()
    TMP=$(mktemp -d)
    NS=""
    source "$ESXDIAG_ROOT/test/lib/iperf3-peers.sh"
    IPERF3=$(iperf3_peer 3.22) || IPERF3=""
}

teardown() {
    local p
    for p in "${STOPPED[@]}"; do kill -CONT "$p" 2>/dev/null || true; done
    stop_pids
    if [ -n "$NS" ]; then
        for p in a b; do
            ip netns pids "$NS$p" 2>/dev/null | xargs -r kill 2>/dev/null || true
        done
        for p in a b; do ip netns del "$NS$p" 2>/dev/null || true; done
    fi
    rm -rf "$TMP"
}

need_peer() { [ -n "$IPERF3" ] || skip "no iperf3 3.22 peer (test/lib/iperf3-peers.sh fetch)"; }

# the pid of the last background job's own process (run straight, not via a wrapper)
bg() { "$@" & PIDS+=($!); }

# peek_until PID PYEXPR WHAT: poll (bounded, 10 s) the sockets of PID until one (d,
# a dict of sockopt_peek.py) makes PYEXPR true; flunk with WHAT and the sockets seen
peek_until() {
    local i
    for i in $(seq 1 100); do
        python3 "$PEEK" "$1" >"$TMP/peek" 2>&1 || true
        python3 -c 'import json,sys
ds = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
sys.exit(0 if any(eval(sys.argv[2], {}, {"d": d}) for d in ds) else 1)' "$TMP/peek" "$2" && return 0
        sleep 0.1
    done
    flunk "$3: no socket of pid $1 has $2: $(cat "$TMP/peek")"
}

# capture_start PORT: TOS and flow labels of data packets on PORT into $TMP/cap-PORT.json
capture_start() {
    python3 "$CAPTURE" --port "$1" --seconds 60 --ready "$TMP/ready-$1" >"$TMP/cap-$1.json" &
    CAP=$!
    PIDS+=($CAP)
    local i
    for i in $(seq 1 50); do [ -f "$TMP/ready-$1" ] && return 0; sleep 0.1; done
    flunk "capture did not start"
}
# seen FILE PYEXPR: the capture (c) makes PYEXPR true
seen() {
    python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2" ||
        flunk "capture lacks $2: $(cat "$1")"
}

@test "--dscp: names and numbers land in the TOS byte on the wire, IPv4 and IPv6, both directions, iperf3 3.22 client too" {
    bg "$BIN/esxperf" -s -p "$PORT"
    wait_port "$PORT"
    capture_start "$PORT"
    # client, host, options, the TOS byte it must give, direction seen from the server
    local cases=(
        "esxperf 127.0.0.1 --dscp,af41 136 to_port"      # AF41 = 34 << 2
        "esxperf ::1 --dscp,EF,-R 184 from_port"         # our server applies it (-R)
        "esxperf ::1 -u,-b,10M,--dscp,0x0a 40 to_port"   # hex 10 = AF11
        "esxperf 127.0.0.1 -u,-b,10M,--dscp,014,-R 48 from_port"   # octal 12 = AF12
        "esxperf 127.0.0.1 --dscp,cs6 192 to_port"
    )
    [ -n "$IPERF3" ] && cases+=(
        "iperf3 127.0.0.1 --dscp,cs5,-R 160 from_port"   # iperf3's TOS, our server's socket
        "iperf3 ::1 -u,-b,10M,--dscp,va,-R 176 from_port"
    )
    local c cmd host extra tos dir fam
    for c in "${cases[@]}"; do
        read -r cmd host extra tos _ <<<"$c"
        [ "$cmd" = esxperf ] && cmd=$BIN/esxperf || cmd=$IPERF3
        run timeout 20 "$cmd" -c "$host" -p "$PORT" -t 1 ${extra//,/ }
        [ "$status" -eq 0 ] || flunk "$c: $output"
    done
    kill "$CAP"; wait "$CAP" || true
    for c in "${cases[@]}"; do
        read -r cmd host extra tos dir <<<"$c"
        fam=ipv4; [ "$host" = ::1 ] && fam=ipv6
        seen "$TMP/cap-$PORT.json" "$tos in c['$dir']['$fam']"
    done
}

@test "-L: the IPv6 flow label is on the wire of the TCP data stream (::1), to esxperf and iperf3 3.22 servers" {
    bg "$BIN/esxperf" -s -p "$PORT"
    wait_port "$PORT"
    capture_start "$PORT"
    run timeout 20 "$BIN/esxperf" -c ::1 -p "$PORT" -t 1 -L 0x12345
    assert_status 0
    run timeout 20 "$BIN/esxperf" -c ::1 -p "$PORT" -t 1 --flowlabel 777
    assert_status 0
    kill "$CAP"; wait "$CAP" || true
    seen "$TMP/cap-$PORT.json" "0x12345 in c['flowlabel']['to_port'] and 777 in c['flowlabel']['to_port']"
    [ -n "$IPERF3" ] || return 0
    local p2
    p2=$(free_port)
    bg "$IPERF3" -s -1 -p "$p2"
    wait_port "$p2"
    capture_start "$p2"
    run timeout 20 "$BIN/esxperf" -c ::1 -p "$p2" -t 1 -L 0xabcde
    assert_status 0
    kill "$CAP"; wait "$CAP" || true
    seen "$TMP/cap-$p2.json" "0xabcde in c['flowlabel']['to_port']"
}

@test "--fq-rate: SO_MAX_PACING_RATE on the data sockets of both ends, also when iperf3 3.22 asks or is asked" {
    bg "$BIN/esxperf" -s -p "$PORT"
    wait_port "$PORT"
    # 200 Mbit/s = 25,000,000 bytes/s on our client's stream and on our server's
    bg "$BIN/esxperf" -c 127.0.0.1 -p "$PORT" -t 8 --fq-rate 200M
    local cli=$!
    local data="d['type']=='tcp' and not d['listening'] and d['max_pacing_rate']==25000000"
    peek_until "$cli" "$data" "esxperf client --fq-rate 200M"
    peek_until "${PIDS[0]}" "$data" "esxperf server for a --fq-rate 200M client"
    kill "$cli"
    wait "$cli" || true
    need_peer
    # iperf3 3.22's client asks our server (UDP): 160 Mbit/s = 20,000,000 bytes/s
    bg "$IPERF3" -c 127.0.0.1 -p "$PORT" -t 8 -u -b 10M --fq-rate 160M
    cli=$!
    peek_until "${PIDS[0]}" "d['type']=='udp' and d['peer'] and d['max_pacing_rate']==20000000" \
        "esxperf server for an iperf3 3.22 -u --fq-rate 160M client"
    kill "$cli"
    wait "$cli" || true
    # our client asks an iperf3 3.22 server, which sends (-R): 80 Mbit/s
    local p2
    p2=$(free_port)
    bg "$IPERF3" -s -1 -p "$p2"
    local srv=$!
    wait_port "$p2"
    bg "$BIN/esxperf" -c 127.0.0.1 -p "$p2" -t 8 -R --fq-rate 80M
    peek_until "$srv" "d['type']=='tcp' and not d['listening'] and d['max_pacing_rate']==10000000" \
        "iperf3 3.22 server for an esxperf -R --fq-rate 80M client"
}

# the sockets of one esxperf process, sorted by descriptor: the control connection is
# the first connected TCP socket, the data streams the ones after it
ctl_is() { echo "d['type']=='tcp' and d['peer'] and d['fd']==min(x['fd'] for x in ds if x['type']=='tcp' and x['peer']) and $1"; }

@test "--snd-timeout and --cntl-ka: TCP_USER_TIMEOUT on control and data connections, keepalive on the control one, both roles" {
    bg "$BIN/esxperf" -s -p "$PORT" --snd-timeout 7000 --cntl-ka=30/5/3
    local srv=$!
    wait_port "$PORT"
    bg "$BIN/esxperf" -c 127.0.0.1 -p "$PORT" -t 8 --snd-timeout 4000 --cntl-ka=20/4/2
    local cli=$!
    # peek_until's expression sees one socket (d); the control socket is the one
    # with keepalive, the data stream the one without
    peek_until "$cli" "d['type']=='tcp' and d['keepalive'] and d['user_timeout_ms']==4000 and (d['keepidle'],d['keepintvl'],d['keepcnt'])==(20,4,2)" \
        "client control connection"
    peek_until "$cli" "d['type']=='tcp' and not d['keepalive'] and d['user_timeout_ms']==4000" \
        "client data stream"
    peek_until "$srv" "d['type']=='tcp' and d['peer'] and d['keepalive'] and d['user_timeout_ms']==7000 and (d['keepidle'],d['keepintvl'],d['keepcnt'])==(30,5,3)" \
        "server control connection"
    peek_until "$srv" "d['type']=='tcp' and d['peer'] and not d['keepalive'] and d['user_timeout_ms']==7000" \
        "server data stream"
    # --cntl-ka alone: keepalive with the system's times
    kill "$cli"; wait "$cli" || true
    bg "$BIN/esxperf" -c 127.0.0.1 -p "$PORT" -t 8 --cntl-ka
    cli=$!
    peek_until "$cli" "d['type']=='tcp' and d['keepalive'] and d['user_timeout_ms']==0" \
        "client control connection with --cntl-ka"
}

@test "--rcv-timeout: a receiving client (-R) and a receiving server end the test when the peer stops sending (iperf3 3.22 peers)" {
    need_peer
    # our client receives from an iperf3 server that is then stopped (SIGSTOP)
    bg "$IPERF3" -s -1 -p "$PORT"
    local srv=$!
    wait_port "$PORT"
    "$BIN/esxperf" -c 127.0.0.1 -p "$PORT" -t 30 -R --rcv-timeout 1500 >"$TMP/c.out" 2>&1 &
    local cli=$!
    PIDS+=($cli)
    wait_established "$PORT" 2
    sleep 0.5
    kill -STOP "$srv"
    STOPPED+=("$srv")
    # 1.5 s without data ends it; 20 s bounds a hang (the test asked for 30)
    local i rc=0
    for i in $(seq 1 200); do kill -0 "$cli" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$cli" 2>/dev/null && flunk "the client still runs 20 s after its server stopped: $(cat "$TMP/c.out")"
    wait "$cli" || rc=$?
    [ "$rc" -eq 1 ] || flunk "client exit $rc: $(cat "$TMP/c.out")"
    grep -q -- "--rcv-timeout" "$TMP/c.out" || flunk "no --rcv-timeout message: $(cat "$TMP/c.out")"
    kill -CONT "$srv"; kill "$srv" 2>/dev/null || true
    # our server receives from an iperf3 client that is then stopped
    local p2
    p2=$(free_port)
    "$BIN/esxperf" -s -1 -p "$p2" --rcv-timeout 1500 >"$TMP/s.out" 2>&1 &
    srv=$!
    PIDS+=($srv)
    wait_port "$p2"
    bg "$IPERF3" -c 127.0.0.1 -p "$p2" -t 30
    cli=$!
    wait_established "$p2" 2
    sleep 0.5
    kill -STOP "$cli"
    STOPPED+=("$cli")
    for i in $(seq 1 200); do kill -0 "$srv" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$srv" 2>/dev/null && flunk "the server still runs 20 s after its client stopped: $(cat "$TMP/s.out")"
    grep -q -- "--rcv-timeout" "$TMP/s.out" || flunk "no --rcv-timeout message: $(cat "$TMP/s.out")"
}

# two namespaces joined by two veth pairs: a (client) va1 198.18.41.1, va2 198.18.42.1;
# b (server) vb1 198.18.41.2, vb2 198.18.42.2 and the service address 198.18.43.2 on
# lo. From a, 198.18.43.2 is routed by va1 (metric 10) and by va2 (metric 20): the
# default path is va1, and only a socket bound to va2 leaves by va2.
two_path_net() {
    NS="esxdiag-bd-$$-"
    ip netns add "${NS}a" && ip netns add "${NS}b" || flunk "cannot create namespaces"
    local i
    for i in 1 2; do
        ip link add "va$i" netns "${NS}a" type veth peer name "vb$i" netns "${NS}b" ||
            flunk "cannot create veth $i"
        ip -n "${NS}a" addr add "198.18.4$i.1/24" dev "va$i"
        ip -n "${NS}b" addr add "198.18.4$i.2/24" dev "vb$i"
        ip -n "${NS}a" link set "va$i" up
        ip -n "${NS}b" link set "vb$i" up
    done
    ip -n "${NS}a" link set lo up
    ip -n "${NS}b" link set lo up
    ip -n "${NS}b" addr add 198.18.43.2/32 dev lo
    ip -n "${NS}a" route add 198.18.43.2/32 via 198.18.41.2 dev va1 metric 10
    ip -n "${NS}a" route add 198.18.43.2/32 via 198.18.42.2 dev va2 metric 20
    A=(ip netns exec "${NS}a")
    B=(ip netns exec "${NS}b")
}
tx_bytes() { ip -n "${NS}a" -s -j link show "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["stats64"]["tx"]["bytes"])'; }

# run_path DEV CLIENT ARGS...: the client in a, 20 MiB to b; asserts that DEV carried
# them (and the other interface less than a tenth)
run_path() {
    local dev=$1 other a0 o0 a1 o1
    shift
    other=va1; [ "$dev" = va1 ] && other=va2
    a0=$(tx_bytes "$dev"); o0=$(tx_bytes "$other")
    run timeout 30 "${A[@]}" "$@" -n 20M
    [ "$status" -eq 0 ] || flunk "$*: $output"
    a1=$(tx_bytes "$dev"); o1=$(tx_bytes "$other")
    [ $((a1 - a0)) -ge 20971520 ] || flunk "$*: $dev sent $((a1 - a0)) bytes, $other $((o1 - o0))"
    [ $((o1 - o0)) -lt 2097152 ] || flunk "$*: $other sent $((o1 - o0)) bytes besides $dev"
}

@test "--bind-dev, -B ADDR%DEV, -c HOST%DEV: the test leaves by the named interface; a server bound to one interface refuses the other" {
    two_path_net
    "${B[@]}" "$BIN/esxperf" -s -p "$PORT" >"$TMP/s.out" 2>&1 &
    PIDS+=($!)
    wait_port "$PORT" "${NS}b"
    run_path va1 "$BIN/esxperf" -c 198.18.43.2 -p "$PORT"          # the routes' choice
    run_path va2 "$BIN/esxperf" -c 198.18.43.2 -p "$PORT" --bind-dev va2
    run_path va2 "$BIN/esxperf" -c 198.18.43.2 -p "$PORT" -B 198.18.42.1%va2
    run_path va2 "$BIN/esxperf" -c 198.18.43.2%va2 -p "$PORT"
    run timeout 10 "${A[@]}" "$BIN/esxperf" -c 198.18.43.2 -p "$PORT" --bind-dev nosuch0 -t 1
    assert_status 2
    assert_contains "no such interface"
    kill "${PIDS[-1]}"
    # a server bound to vb1 takes what comes by vb1 and refuses what comes by vb2
    local p2
    p2=$(free_port)
    "${B[@]}" "$BIN/esxperf" -s -p "$p2" --bind-dev vb1 >"$TMP/s2.out" 2>&1 &
    PIDS+=($!)
    wait_port "$p2" "${NS}b"
    run_path va1 "$BIN/esxperf" -c 198.18.43.2 -p "$p2"
    run timeout 10 "${A[@]}" "$BIN/esxperf" -c 198.18.43.2 -p "$p2" --bind-dev va2 -t 1
    assert_status 2
    assert_contains "Connection refused"
    [ -n "$IPERF3" ] || return 0
    # iperf3 3.22 both ways: its client bound to va2 into our server on vb2's side...
    local p3
    p3=$(free_port)
    "${B[@]}" "$BIN/esxperf" -s -p "$p3" -B 198.18.43.2%vb2 >"$TMP/s3.out" 2>&1 &
    PIDS+=($!)
    wait_port "$p3" "${NS}b"
    run_path va2 "$IPERF3" -c 198.18.43.2 -p "$p3" --bind-dev va2
    # ...and our client bound to va2 into an iperf3 3.22 server bound to vb2
    local p4
    p4=$(free_port)
    "${B[@]}" "$IPERF3" -s -p "$p4" --bind-dev vb2 >"$TMP/s4.out" 2>&1 &
    PIDS+=($!)
    wait_port "$p4" "${NS}b"
    run_path va2 "$BIN/esxperf" -c 198.18.43.2 -p "$p4" --bind-dev va2
}

# UDP across the two paths cannot work for iperf3 either (the server's reply leaves
# from the interface's address, not 198.18.43.2): the UDP sockets are read instead
@test "--bind-dev on the UDP sockets of both ends (loopback)" {
    bg "$BIN/esxperf" -s -p "$PORT" --bind-dev lo
    local srv=$!
    wait_port "$PORT"
    peek_until "$srv" "d['listening'] and d['bind_dev']=='lo'" "server TCP listener"
    bg "$BIN/esxperf" -c 127.0.0.1%lo -p "$PORT" -t 8 -u -b 10M
    local cli=$!
    peek_until "$cli" "d['type']=='udp' and d['peer'] and d['bind_dev']=='lo'" "client UDP stream"
    peek_until "$cli" "d['type']=='tcp' and d['bind_dev']=='lo'" "client control connection"
    peek_until "$srv" "d['type']=='udp' and d['peer'] and d['bind_dev']=='lo'" "server UDP stream"
}

@test "-m/--mptcp: the data streams are MPTCP at both ends (esxperf and iperf3 3.22); a kernel without MPTCP is named, exit 2" {
    [ "$(cat /proc/sys/net/mptcp/enabled 2>/dev/null)" = 1 ] || skip "this kernel has no MPTCP (net.mptcp.enabled)"
    bg "$BIN/esxperf" -s -p "$PORT" -m
    local srv=$!
    wait_port "$PORT"
    bg "$BIN/esxperf" -c 127.0.0.1 -p "$PORT" -t 8 --mptcp
    local cli=$!
    # 262 = IPPROTO_MPTCP; the control connection stays TCP (6), as in iperf3
    peek_until "$cli" "d['type']=='tcp' and d['proto']==262 and d['peer']" "client data stream"
    peek_until "$cli" "d['type']=='tcp' and d['proto']==6 and d['peer']" "client control connection"
    peek_until "$srv" "d['listening'] and d['proto']==262" "server listener"
    peek_until "$srv" "d['type']=='tcp' and d['proto']==262 and d['peer']" "server data stream"
    kill "$cli"; wait "$cli" || true
    if [ -n "$IPERF3" ]; then
        # our client's "mptcp" parameter makes an iperf3 3.22 server (no -m) take MPTCP
        local p2
        p2=$(free_port)
        bg "$IPERF3" -s -1 -p "$p2"
        local isrv=$!
        wait_port "$p2"
        bg "$BIN/esxperf" -c 127.0.0.1 -p "$p2" -t 8 -m
        peek_until "$isrv" "d['type']=='tcp' and d['proto']==262 and d['peer']" "iperf3 3.22 server data stream"
        # an iperf3 3.22 -m client into our -m server
        bg "$IPERF3" -c 127.0.0.1 -p "$PORT" -t 8 -m
        peek_until "$srv" "d['type']=='tcp' and d['proto']==262 and d['peer']" "server data stream of an iperf3 -m client"
        # and into our server without -m: its "mptcp" parameter is honoured as by
        # iperf3 3.22 (an MPTCP listener for the test's streams, plain TCP after)
        local p3
        p3=$(free_port)
        bg "$BIN/esxperf" -s -p "$p3"
        local psrv=$!
        wait_port "$p3"
        bg "$IPERF3" -c 127.0.0.1 -p "$p3" -t 3 -m
        local icli=$!
        peek_until "$psrv" "d['type']=='tcp' and d['proto']==262 and d['peer']" "server (no -m) data stream of an iperf3 -m client"
        wait "$icli" || flunk "iperf3 -m client into esxperf -s failed"
        peek_until "$psrv" "d['listening'] and d['proto']==6" "server listener back to TCP after the test"
    fi
    # a kernel without MPTCP (net.mptcp.enabled=0 in a namespace of our own)
    NS="esxdiag-mp-$$-"
    ip netns add "${NS}a" || flunk "cannot create namespace"
    ip -n "${NS}a" link set lo up
    ip netns exec "${NS}a" sysctl -qw net.mptcp.enabled=0
    run ip netns exec "${NS}a" "$BIN/esxperf" -c 127.0.0.1 -p "$PORT" -m -t 1
    assert_status 2
    assert_contains "this kernel makes no MPTCP sockets"
    [ "${#lines[@]}" -eq 1 ] || flunk "more than one line: $output"
    run ip netns exec "${NS}a" "$BIN/esxperf" -s -p "$PORT" -m
    assert_status 2
    assert_contains "this kernel makes no MPTCP sockets"
}

@test "--gsro: esxperf asks an iperf3 3.22 server for UDP GSO/GRO (its JSON says so), and only with the option" {
    need_peer
    local g
    for g in --gsro ""; do
        "$IPERF3" -s -1 -p "$PORT" -J >"$TMP/s.json" 2>&1 &
        PIDS+=($!)
        wait_port "$PORT"
        run timeout 20 "$BIN/esxperf" -c 127.0.0.1 -p "$PORT" -t 1 -u -b 100M -l 1400 $g
        assert_status 0
        wait "${PIDS[-1]}" || true
        local want=0; [ -n "$g" ] && want=1
        python3 -c 'import json,sys; t=json.load(open(sys.argv[1]))["start"]["test_start"]; sys.exit(0 if (t["gso"],t["gro"])==(int(sys.argv[2]),)*2 else 1)' \
            "$TMP/s.json" "$want" || flunk "with '$g': iperf3's test_start: $(head -c 1500 "$TMP/s.json")"
        PORT=$(free_port)
    done
}

@test "--sctp is refused with a reason, exit 2; --version4/--version6/--bandwidth are -4/-6/-b" {
    run "$BIN/esxperf" -c 127.0.0.1 --sctp
    assert_status 2
    assert_contains "ESXi has no SCTP"
    [ "${#lines[@]}" -eq 1 ] || flunk "more than one line: $output"
    bg "$BIN/esxperf" -s -p "$PORT" --version4
    wait_port "$PORT"
    run timeout 20 "$BIN/esxperf" -c 127.0.0.1 -p "$PORT" -t 1 --version4 --bandwidth 300M -J
    assert_status 0
    python3 -c 'import json,sys; d=json.loads(sys.argv[1]); sys.exit(0 if d["start"]["test_start"]["target_bitrate"]==300000000 else 1)' "$output" ||
        flunk "target_bitrate: $output"
    # the server listens on IPv4 only
    run timeout 10 "$BIN/esxperf" -c ::1 -p "$PORT" -t 1
    assert_status 2
    run timeout 10 "$BIN/esxperf" -c 127.0.0.1 -p "$PORT" -t 1 --version6
    assert_status 2
    assert_contains "-c 127.0.0.1 is an IPv4 address but -6 asks for IPv6"
}
