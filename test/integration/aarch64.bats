#!/usr/bin/env bats
# The aarch64 (ESXi-Arm) build, run here under Debian's qemu-user-static
# (`qemu-aarch64-static BIN ...`, no binfmt needed), side by side with the x86_64 build:
#   esxpart  every image that test/lib/esxpart-images.sh makes (esxpart.bats' images),
#            every output mode: the same bytes and exit code as the x86_64 binary
#   esxperf  aarch64 <-> x86_64 esxperf and <-> iperf3 3.12 on loopback, both roles:
#            the byte counts of both ends agree; -J has the same keys and strings
#            as x86_64's (numbers masked: rates, times, ports differ run to run)
#   esxmtu   PASS, TOO-BIG and BLACK-HOLE (+ --discover) in esxmtu.bats' namespace
#            bench (test/lib/esxmtu-net.bash): the same verdicts as x86_64, text and
#            -J compared with the round-trip times masked
#   audit    each tool under `qemu-aarch64-static -strace` against the aarch64 lines
#            of build/syscalls.allow (test/lib/audit.bash, AUDIT_ARCH=aarch64)
#   kit      esxi/prepare.sh refuses a kit whose binaries are for another CPU
# This is emulation, not Arm hardware: qemu-user translates the instructions and hands
# the syscalls to this x86_64 kernel. Where it cannot do what an Arm host would (the
# socket options it refuses itself, syscall injection), the row says what it leaves out.
load ../lib/common
load ../lib/esxmtu-net

A64=${ESXDIAG_BIN_AARCH64:-$ESXDIAG_ROOT/out/aarch64/bin}
QEMU=qemu-aarch64-static

setup_file() {
    command -v "$QEMU" >/dev/null || flunk "$QEMU missing (apt-get install qemu-user-static)"
    local t
    for t in esxperf esxmtu esxpart esxdiag-selftest; do
        [ -x "$A64/$t" ] || flunk "$A64/$t missing (run make ARCH=aarch64)"
        [ -x "$BIN/$t" ] || flunk "$BIN/$t missing (run make)"
    done
    # esxpart.bats' images: every mk_* of the shared image builder, plus an empty disk
    export IMGDIR; IMGDIR=$(mktemp -d /tmp/esxpart-a64.XXXXXX)
    . "$ESXDIAG_ROOT/test/lib/esxpart-images.sh"
    local f
    for f in $(declare -F | awk '$3 ~ /^mk_/ { sub(/^mk_/, "", $3); print $3 }'); do
        "mk_$f" "$IMGDIR/$f.img"
    done
    truncate -s 1G "$IMGDIR/empty.img"
    # the esxmtu bench (x86_64 esxmtu checks that it is up)
    if [ "$(id -u)" = 0 ]; then
        export ESXMTU=$BIN/esxmtu
        mtunet_up "a64-$$"
    fi
}

teardown_file() {
    mtunet_down
    rm -rf "$IMGDIR"
}

setup() {
    PORT=$(free_port)
    PIDS=()
    TMP=$(mktemp -d)
}

teardown() {
    stop_pids
    rm -rf "$TMP"
}

a64() { "$QEMU" "$A64/$1" "${@:2}"; }   # one aarch64 tool, emulated

# both builds with the same arguments: output (stdout and stderr) and exit code
# must be identical, after the sed expression $MASK (empty: byte for byte)
MASK=''
same_as_x86() { # TOOL ARGS...
    local t=$1; shift
    local xo ao xrc=0 arc=0
    xo=$("$BIN/$t" "$@" 2>&1) || xrc=$?
    ao=$(a64 "$t" "$@" 2>&1) || arc=$?
    if [ -n "$MASK" ]; then
        xo=$(sed -E "$MASK" <<<"$xo"); ao=$(sed -E "$MASK" <<<"$ao")
    fi
    [ "$xrc" = "$arc" ] || flunk "$t $*: x86_64 exited $xrc, aarch64 $arc; aarch64 said: $ao"
    [ "$xo" = "$ao" ] || flunk "$t $*: outputs differ: $(diff <(echo "$xo") <(echo "$ao") | head -20)"
    SAME_RC=$xrc
}

