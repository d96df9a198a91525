#!/bin/bash
# esxperf benchmark against iperf3 3.12 (Debian 12's) and iperf3 3.22 (Debian sid's,
# test/lib/iperf3-peers.sh) on loopback, like with like: esxperf client -> esxperf
# server, iperf3 3.12 -> 3.12, iperf3 3.22 -> 3.22, in turn in the same run, ROUNDS
# rounds of SECS seconds per mode; medians per column. Each tool gets its best flags
# for the mode: the -Z row lets esxperf and 3.22 skip the receive copy
# (--skip-rx-copy) as 3.12 cannot; UDP rows try 3.22 with and without --gsro (UDP
# GSO/GRO) and keep the better (the note says which).
# Like with like, row by row (the MODES table below): the same -t, -l (TCP: both
# default to 128 KiB; UDP rows name it), -b (TCP: unlimited; UDP: -b 0 or the asked
# rate), -P and direction for all three. Flags that differ, and why:
# - --skip-rx-copy (MSG_TRUNC receive) for esxperf and 3.22 alike in the rows that
#   name it; 3.12 has none. UDP: esxperf's receiver then reads each datagram's
#   header only (recvmmsg, no GRO, every sequence number seen); 3.22's reads 16
#   bytes of each but counts no datagram (its GRO-less path needs a whole one in
#   the buffer), so its loss reads 0 whatever the kernel dropped: its column is
#   the rate sent, an upper bound on what it received. Without --gsro there, as
#   3.22 with --gsro reads whole GRO buffers and ignores the flag.
# - --gsro (3.22's UDP GSO/GRO, off by default) is tried with and without in UDP
#   rows; esxperf uses GSO/GRO without a flag, 3.12 has none.
# - no -w: esxperf asks for a 4 MiB UDP receive buffer by itself, iperf3 keeps the
#   system's default; -w also sets the send buffer, and in the runs tried here 3.22
#   with -w 4M sent 4-11 Gbit/s of jumbo datagrams against 32-35 without it.
# CPU is each side's own figure from the client's JSON (the test period):
# cpu_utilization_percent.host_total (client) and remote_total (server).
# Gbit per CPU-second = received Gbit / (client + server CPU seconds); --bidir adds
# the two directions' received rates (each process sends and receives).
# The targets against iperf3 3.22, every row: at least 1.2x the received rate (or
# both at the same ceiling) and at least 1.5x the Gbit per CPU-second (two thirds
# of its CPU per bit); the paced row lands on the asked rate and is compared by CPU.
# Run from anywhere:  ./test/lib/bench-esxperf.sh   (or make bench)
# ROUNDS=5 SECS=5 for steadier medians; ONLY=UDP runs the modes whose name holds it
# (ONLY="one thread": esxperf without stream threads, ESXPERF_ENGINE_OFF=threads).
# Not a timed test: nothing here passes or fails on a number.
set -u
cd "$(dirname "$0")/../.." || exit 2
ESXPERF=${ESXPERF:-$PWD/out/bin/esxperf}
ROUNDS=${ROUNDS:-3}
SECS=${SECS:-3}
[ -x "$ESXPERF" ] || { echo "bench-esxperf: $ESXPERF missing (run make)" >&2; exit 2; }
command -v iperf3 >/dev/null || { echo "bench-esxperf: iperf3 missing (apt-get install iperf3)" >&2; exit 2; }
command -v jq >/dev/null || { echo "bench-esxperf: jq missing (apt-get install jq)" >&2; exit 2; }
# shellcheck source=test/lib/iperf3-peers.sh
source test/lib/iperf3-peers.sh
# shellcheck source=test/lib/bench-lib.bash
source test/lib/bench-lib.bash
iperf3_peers_fetch || echo "bench-esxperf: $IPERF3_PEERS_ERROR: the iperf3 3.22 columns read n/a"
I312=$(iperf3_peer 3.12)
I322=$(iperf3_peer 3.22 || true)
bench_tmp
# below the ephemeral range (32768+), where client sockets take their local ports;
# each run takes the next port, about 100 in a whole bench
PORT=$((20000 + RANDOM % 12000))

