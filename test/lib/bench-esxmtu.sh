#!/bin/bash
# esxmtu benchmark: time and probes to a verdict and to the exact path MTU, against
# the anchors an administrator has (ping -M do bisected by a shell loop, tracepath),
# on the same three-namespace path (test/lib/esxmtu-net.bash). Probes are counted by
# an nft counter in the router, so every tool is counted the same way.
# Run from the repo root as root:  ./test/lib/bench-esxmtu.sh
# Needs iputils-ping and iputils-tracepath for the anchor rows (skipped if missing).
set -u
cd "$(dirname "$0")/../.."
ESXMTU=${ESXMTU:-$PWD/out/bin/esxmtu}
export ESXMTU
[ "$(id -u)" = 0 ] || { echo "bench-esxmtu: needs root (network namespaces)" >&2; exit 2; }
[ -x "$ESXMTU" ] || { echo "bench-esxmtu: $ESXMTU missing (run make)" >&2; exit 2; }
source test/lib/esxmtu-net.bash
trap mtunet_down EXIT INT TERM
mtunet_up "bench$$" || exit 2
DST=198.18.1.2
WAIT=${WAIT:-1}         # the same per-probe timeout for every tool (ping -W, esxmtu -W)

# a counter in its own table, ahead of the test bench's drop rules ($1: the
# destinations counted, default $DST)
count_reset() {
    ip netns exec "$NS_R" nft delete table inet esxmtu_bench 2>/dev/null
    ip netns exec "$NS_R" nft -f - <<NFT
table inet esxmtu_bench {
    chain esxmtu_count { type filter hook prerouting priority -10; policy accept;
        iifname r0 ip daddr ${1:-$DST} counter; }
}
NFT
}
count_read() {
    ip netns exec "$NS_R" nft list table inet esxmtu_bench | grep -o 'packets [0-9]*' | head -1 | grep -o '[0-9]*'
}
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f s", b - a }'; }
row() { printf '%-26s %-36s %-10s %7s %9s\n' "$@"; }

# an administrator's loop: bisect the ICMP size with ping -M do, one probe per step
ping_bisect() {
    local lo=68 hi=9001 mid steps=0      # lo passes (assumed), hi fails
    while [ $((hi - lo)) -gt 1 ] && [ $steps -lt 40 ]; do
        mid=$(((lo + hi) / 2))
        steps=$((steps + 1))
        if ip netns exec "$NS_A" ping -n -q -M do -c 1 -W "$WAIT" -s $((mid - 28)) $DST >/dev/null 2>&1; then
            lo=$mid
        else
            hi=$mid
        fi
    done
    echo $lo
}

bench_path() { # $1 = label; the path is already set up
    local label=$1 t0 t1 out mtu n
    count_reset; t0=$(now)
    "$ESXMTU" --version >/dev/null
    out=$(ip netns exec "$NS_A" "$ESXMTU" -q -W "$WAIT" $DST 2>&1); t1=$(now)
    row "$label" "esxmtu (verdict at 9000)" "$(awk '{print $2; exit}' <<<"$out")" "$(count_read)" "$(secs "$t0" "$t1")"
    count_reset; t0=$(now)
    out=$(ip netns exec "$NS_A" "$ESXMTU" -J -W "$WAIT" --discover $DST 2>&1); t1=$(now)
    mtu=$(grep -o '"discovered_mtu": [0-9]*' <<<"$out" | grep -o '[0-9]*$')
    T_ESX=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
    row "$label" "esxmtu --discover (incl. verdict)" "${mtu:-none}" "$(count_read)" "$(secs "$t0" "$t1")"
    row "" "  discovery alone: $(grep -o '"rounds": [0-9]*' <<<"$out" | grep -o '[0-9]*$') rounds, $(grep -o '"timeouts": [0-9]*' <<<"$out" | grep -o '[0-9]*$') timeouts" "" "$(grep -o '"probes": [0-9]*' <<<"$out" | tail -1 | grep -o '[0-9]*$')" "$(grep -o '"seconds": [0-9.]*' <<<"$out" | tail -1 | grep -o '[0-9.]*$') s"
    if command -v ping >/dev/null; then
        ip -n "$NS_A" route flush cache
        count_reset; t0=$(now)
        out=$(ip netns exec "$NS_A" ping -n -M do -c 3 -i 0.2 -W "$WAIT" -s 8972 $DST 2>&1); t1=$(now)
        row "$label" "ping -M do -s 8972 -c 3" "$(grep -qE ' 0% packet loss' <<<"$out" && echo pass || echo fail)" "$(count_read)" "$(secs "$t0" "$t1")"
        ip -n "$NS_A" route flush cache
        count_reset; t0=$(now)
        mtu=$(ping_bisect); t1=$(now)
        T_PING=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
        row "$label" "ping -M do bisection (shell loop)" "$mtu" "$(count_read)" "$(secs "$t0" "$t1")"
    else
        row "$label" "ping (iputils-ping missing)" "-" "-" "-"
    fi
    [ -n "${T_PING:-}" ] && row "" "  ratio: ping bisection time / esxmtu" "" "" "$(awk -v p="$T_PING" -v e="$T_ESX" 'BEGIN { printf "%.1fx", p / e }')"
    if command -v tracepath >/dev/null; then
        ip -n "$NS_A" route flush cache
        count_reset; t0=$(now)
        out=$(timeout 60 ip netns exec "$NS_A" tracepath -n -m 4 $DST 2>&1); t1=$(now)
        mtu=$(grep -o 'pmtu [0-9]*' <<<"$out" | tail -1 | grep -o '[0-9]*$')
        # tracepath probes with UDP: count those too
        row "$label" "tracepath -n -m 4" "${mtu:-none}" "$(count_read)" "$(secs "$t0" "$t1")"
    else
        row "$label" "tracepath (iputils-tracepath missing)" "-" "-" "-"
    fi
}