# the shape of a JSON document, one line per value: its path (array indexes dropped),
# its type, and for strings, booleans and null the value itself; numbers are masked
# (rates, times, ports), and so are times inside strings ("0.123 ms", "0.92 s"); so is
# every value of the KEYs given (those that differ run to run or by machine); an engine
# line's held send buffer is dropped: it is decided from TCP_INFO (see tcp_info below)
# The socket options qemu-user does not hand to the kernel (it refuses them itself, or
# answers TCP_INFO with 4 bytes): the tools' fallback notes for these are qemu's, so
# the comparisons with x86_64 leave them out. The same list as the self-test's row.
QEMU_REFUSES="SO_ZEROCOPY SO_MAX_PACING_RATE IPV6_DONTFRAG IPV6_FLOWLABEL_MGR IPV6_FLOWINFO_SEND TCP_CONGESTION TCP_INFO"
export QEMU_REFUSES
json_shape() { # FILE [KEY...]
    python3 - "$@" <<'PY'
import json, os, re, sys
masked = set(sys.argv[2:])
qemu = set(os.environ["QEMU_REFUSES"].split())
out = set()
def drop_qemu(v):
    if isinstance(v, dict):
        for k, x in v.items():
            if k == "fallbacks" and isinstance(x, list):
                v[k] = [f for f in x if not (isinstance(f, dict) and f.get("option") in qemu)]
            elif k == "diagnosis" and isinstance(x, dict):
                # the verdict is drawn from TCP_INFO, which qemu does not answer: only
                # the object's keys are compared (the next row checks what it says)
                v[k] = sorted(x)
                continue
            else:
                drop_qemu(x)
    elif isinstance(v, list):
        for x in v: drop_qemu(x)
def walk(v, path, key):
    if isinstance(v, dict):
        for k, x in v.items(): walk(x, path + "." + k, k)
    elif isinstance(v, list):
        out.add(path + " array")
        for x in v: walk(x, path + "[]", key)
    elif key in masked:
        out.add(path + " " + type(v).__name__)
    elif isinstance(v, bool) or v is None:
        out.add(path + " " + json.dumps(v))
    elif isinstance(v, (int, float)):
        out.add(path + " number")
    else:
        v = re.sub(r", send buffer held at [0-9]+ KiB \([0-9]+ streams, smallest RTT [0-9]+ us\)", "", v)
        out.add(path + " string " + json.dumps(re.sub(r"[0-9]+\.[0-9]+(/[0-9]+\.[0-9]+)* (ms|s)\b", r"T \2", v)))
doc = json.load(open(sys.argv[1]))
drop_qemu(doc)
walk(doc, "", "")
print("\n".join(sorted(out)))
PY
}
same_json_shape() { # X86_FILE A64_FILE [KEY...]
    local x a
    x=$(json_shape "$1" "${@:3}") || flunk "$1 is not JSON: $(head -c 300 "$1")"
    a=$(json_shape "$2" "${@:3}") || flunk "$2 is not JSON: $(head -c 300 "$2")"
    [ "$x" = "$a" ] || flunk "JSON differs (x86_64 <, aarch64 >): $(diff <(echo "$x") <(echo "$a") | head -20)"
}


wait_pid() { # a server run with -1 ends after its test; bounded (10 s, 2x the worst seen under qemu)
    local i
    for i in $(seq 1 100); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
    flunk "process $1 still running"
}

# ---- esxpart

