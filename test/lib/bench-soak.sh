#!/bin/bash
# Soak: one `esxperf -s` serves SOAK_TESTS (default 1000)
# consecutive tests from a seeded, reproducible mix of clients on loopback:
#   clients  esxperf, iperf3 3.22 (Debian sid, test/lib/iperf3-peers.sh), iperf3 3.12 (1 in 25:
#            its token is PKCS#1 v1.5, which the server accepts as well as OAEP)
#   modes    TCP, TCP -R, TCP --bidir, TCP -P 4, UDP, UDP -R, UDP --bidir
#   auth     the server is started with RSA authentication, since a server takes its
#            auth setup only at start: "auth on" tests carry valid credentials (OAEP
#            from esxperf and 3.22, PKCS#1 v1.5 from 3.12) and must run; "auth off"
#            tests carry no token (1 in 25): they must be refused with the
#            authentication error, and the server must go on (a refused token also
#            makes it pause 1 s, which the next client waits out)
#   kills    one test in twenty: its client gets SIGKILL at a random moment
# Short tests: -n 16M (TCP) or 1-2 MiB (UDP) with -i 0.1 (iperf3 3.18+ ends an -n
# test at an interval boundary); UDP -R by time, -t 1 (a UDP count cannot arrive
# exactly as sent when a datagram is lost).
# Prints the server's RSS, open descriptors and threads at tests 0, 1/4, 1/2, 3/4 and
# all (measured idle, after the refused connections it keeps draining for 1 s are
# closed), and counts: every test that should run ran; every refusal was the
# authentication error; no client ever got ACCESS_DENIED (a dead test holding the
# server). Exit 1 if any count is off.
#   ./test/lib/bench-soak.sh            (make bench runs it)
#   SOAK_TESTS=100 SOAK_SEED=7 ./test/lib/bench-soak.sh
set -u
cd "$(dirname "$0")/../.." || exit 2
ESXPERF=${ESXPERF:-$PWD/out/bin/esxperf}
N=${SOAK_TESTS:-1000}
SEED=${SOAK_SEED:-1}
[ -x "$ESXPERF" ] || { echo "bench-soak: $ESXPERF missing (run make)" >&2; exit 2; }
if ! [[ "$N" =~ ^[0-9]+$ ]] || [ "$N" -lt 4 ]; then
    echo "bench-soak: SOAK_TESTS=$N: give a count of 4 or more" >&2
    exit 2
fi
# shellcheck source=test/lib/iperf3-peers.sh
source test/lib/iperf3-peers.sh
if ! iperf3_peers_fetch; then
    echo "bench-soak: $IPERF3_PEERS_ERROR: the soak runs without iperf3 3.22 clients"
fi
I322=$(iperf3_peer 3.22 || true)
I312=$(iperf3_peer 3.12 || true)
command -v openssl >/dev/null || { echo "bench-soak: openssl missing" >&2; exit 2; }