echo "esxmtu bench: A(9000) - R - B, per-probe timeout ${WAIT}s; probes = packets A->B counted in R"
row "path" "tool" "result" "probes" "time"
mtunet_reset; mtunet_blackhole 8166
bench_path "black hole at 8166"
mtunet_reset; mtunet_mtu_b 4000; mtunet_drop_toobig
bench_path "4000 link, no frag-needed"
mtunet_reset; mtunet_mtu_b 1500
bench_path "1500 link, frag-needed"
# Silent on-link peers: addresses on A's own link that nobody answers, so
# ARP never resolves, plus B. The fleet checks every host from one host at once, and
# some are down. esxmtu (-c 1, and the defaults) against the anchor an administrator
# has, one ping -M do per peer, all in parallel. Nothing of this leaves A: the probes
# wait for ARP. The ratio is against esxmtu -c 1 (one probe each, like the pings).
bench_silent() { # $1 = number of silent peers
    local n=$1 peers t0 t1 out te tp
    peers=$(seq -f '198.18.0.%g' 10 $((9 + n)))
    ip -n "$NS_A" neigh flush dev a0
    t0=$(now)
    out=$(ip netns exec "$NS_A" "$ESXMTU" -q -c 1 -W "$WAIT" $peers $DST 2>&1); t1=$(now)
    te=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
    row "$n silent peers + B" "esxmtu -c 1 (all peers at once)" \
        "$(grep -c ' NO-REPLY ' <<<"$out") NO-REPLY" "-" "$(secs "$t0" "$t1")"
    ip -n "$NS_A" neigh flush dev a0
    t0=$(now)
    out=$(ip netns exec "$NS_A" "$ESXMTU" -q -W "$WAIT" $peers $DST 2>&1); t1=$(now)
    row "" "esxmtu (defaults: -c 3 -i 0.2)" "$(grep -c ' NO-REPLY ' <<<"$out") NO-REPLY" "-" "$(secs "$t0" "$t1")"
    if command -v ping >/dev/null; then
        ip -n "$NS_A" neigh flush dev a0
        t0=$(now)
        ip netns exec "$NS_A" bash -c 'for p in "$@"; do ping -n -q -M do -s 8972 -c 1 -W "'"$WAIT"'" "$p" >/dev/null 2>&1 & done; wait' _ $peers $DST
        t1=$(now)
        tp=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
        row "" "ping -M do -c 1, one per peer in parallel" "" "-" "$(secs "$t0" "$t1")"
        row "" "  ratio: parallel pings / esxmtu" "" "" "$(awk -v p="$tp" -v e="$te" 'BEGIN { printf "%.1fx", p / e }')"
    fi
    ip -n "$NS_A" neigh flush dev a0
}
mtunet_reset
for n in 10 30 50 100; do bench_silent $n; done

# Black-holed peers (the fleet runs one esxmtu --discover against all of a host's
# failing peers): one run for all of them, against one run a peer, one after
# another (the sum: what searching them one at a time would cost).
# Each peer has its own black hole in R (an nft rule for its address).
bench_holes() {
    local holes=(1499 4000 7777 8166) peers i t0 t1 out ok ts to
    mtunet_reset
    mapfile -t peers < <(mtunet_peers_b 4)
    peers=("${peers[@]:0:4}")
    for i in 0 1 2 3; do mtunet_blackhole_to "${peers[$i]}" "${holes[$i]}"; done
    exact() { # how many peers' discovered MTU is their hole
        local k n=0
        for k in 0 1 2 3; do
            grep -A1 "^${peers[$k]} " <<<"$1" | grep -q "discovered path MTU ${holes[$k]} " && n=$((n + 1))
        done
        echo "$n/4 exact"
    }
    count_reset "${peers[0]}-${peers[3]}"; t0=$(now)
    out=$(for i in 0 1 2 3; do ip netns exec "$NS_A" "$ESXMTU" -W "$WAIT" --discover "${peers[$i]}" 2>&1; done); t1=$(now)
    ts=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
    row "4 black holes, 1499..8166" "esxmtu --discover, one run a peer" "$(exact "$out")" "$(count_read)" "$(secs "$t0" "$t1")"
    count_reset "${peers[0]}-${peers[3]}"; t0=$(now)
    out=$(ip netns exec "$NS_A" "$ESXMTU" -W "$WAIT" --discover "${peers[@]}" 2>&1); t1=$(now)
    to=$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')
    row "" "esxmtu --discover, all 4 in one run" "$(exact "$out")" "$(count_read)" "$(secs "$t0" "$t1")"
    row "" "  ratio: one run a peer / one run" "" "" "$(awk -v s="$ts" -v o="$to" 'BEGIN { printf "%.1fx", s / o }')"
    mtunet_reset
}
bench_holes

size=$(stat -c %s "$ESXMTU")
echo "binary: $ESXMTU $size bytes ($((size / 1024)) KiB, static musl, stripped)"