@test "esxpart: every image of the esxpart suite, every mode, the same bytes and exit code as x86_64" {
    local img opts n=0
    for img in "$IMGDIR"/*.img "$IMGDIR/missing.img"; do
        for opts in "" "-J" "-p" "-u" "--verify" "-J --verify" "-s 4096" "-J -s 4096"; do
            # shellcheck disable=SC2086
            same_as_x86 esxpart $opts "$img"
            n=$((n + 1))
        done
    done
    same_as_x86 esxpart -J --verify "$IMGDIR"/*.img
    same_as_x86 esxpart "$IMGDIR"/*.img
    same_as_x86 esxpart -g
    same_as_x86 esxpart -J -g
    same_as_x86 esxpart --bogus
    same_as_x86 esxpart --help
    [ "$n" -ge 80 ] || flunk "only $n runs: were the images made? $(ls "$IMGDIR")"
}

# ---- esxperf, both roles, against x86_64 esxperf and iperf3 3.12

@test "esxperf: aarch64 client -> x86_64 esxperf server, TCP -P 2: both ends count the same bytes" {
    "$BIN/esxperf" -s -1 -J -p "$PORT" >"$TMP/s.json" 2>&1 &
    PIDS+=($!)
    wait_port "$PORT"
    a64 esxperf -c 127.0.0.1 -p "$PORT" -t 1 -P 2 -J >"$TMP/c.json"
    wait_pid "${PIDS[0]}"
    local sent recv ssent srecv
    sent=$(jget "$TMP/c.json" "d['end']['sum_sent']['bytes']")
    recv=$(jget "$TMP/c.json" "d['end']['sum_received']['bytes']")
    srecv=$(jget "$TMP/s.json" "d['end']['sum_received']['bytes']")
    [ "$sent" -gt 1000000 ] || flunk "sent only $sent bytes"
    [ "$recv" = "$srecv" ] || flunk "client says the server received $recv, the server says $srecv"
    [ "$(jget "$TMP/c.json" "len(d['end']['streams'])")" = 2 ]
}

# an aarch64 server (-1 -J) against CLIENT (x86_64 esxperf or iperf3) with MODE: both
# ends report the same bytes sent and the same bytes received
a64_server_agrees() { # MIN_BYTES MODE CLIENT
    a64 esxperf -s -1 -J -p "$PORT" >"$TMP/s.json" 2>&1 &
    PIDS+=($!)
    wait_port "$PORT"
    # shellcheck disable=SC2086
    "$3" -c 127.0.0.1 -p "$PORT" -t 1 $2 -J >"$TMP/c.json"
    wait_pid "${PIDS[-1]}"
    local k
    for k in sum_sent sum_received; do
        [ "$(jget "$TMP/c.json" "d['end']['$k']['bytes']")" = "$(jget "$TMP/s.json" "d['end']['$k']['bytes']")" ] ||
            flunk "$3 '$2': $k bytes differ: client $(jget "$TMP/c.json" "d['end']['$k']['bytes']"), server $(head -c 400 "$TMP/s.json")"
    done
    [ "$(jget "$TMP/c.json" "d['end']['sum_sent']['bytes']")" -gt "$1" ] || flunk "$3 '$2': too few bytes"
    PORT=$(free_port)
}

@test "esxperf: x86_64 client -> aarch64 esxperf server, TCP and -R: both ends count the same bytes" {
    a64_server_agrees 1000000 "" "$BIN/esxperf"
    a64_server_agrees 1000000 -R "$BIN/esxperf"
}

@test "esxperf: aarch64 client -> iperf3 3.12 server, TCP and UDP: bytes (and packets) agree with iperf3's report" {
    iperf3 -s -p "$PORT" -1 -J --logfile "$TMP/i.json" &
    PIDS+=($!)
    wait_port "$PORT"
    a64 esxperf -c 127.0.0.1 -p "$PORT" -t 1 -J >"$TMP/c.json"
    wait_pid "${PIDS[-1]}"
    [ "$(jget "$TMP/c.json" "d['end']['sum_received']['bytes']")" = "$(jget "$TMP/i.json" "d['end']['sum_received']['bytes']")" ]
    [ "$(jget "$TMP/c.json" "d['end']['sum_sent']['bytes']")" -gt 1000000 ]

    PORT=$(free_port)
    iperf3 -s -p "$PORT" -1 -J --logfile "$TMP/iu.json" &
    PIDS+=($!)
    wait_port "$PORT"
    a64 esxperf -c 127.0.0.1 -p "$PORT" -u -b 10M -l 1400 -t 1 -J >"$TMP/cu.json"
    wait_pid "${PIDS[-1]}"
    local spk rpk sent srecv max
    spk=$(jget "$TMP/cu.json" "d['end']['sum_sent']['packets']")
    rpk=$(jget "$TMP/iu.json" "d['end']['sum_received']['packets']")
    sent=$(jget "$TMP/cu.json" "d['end']['sum_sent']['bytes']")
    srecv=$(jget "$TMP/iu.json" "d['end']['sum_received']['bytes']")
    [ "$spk" -gt 50 ] || flunk "only $spk packets"
    [ "$sent" = $((spk * 1400)) ] || flunk "$spk packets of 1400 bytes but $sent bytes sent"
    # iperf3 3.12's server closes its UDP socket at TEST_END, so datagrams still queued
    # are not counted (as esxperf.bats says): never more than sent, and what it misses
    # fits in its receive buffer (kernel default size)
    max=$(( $(cat /proc/sys/net/core/rmem_default) / 1400 ))
    [ "$rpk" -le "$spk" ] && [ $((spk - rpk)) -le "$max" ] ||
        flunk "sent $spk packets, iperf3 counted $rpk (at most $max may be left unread)"
    [ "$srecv" = $((rpk * 1400)) ] || flunk "iperf3 counted $rpk packets but $srecv bytes"
}

@test "esxperf: iperf3 3.12 client -> aarch64 esxperf server, TCP, -R and UDP: both ends agree" {
    a64_server_agrees 1000000 "" iperf3
    a64_server_agrees 1000000 -R iperf3
    a64_server_agrees 100000 "-u -b 10M" iperf3
}

@test "esxperf: -J of the aarch64 client has the same keys and strings as x86_64's (TCP, UDP -R)" {
    local mode arch
    for mode in "-P 2" "-u -b 10M -l 1400 -R"; do
        for arch in x86_64 aarch64; do
            iperf3 -s -p "$PORT" -1 >/dev/null &
            PIDS+=($!)
            wait_port "$PORT"
            # shellcheck disable=SC2086
            if [ "$arch" = x86_64 ]; then
                "$BIN/esxperf" -c 127.0.0.1 -p "$PORT" -t 1 $mode -J >"$TMP/$arch.json"
            else
                a64 esxperf -c 127.0.0.1 -p "$PORT" -t 1 $mode -J >"$TMP/$arch.json"
            fi
            wait_pid "${PIDS[-1]}"
            PORT=$(free_port)
        done
        # masked: the random cookie, the wall-clock time, uname (qemu reports aarch64),
        # and tcp_info: qemu-user answers getsockopt(TCP_INFO) with 4 bytes (it treats
        # every SOL_TCP option as an int), so under qemu esxperf says n/a (as on ESXi)
        same_json_shape "$TMP/x86_64.json" "$TMP/aarch64.json" cookie time system_info tcp_info
    done
}

@test "esxperf: retransmits read n/a (-1), not garbage, where TCP_INFO does not answer (as under qemu-user)" {
    # qemu-user answers getsockopt(TCP_INFO) with 4 bytes (it handles every SOL_TCP
    # option as an int), so the aarch64 binary's real TCP_INFO path cannot run here;
    # what can be checked is that it then takes the n/a path, as on ESXi
    iperf3 -s -p "$PORT" -1 >/dev/null &
    PIDS+=($!)
    wait_port "$PORT"
    a64 esxperf -c 127.0.0.1 -p "$PORT" -t 1 -J >"$TMP/c.json"
    wait_pid "${PIDS[-1]}"
    [ "$(jget "$TMP/c.json" "d['end']['esxperf']['tcp_info']")" = False ] ||
        skip "this qemu passes TCP_INFO through: the n/a path is not reached here"
    [ "$(jget "$TMP/c.json" "d['end']['sum_sent']['retransmits']")" = -1 ] ||
        flunk "retransmits without TCP_INFO: $(jget "$TMP/c.json" "d['end']['sum_sent']['retransmits']")"
    PORT=$(free_port)
    iperf3 -s -p "$PORT" -1 >/dev/null &
    PIDS+=($!)
    wait_port "$PORT"
    run a64 esxperf -c 127.0.0.1 -p "$PORT" -t 1
    assert_status 0
    assert_contains "Retransmits: n/a (getsockopt TCP_INFO failed on this host)"
    # the run's verdict still comes, and names the evidence it lacked
    [[ "$output" =~ bottleneck:\ .*not\ measured:\ [^$'\n']*TCP_INFO ]] ||
        flunk "no verdict naming TCP_INFO as not measured: $output"
}

# ---- esxmtu in the namespace bench (raw sockets under qemu-user)

need_bench() { [ -n "${NS_A:-}" ] || skip "needs root (namespaces, raw sockets)"; mtunet_reset; }
# round-trip and run times differ between runs and machines: mask them in the text
RTT_MASK='s/[0-9]+\.[0-9]+(\/[0-9]+\.[0-9]+)* (ms|s)\b/T \2/g'
inA_same() { # ESXMTU ARGS...: both builds inside A, outputs compared with times masked
    local xo ao xrc=0 arc=0
    xo=$(ip netns exec "$NS_A" "$BIN/esxmtu" -W 0.3 "$@" 2>&1) || xrc=$?
    ao=$(ip netns exec "$NS_A" "$QEMU" "$A64/esxmtu" -W 0.3 "$@" 2>&1) || arc=$?
    local o
    for o in $QEMU_REFUSES; do ao=$(grep -v "^fallback: $o refused " <<<"$ao"); done
    output=$ao
    [ "$xrc" = "$arc" ] || flunk "esxmtu $*: x86_64 exited $xrc, aarch64 $arc: $ao"
    [ "$(sed -E "$RTT_MASK" <<<"$xo")" = "$(sed -E "$RTT_MASK" <<<"$ao")" ] ||
        flunk "esxmtu $*: outputs differ: $(diff <(sed -E "$RTT_MASK" <<<"$xo") <(sed -E "$RTT_MASK" <<<"$ao"))"
    status=$arc
}

@test "esxmtu: PASS at 9000 end to end, IPv4 and IPv6, as x86_64 says it" {
    need_bench
    inA_same 198.18.1.2 2001:db8:1::2
    assert_status 0
    [[ "$output" == *"198.18.1.2         PASS        3/3 full-size replies"* ]] || flunk "$output"
    [[ "$output" == *"2001:db8:1::2      PASS"* ]] || flunk "$output"
}

@test "esxmtu: TOO-BIG names router R and next-hop MTU 1500, raw and errqueue methods" {
    need_bench
    mtunet_mtu_b 1500
    local m
    for m in raw errqueue; do
        inA_same --method "$m" 198.18.1.2 2001:db8:1::2
        assert_status 1
        assert_contains "TOO-BIG     router 198.18.0.1: frag needed and DF set, next-hop MTU 1500"
        assert_contains "TOO-BIG     router 2001:db8::1: Packet Too Big, next-hop MTU 1500"
    done
}

@test "esxmtu: BLACK-HOLE when R drops its frag-needed / Packet Too Big; --discover finds 1500" {
    need_bench
    mtunet_mtu_b 1500
    mtunet_drop_toobig
    inA_same --discover 198.18.1.2 2001:db8:1::2
    assert_status 1
    assert_contains "BLACK-HOLE  small probes answered (3/3)"
    assert_contains "discovered path MTU 1500 (1472 data bytes)"
    assert_contains "discovered path MTU 1500 (1452 data bytes)"
}

@test "esxmtu: -J (PASS, TOO-BIG, BLACK-HOLE with --discover) has the same keys and values as x86_64's, times masked" {
    need_bench
    local case
    for case in pass toobig blackhole; do
        mtunet_reset
        case $case in
            toobig) mtunet_mtu_b 1500 ;;
            blackhole) mtunet_mtu_b 1500; mtunet_drop_toobig ;;
        esac
        ip netns exec "$NS_A" "$BIN/esxmtu" -W 0.3 -J --discover 198.18.1.2 2001:db8:1::2 >"$TMP/x.json" || true
        ip netns exec "$NS_A" "$QEMU" "$A64/esxmtu" -W 0.3 -J --discover 198.18.1.2 2001:db8:1::2 >"$TMP/a.json" || true
        same_json_shape "$TMP/x.json" "$TMP/a.json"
        grep -q '"verdict"' "$TMP/a.json" || flunk "$case: no verdict in $(head -c 300 "$TMP/a.json")"
    done
}

# ---- syscall audit under qemu-aarch64-static -strace

@test "esxdiag-selftest: the same probes as x86_64, each with a result; the syscalls and the basic socket options work under qemu too" {
    run "$QEMU" "$A64/esxdiag-selftest" -J
    assert_status 0
    [ "$(jq -r .selftest.arch <<<"$output")" = aarch64 ] || flunk "arch: $(jq -c '.selftest | del(.probes)' <<<"$output")"
    jq -r '.selftest.probes[] | "\(.name) \(.result) \(.errno)"' <<<"$output" > "$TMP/a64"
    diff <(jq -r '.selftest.probes[].name' <<<"$output") <("$BIN/esxdiag-selftest" -J | jq -r '.selftest.probes[].name') ||
        flunk "aarch64 and x86_64 list other probes"
    # qemu-user hands these to the kernel as they are; the options it does not
    # translate (SO_ZEROCOPY, SO_MAX_PACING_RATE, the flow label, TCP_INFO's length,
    # TCP_CONGESTION's string) are refused by qemu, not by the kernel, and are not checked
    local name
    for name in accept4 pipe2 dup3 openat getrandom sendmmsg recvmmsg pthread_create \
        sched_setaffinity SO_REUSEADDR SO_RCVBUF UDP_SEGMENT IP_PKTINFO IPV6_V6ONLY; do
        grep -qx "$name works null" "$TMP/a64" || flunk "aarch64 $name: $(grep "^$name " "$TMP/a64")"
    done
    export AUDIT_ARCH=aarch64
    audit_syscalls "$A64/esxdiag-selftest" -J
    [ "$AUDIT_RC" = 0 ] || flunk "exit $AUDIT_RC under qemu -strace"
}

@test "audit: esxpart stays within the aarch64 lines of build/syscalls.allow" {
    export AUDIT_ARCH=aarch64
    audit_syscalls "$A64/esxpart" "$IMGDIR/esxi7.img"
    [ "$AUDIT_RC" = 0 ] || flunk "esxpart exited $AUDIT_RC"
    audit_syscalls "$A64/esxpart" -J --verify "$IMGDIR/bad_primary.img" "$IMGDIR/msdos.img" "$IMGDIR/missing.img"
    audit_syscalls "$A64/esxpart" --partedutil "$IMGDIR/nvme.img"
    audit_syscalls "$A64/esxpart" --types
}

@test "audit: esxperf client and server (TCP, UDP, -Z, -R) stay within the aarch64 list" {
    export AUDIT_ARCH=aarch64
    "$BIN/esxperf" -s -p "$PORT" >/dev/null 2>&1 &
    PIDS+=($!)
    wait_port "$PORT"
    audit_syscalls "$A64/esxperf" -c 127.0.0.1 -p "$PORT" -t 1 -P 2
    [ "$AUDIT_RC" = 0 ] || flunk "client exited $AUDIT_RC"
    audit_syscalls "$A64/esxperf" -c 127.0.0.1 -p "$PORT" -t 1 -u -R -b 10M
    [ "$AUDIT_RC" = 0 ]
    audit_syscalls "$A64/esxperf" -c 127.0.0.1 -p "$PORT" -t 1 -Z
    [ "$AUDIT_RC" = 0 ]
    local p2; p2=$(free_port)
    ( sleep 1; iperf3 -c 127.0.0.1 -p "$p2" -t 1 -R >/dev/null 2>&1 ) &
    PIDS+=($!)
    audit_syscalls "$A64/esxperf" -s -1 -p "$p2"
    [ "$AUDIT_RC" = 0 ] || flunk "server exited $AUDIT_RC"
}

@test "audit: esxmtu raw, errqueue, --discover --trace stay within the aarch64 list" {
    need_bench
    mtunet_mtu_b 1500
    ip netns exec "$NS_A" env AUDIT_ARCH=aarch64 bash -c 'ESXDIAG_ROOT=$1; shift; source "$ESXDIAG_ROOT/test/lib/audit.bash"
        audit_syscalls "$@" -W 0.2 198.18.1.2 2001:db8:1::2 &&
        audit_syscalls "$@" -W 0.2 --method errqueue 198.18.1.2 2001:db8:1::2 &&
        audit_syscalls "$@" -W 0.2 -J --discover --trace 198.18.1.2' _ "$ESXDIAG_ROOT" "$A64/esxmtu"
}

@test "audit: a syscall outside the aarch64 list is caught (openat removed from a copy of the lists)" {
    # the same audit against lists without openat must fail and name it
    mkdir -p "$TMP/root/build"
    grep -vE '^openat( |$)' "$ESXDIAG_ROOT/build/syscalls.allow" > "$TMP/root/build/syscalls.allow"
    cp "$ESXDIAG_ROOT/build/syscalls.optional" "$TMP/root/build/"
    run env ESXDIAG_ROOT="$TMP/root" AUDIT_ARCH=aarch64 bash -c \
        'source "$1/test/lib/audit.bash"; audit_syscalls "$2" "$3"' _ \
        "$ESXDIAG_ROOT" "$A64/esxpart" "$IMGDIR/esxi7.img"
    [ "$status" -ne 0 ] || flunk "the audit passed without openat on the list"
    assert_contains "(aarch64): openat"
    # and an x86_64-only line does not count for aarch64: 'open' is not allowed there
    run env AUDIT_ARCH=aarch64 bash -c 'source "$1/test/lib/audit.bash"; _audit_lists' _ "$ESXDIAG_ROOT"
    assert_status 0
    grep -qx openat <<<"$output" || flunk "openat missing from the aarch64 list"
    ! grep -qxE 'open|poll|select|stat' <<<"$output" || flunk "x86_64-only names in the aarch64 list: $output"
    # a line's "# reason" is no name
    ! grep -qvxE '[a-z0-9_]+' <<<"$output" || flunk "not a syscall name in the aarch64 list: $output"
}

# Under qemu-user strace sees qemu's host calls, not the guest's, so an injection reaches
# the guest only where qemu makes the guest's call as one host call of its own kind.
# That holds for socket() (the type flags pass through), which is injected here. It
# does not hold for the optional calls: qemu makes the guest's accept as a host
# accept4 (so refusing accept4 refuses musl's fallback as well), turns recvmmsg and
# sendmmsg into recvmsg/sendmsg loops, and makes getrandom and prlimit64 for itself;
# their fallbacks are the same C that the x86_64 audits refuse (docs/esxi.md).
@test "audit: socket()'s type flags refused (EINVAL) under qemu-user: the aarch64 client and server still test" {
    command -v strace >/dev/null || skip "strace not installed"
    "$BIN/esxperf" -s -1 -J -p "$PORT" >"$TMP/s.json" 2>&1 &
    PIDS+=($!)
    wait_port "$PORT"
    timeout 60 strace -f -qq -o "$TMP/c.tr" -e trace=socket -e inject=socket:error=EINVAL:when=1+2 \
        "$QEMU" "$A64/esxperf" -c 127.0.0.1 -p "$PORT" -t 1 -J >"$TMP/c.json" ||
        flunk "the aarch64 client failed with the socket flags refused: $(head -c 400 "$TMP/c.json")"
    wait_pid "${PIDS[-1]}"
    grep -q 'SOCK_CLOEXEC.*EINVAL.*(INJECTED)' "$TMP/c.tr" || flunk "no flagged socket() was refused: $(head -5 "$TMP/c.tr")"
    [ "$(jget "$TMP/c.json" "d['end']['sum_received']['bytes']")" -gt 1000000 ] || flunk "client: too few bytes"
    PORT=$(free_port)
    timeout 60 strace -f -qq -o "$TMP/s.tr" -e trace=socket -e inject=socket:error=EINVAL:when=1+2 \
        "$QEMU" "$A64/esxperf" -s -1 -J -p "$PORT" >"$TMP/s.json" 2>&1 &
    PIDS+=($!)
    wait_port "$PORT"
    "$BIN/esxperf" -c 127.0.0.1 -p "$PORT" -t 1 -J >"$TMP/c.json"
    wait_pid "${PIDS[-1]}"
    grep -q 'SOCK_CLOEXEC.*EINVAL.*(INJECTED)' "$TMP/s.tr" || flunk "no flagged socket() of the server was refused"
    [ "$(jget "$TMP/s.json" "d['end']['sum_received']['bytes']")" -gt 1000000 ] || flunk "server: too few bytes"
}

# ---- the kit: prepare.sh and the architecture of bin/

# an unpacked kit with ARCH's binaries, run by busybox sh with a stand-in esxcli and
# a uname that answers -m with HOST_ARCH
kit_prepare() { # KIT_ARCH HOST_ARCH ARGS...
    local kit=$TMP/$1/esxdiag-0.1.0 bindir
    [ "$1" = aarch64 ] && bindir=$A64 || bindir=$BIN
    mkdir -p "$kit/bin" "$kit/esxi" "$TMP/fakebin" "$TMP/host/rs" "$TMP/fw"
    # the host scripts only: esxi/fleet/ runs on the controller, it is not in the kit
    find "$ESXDIAG_ROOT/esxi" -maxdepth 1 -type f -exec cp -t "$kit/esxi/" {} +
    cp "$bindir"/esx* "$kit/bin/"
    printf '#!/bin/sh\n[ "$1" = -m ] && { echo %s; exit 0; }\nexec /bin/uname "$@"\n' "$2" > "$TMP/fakebin/uname"
    chmod +x "$TMP/fakebin/uname"
    ln -sf "$ESXDIAG_ROOT/test/lib/fake-esxcli" "$TMP/fakebin/esxcli"
    ln -sf "$(command -v busybox)" "$TMP/fakebin/od"
    echo 1 > "$TMP/host/exec"; echo false > "$TMP/host/tpm"; echo true > "$TMP/host/fw_enabled"
    : > "$TMP/host/log"
    run env PATH="$TMP/fakebin:$PATH" FAKE_ESXI="$TMP/host" ESXDIAG_FIREWALL_DIR="$TMP/fw" \
        busybox sh "$kit/esxi/prepare.sh" "${@:3}"
}

@test "kit: prepare.sh refuses an aarch64 kit on an x86_64 host and an x86_64 kit on ESXi-Arm, before any esxcli call" {
    # prepare.sh names the first program of bin/ (in the shell's glob order)
    local first; first=$(cd "$A64" && LC_ALL=C ls esx* | head -1)
    kit_prepare aarch64 x86_64 --allow-exec
    assert_status 2
    assert_contains "prepare.sh: this kit is built for aarch64 (bin/$first), this host is x86_64: unpack esxdiag-0.1.0-x86_64.tar.gz instead (nothing was changed)"
    [ ! -s "$TMP/host/log" ] || flunk "esxcli was called: $(cat "$TMP/host/log")"
    kit_prepare x86_64 aarch64 --allow-exec
    assert_status 2
    assert_contains "this kit is built for x86_64 (bin/$first), this host is aarch64"
    [ ! -s "$TMP/host/log" ] || flunk "esxcli was called: $(cat "$TMP/host/log")"
    # one foreign binary among the right ones is enough
    kit_prepare x86_64 x86_64
    cp "$A64/esxpart" "$TMP/x86_64/esxdiag-0.1.0/bin/esxpart"
    run env PATH="$TMP/fakebin:$PATH" FAKE_ESXI="$TMP/host" busybox sh "$TMP/x86_64/esxdiag-0.1.0/esxi/prepare.sh"
    assert_status 2
    assert_contains "built for aarch64 (bin/esxpart)"
}

@test "kit: prepare.sh goes on when the kit matches uname -m (x86_64 and aarch64 kits)" {
    kit_prepare x86_64 x86_64
    assert_status 0
    assert_contains "nothing was changed"
    assert_not_contains "this kit is built for"
    kit_prepare aarch64 aarch64
    assert_status 0
    assert_contains "nothing was changed"
    # the same on a slow host (esxcli answers after 0.3 s a call): the same answer
    FAKE_ESXCLI_SICK=slow FAKE_ESXCLI_SLOW_S=0.3 kit_prepare aarch64 aarch64
    assert_status 0
    assert_contains "nothing was changed"
    kit_prepare aarch64 arm64
    assert_status 0
}