TMP=$(mktemp -d)
SPID=""
cleanup() {
    [ -n "$SPID" ] && kill "$SPID" 2>/dev/null && wait "$SPID" 2>/dev/null
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# below the ephemeral range (32768+), where client sockets take their local ports
PORT=$((20000 + RANDOM % 12000))
RANDOM=$SEED    # from here on the mix is the same for the same seed

if ! openssl genrsa -traditional -out "$TMP/priv.pem" 2048 2>/dev/null ||
    ! openssl rsa -in "$TMP/priv.pem" -pubout -out "$TMP/pub.pem" 2>/dev/null; then
    echo "bench-soak: openssl could not make an RSA key" >&2
    exit 2
fi
chmod 600 "$TMP/priv.pem"
printf 'soak,%s\n' "$(printf '%s' '{soak}pw' | sha256sum | cut -d' ' -f1)" >"$TMP/users.csv"
export IPERF3_PASSWORD=pw

"$ESXPERF" -s -p "$PORT" --rsa-private-key-path "$TMP/priv.pem" \
    --authorized-users-path "$TMP/users.csv" >"$TMP/server.log" 2>&1 &
SPID=$!
# our own server must hold the port (other jobs on the machine pick ports too)
for _ in $(seq 1 50); do ss -ltnpH "sport = :$PORT" | grep -q "pid=$SPID," && break; sleep 0.1; done
ss -ltnpH "sport = :$PORT" | grep -q "pid=$SPID," ||
    { echo "bench-soak: the server did not listen on port $PORT: $(cat "$TMP/server.log")" >&2; exit 2; }

# server figures once idle: the refused and denied connections it drains are closed
# within 1 s of their answer, so wait until the descriptor count is steady
sample() {
    local fds prev="" i
    for i in $(seq 1 30); do
        fds=$(find "/proc/$SPID/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
        [ "$fds" = "$prev" ] && break
        prev=$fds
        sleep 0.2
    done
    printf '%6s %8s %6s %8s\n' "$1" "$(awk '/^VmRSS/ { print $2 }' "/proc/$SPID/status")" \
        "$fds" "$(awk '/^Threads/ { print $2 }' "/proc/$SPID/status")" >>"$TMP/samples"
}

# pick a client and mode for test $1 from the seeded sequence; sets KIND BIN ARGS EXPECT
pick() {
    local r=$((RANDOM % 100)) mode=$((RANDOM % 7)) who=$((RANDOM % 100))
    local creds=(--username soak --rsa-public-key-path "$TMP/pub.pem")
    EXPECT=run
    if [ "$who" -lt 50 ] || [ -z "$I322" ]; then KIND=esxperf BIN=$ESXPERF; else KIND=iperf3-3.22 BIN=$I322; fi
    if [ "$r" -lt 4 ] && [ -n "$I312" ]; then
        KIND=iperf3-3.12 BIN=$I312                   # a PKCS#1 token: the server takes it too
    elif [ "$r" -lt 8 ]; then
        creds=() EXPECT=refused                      # auth off: no token at all
    fi
    # short tests by count (-t takes whole seconds); iperf3 3.18+ ends an -n test at
    # an interval boundary, so -i 0.1; UDP -R by time (a UDP -n/-k count cannot
    # arrive exactly as sent when a datagram is lost)
    local len=(-n 16M -i 0.1)
    case $mode in
    0) ARGS=() ;;
    1) ARGS=(-R) ;;
    2) ARGS=(--bidir) ;;
    3) ARGS=(-P 4) ;;
    4) ARGS=(-u -b 200M) len=(-n 2M -i 0.1) ;;
    5) ARGS=(-u -b 200M -R) len=(-t 1) ;;
    6) ARGS=(-u -b 100M --bidir) len=(-n 1M -i 0.1) ;;
    esac
    ARGS=(-c 127.0.0.1 -p "$PORT" "${len[@]}" "${ARGS[@]}" "${creds[@]}")
    KILL_MS=""
    # a test here lasts 100-300 ms (UDP -R 1 s): a kill within 250 ms mostly lands in it
    if [ $((RANDOM % 20)) -eq 0 ]; then KILL_MS=$((RANDOM % 250)); fi
}