# one run: one_run BIN [VAR=VALUE...] ARGS...: the tool against its own fresh server,
# both with the VAR=VALUE words in their environment; prints
# "gbit_rx cpu_client cpu_server pps_rx loss_pct gbit_tx" or "fail"
one_run() {
    local bin=$1 out rc
    shift
    split_env "$@"
    set -- "${ARGS[@]}"
    PORT=$((PORT + 1))
    env "${ENVS[@]}" "$bin" -s -1 -p "$PORT" >/dev/null 2>&1 &
    SRV=$!
    wait_port "$PORT" || { echo fail; return; }
    out=$(timeout 60 env "${ENVS[@]}" "$bin" -c 127.0.0.1 -p "$PORT" -t "$SECS" -J "$@" 2>/dev/null); rc=$?
    kill "$SRV" 2>/dev/null
    wait "$SRV" 2>/dev/null
    SRV=""
    [ $rc = 0 ] || { echo fail; return; }
    jq -r '
      .end as $e |
      (if $e.sum.packets != null and (($e.sum_received.bytes // 0) == 0 or $e.sum.lost_packets != null)
         and (.start.test_start.protocol == "UDP")
       then
         ($e.sum.seconds) as $s |
         ($e.sum.packets - $e.sum.lost_packets) as $rx |
         [ ($rx * .start.test_start.blksize * 8 / $s / 1e9),
           $e.cpu_utilization_percent.host_total, $e.cpu_utilization_percent.remote_total,
           ($rx / $s), $e.sum.lost_percent,
           ($e.sum.packets * .start.test_start.blksize * 8 / $s / 1e9) ]
       else
         # --bidir: both directions, received and sent, added
         [ (($e.sum_received.bits_per_second + ($e.sum_received_bidir_reverse.bits_per_second // 0)) / 1e9),
           $e.cpu_utilization_percent.host_total, $e.cpu_utilization_percent.remote_total,
           0, 0, (($e.sum_sent.bits_per_second + ($e.sum_sent_bidir_reverse.bits_per_second // 0)) / 1e9) ]
       end) | map(tostring) | join(" ")' <<<"$out" 2>/dev/null || echo fail
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (!NR) { print "nan"; exit } print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
col() { awk -v c="$1" '$1 != "fail" { print $c }' "$2" | median; }
# the medians of one tool's rounds: "gbit cpu_c cpu_s eff pps loss tx fails" (nan: not run)
summary() {
    local f=$1
    if [ ! -s "$f" ]; then echo "nan nan nan nan nan nan nan 0"; return; fi
    echo "$(col 1 "$f") $(col 2 "$f") $(col 3 "$f")" \
        "$(awk '$1 != "fail" && ($2 + $3) > 0 { print $1 / (($2 + $3) / 100) }' "$f" | median)" \
        "$(col 4 "$f") $(col 5 "$f") $(col 6 "$f") $(grep -c fail "$f")"
}

# mode name | esxperf | iperf3 3.12 | iperf3 3.22 (A||B: alternatives, the better
# median is kept); "-": that tool has no such mode
MODES=(
    "TCP 1 stream|-P 1|-P 1|-P 1"
    "TCP -P 2|-P 2|-P 2|-P 2"
    "TCP -P 4|-P 4|-P 4|-P 4"
    "TCP -P 8|-P 8|-P 8|-P 8"
    "TCP -Z (+skip-rx-copy; 3.12 plain -Z)|-Z --skip-rx-copy|-Z|-Z --skip-rx-copy"
    "TCP --skip-rx-copy|--skip-rx-copy|-|--skip-rx-copy"
    "TCP -R|-R|-R|-R"
    "TCP --bidir (both directions added)|--bidir|--bidir|--bidir"
    "UDP -b 0 -l 1448|-u -b 0 -l 1448|-u -b 0 -l 1448|-u -b 0 -l 1448 --gsro||-u -b 0 -l 1448"
    "UDP -b 0 -l 8972 (jumbo)|-u -b 0 -l 8972|-u -b 0 -l 8972|-u -b 0 -l 8972 --gsro||-u -b 0 -l 8972"
    "UDP -b 0 -l 8972 --skip-rx-copy|-u -b 0 -l 8972 --skip-rx-copy|-|-u -b 0 -l 8972 --skip-rx-copy"
    "UDP -b 2G -l 1448 paced|-u -b 2G -l 1448|-u -b 2G -l 1448|-u -b 2G -l 1448 --gsro||-u -b 2G -l 1448"
    # esxperf where the host gives no thread: the stream on the session's thread,
    # as iperf3 3.12 always runs (3.22 keeps its threads)
    "TCP 1 stream, one thread|ESXPERF_ENGINE_OFF=threads -P 1|-P 1|-P 1"
    "TCP -R, one thread|ESXPERF_ENGINE_OFF=threads -R|-R|-R"
    "UDP -b 0 -l 1448, one thread|ESXPERF_ENGINE_OFF=threads -u -b 0 -l 1448|-u -b 0 -l 1448|-u -b 0 -l 1448 --gsro||-u -b 0 -l 1448"
)

echo "loopback, $ROUNDS rounds x ${SECS} s per tool and mode, in turn; medians; load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
echo "targets against iperf3 3.22: received >= 1.2x, Gbit per CPU-second >= 1.5x (paced row: by CPU)"
echo "esxperf: $("$ESXPERF" --version 2>&1 | head -1); iperf3 3.12: $("$I312" --version 2>&1 | head -1 | cut -d' ' -f1-2);" \
    "iperf3 3.22: $([ -n "$I322" ] && "$I322" --version 2>&1 | head -1 | cut -d' ' -f1-2 || echo absent)"
echo
for m in "${MODES[@]}"; do
    IFS='|' read -r name eargs aargs bargs <<<"$m"
    [[ "$name" == *"${ONLY:-}"* ]] || continue
    alts=()
    while [ -n "$bargs" ]; do
        alts+=("${bargs%%||*}")
        [[ "$bargs" == *"||"* ]] && bargs=${bargs#*||} || bargs=""
    done
    rm -f "$TMP"/e "$TMP"/a "$TMP"/b.*
    : >"$TMP/e"
    for _ in $(seq 1 "$ROUNDS"); do
        # shellcheck disable=SC2086 # the options are words
        one_run "$ESXPERF" $eargs >>"$TMP/e"
        # shellcheck disable=SC2086
        [ "$aargs" = - ] || one_run "$I312" $aargs >>"$TMP/a"
        for k in "${!alts[@]}"; do
            # shellcheck disable=SC2086
            [ -z "$I322" ] || [ "${alts[$k]}" = - ] || one_run "$I322" ${alts[$k]} >>"$TMP/b.$k"
        done
    done
    read -r e_g e_cc e_cs e_eff e_pps e_loss e_tx e_fail <<<"$(summary "$TMP/e")"
    read -r a_g a_cc a_cs a_eff a_pps a_loss a_tx a_fail <<<"$(summary "$TMP/a")"
    best=0 best_g=-1
    for k in "${!alts[@]}"; do
        g=$(col 1 "$TMP/b.$k" 2>/dev/null)
        if awk -v g="$g" -v b="$best_g" 'BEGIN { exit !(g != "nan" && g + 0 > b + 0) }'; then best=$k best_g=$g; fi
    done
    read -r b_g b_cc b_cs b_eff b_pps b_loss b_tx b_fail <<<"$(summary "$TMP/b.$best")"
    bflags=""
    [ ${#alts[@]} -gt 1 ] && bflags="${alts[$best]}"
    printf '%s\n' "$name|$a_g|$b_g|$e_g|$a_cc|$a_cs|$b_cc|$b_cs|$e_cc|$e_cs|$a_eff|$b_eff|$e_eff|$a_pps|$b_pps|$e_pps|$a_loss|$b_loss|$e_loss|$a_tx|$b_tx|$e_tx|$a_fail|$b_fail|$e_fail|$bflags" >>"$TMP/rows"
done

awk -F'|' '
function r(a, b) { return (a != "nan" && b != "nan" && a > 0) ? sprintf("%.2f", b / a) : "n/a" }
function g(v, f) { return (v == "nan") ? "n/a" : sprintf(f, v) }
function cpu(c, s) { return (c == "nan") ? "n/a" : sprintf("%.0f/%.0f", c, s) }
BEGIN {
    printf "%-38s %22s %13s  %-23s %20s %13s  %s\n", "", "Gbit/s received", "ratio esxperf",
           "CPU % client/server", "Gbit per CPU-second", "ratio esxperf", ""
    printf "%-38s %6s %6s %8s %6s %6s  %-7s %-7s %-7s %6s %6s %6s %6s %6s  %s\n", "mode",
           "3.12", "3.22", "esxperf", "/3.12", "/3.22", "3.12", "3.22", "esxperf",
           "3.12", "3.22", "esxperf", "/3.12", "/3.22", "notes"
}
{
    note = ""
    if ($1 ~ /^UDP -b 0/)
        note = sprintf("rx packets/s 3.12 %s, 3.22 %s, esxperf %s (ratios %s, %s); loss %s / %s / %s %%",
                       g($14 / 1000, "%.0fk"), g($15 / 1000, "%.0fk"), g($16 / 1000, "%.0fk"),
                       r($14, $16), r($15, $16), g($17, "%.2f"), g($18, "%.2f"), g($19, "%.2f"))
    else if ($1 ~ /paced/)
        note = sprintf("asked 2 Gbit/s, received %s / %s / %s %%; loss %s / %s / %s %%",
                       g(($2 / 2 - 1) * 100, "%+.2f"), g(($3 / 2 - 1) * 100, "%+.2f"),
                       g(($4 / 2 - 1) * 100, "%+.2f"), g($17, "%.2f"), g($18, "%.2f"), g($19, "%.2f"))
    if ($26 != "") note = note sprintf("; 3.22 best with: %s", $26)
    # the targets against 3.22 (the header): a row below either says which
    if ($1 !~ /paced/ && r($3, $4) != "n/a" && r($3, $4) + 0 < 1.2) note = note "; BELOW 1.2x received"
    if (r($12, $13) != "n/a" && r($12, $13) + 0 < 1.5) note = note "; BELOW 1.5x per CPU-second"
    if ($23 > 0 || $24 > 0 || $25 > 0) note = note sprintf(" [failed runs: 3.12 %d, 3.22 %d, esxperf %d]", $23, $24, $25)
    sub(/^; /, "", note)
    printf "%-38s %6s %6s %8s %6s %6s  %-7s %-7s %-7s %6s %6s %6s %6s %6s  %s\n", $1,
           g($2, "%.2f"), g($3, "%.2f"), g($4, "%.2f"), r($2, $4), r($3, $4),
           cpu($5, $6), cpu($7, $8), cpu($9, $10), g($11, "%.1f"), g($12, "%.1f"), g($13, "%.1f"),
           r($11, $13), r($12, $13), note
}' "$TMP/rows"
echo "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end"