ran=0 should_run=0 refused=0 should_refuse=0 killed=0 killed_late=0 denied=0 t0=$SECONDS
: >"$TMP/samples"
: >"$TMP/bad"
: >"$TMP/times"
echo "soak: one esxperf -s (RSA auth on), $N tests, seed $SEED; clients: esxperf${I322:+, iperf3 3.22}${I312:+, iperf3 3.12}"
sample 0
prev="none"
for i in $(seq 1 "$N"); do
    pick "$i"
    out="$TMP/client.out"
    rc=0
    ts=$EPOCHREALTIME
    if [ -n "$KILL_MS" ]; then
        "$BIN" "${ARGS[@]}" >"$out" 2>&1 &
        c=$!
        sleep "$(awk -v m="$KILL_MS" 'BEGIN { printf "%.3f", m / 1000 }')"
        kill -9 "$c" 2>/dev/null
        wait "$c" 2>/dev/null
        # 137: SIGKILL landed while it ran; else the test had finished first
        [ $? -eq 137 ] && killed=$((killed + 1)) || killed_late=$((killed_late + 1))
    else
        # a test takes under 2 s here; 40 s bounds a hang (the server's own stall
        # guards end a stranded test within 30 s)
        timeout -k 2 40 "$BIN" "${ARGS[@]}" >"$out" 2>&1 || rc=$?
        if [ "$EXPECT" = run ]; then
            should_run=$((should_run + 1))
            if [ "$rc" -eq 0 ]; then ran=$((ran + 1)); else
                echo "test $i ($KIND ${ARGS[*]}): exit $rc: $(tail -n 2 "$out" | tr '\n' ' ' | cut -c1-200)" >>"$TMP/bad"
            fi
        else
            should_refuse=$((should_refuse + 1))
            if [ "$rc" -ne 0 ] && grep -Eqi 'authentication failed|authorization failed' "$out"; then
                refused=$((refused + 1))
            else
                echo "test $i ($KIND ${ARGS[*]}): should be refused, exit $rc: $(tail -n 2 "$out" | tr '\n' ' ' | cut -c1-200)" >>"$TMP/bad"
            fi
        fi
    fi
    if grep -Eqi 'ACCESS_DENIED|busy' "$out"; then
        denied=$((denied + 1))
        echo "test $i ($KIND ${ARGS[*]}): ACCESS_DENIED: $(grep -Eim1 'ACCESS_DENIED|busy' "$out"); the test before: $prev" >>"$TMP/bad"
    fi
    prev="test $i: $KIND ${ARGS[*]}${KILL_MS:+, killed at $KILL_MS ms}"
    echo "$(awk -v a="$ts" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }') $prev" >>"$TMP/times"
    kill -0 "$SPID" 2>/dev/null || { echo "soak: the server died at test $i: $(tail -n 3 "$TMP/server.log")"; exit 1; }
    case " $((N / 4)) $((N / 2)) $((3 * N / 4)) $N " in *" $i "*) sample "$i" ;; esac
    if [ $((i % 50)) -eq 0 ] || [ "$i" -eq "$N" ]; then
        printf 'soak: %4d/%d tests, %ds, ran %d/%d, refused %d/%d, killed %d, ACCESS_DENIED %d\n' \
            "$i" "$N" $((SECONDS - t0)) "$ran" "$should_run" "$refused" "$should_refuse" "$killed" "$denied"
    fi
done

echo
echo "esxperf -s after each quarter of the soak (idle):"
printf '%6s %8s %6s %8s\n' test "RSS kB" fds threads
cat "$TMP/samples"
awk 'NR == 1 { r0 = $2; f0 = $3; t0 = $4 } { r = $2; f = $3; t = $4 }
     END { printf "growth from test 0: RSS %+d kB, fds %+d, threads %+d\n", r - r0, f - f0, t - t0 }' "$TMP/samples"
echo "tests that should run: $should_run, ran: $ran; should be refused: $should_refuse, refused: $refused; killed at a random moment: $killed (and $killed_late more that had finished first)"
echo "clients that got ACCESS_DENIED: $denied; $((SECONDS - t0)) s in all; the slowest tests:"
sort -rn "$TMP/times" | head -n 3 | sed 's/^/  /; s/ test /s  test /'
echo "server log: $(grep -c 'test aborted' "$TMP/server.log") tests aborted, $(grep -c 'authentication failed' "$TMP/server.log") refused, $(grep -c '^Authenticated' "$TMP/server.log") authenticated"
if [ -s "$TMP/bad" ]; then
    echo "unexpected ($(wc -l <"$TMP/bad")):"
    head -n 20 "$TMP/bad" | sed 's/^/  /'
    exit 1
fi
