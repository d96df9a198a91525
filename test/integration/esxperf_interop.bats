#!/usr/bin/env bats
# Interop matrix: esxperf against every iperf3 in use: Debian 12's 3.12,
# Debian 13's 3.18 and unstable's 3.22 (test/lib/iperf3-peers.sh unpacks the last two
# beside trixie's libc). Each row below is one @test: one option (or set), run against
# every peer in both roles, on loopback only:
#   c2i  esxperf -c -> iperf3 -s -1 -J      i2e  iperf3 -c -> esxperf -s -1 -J
# and checked from both sides' JSON by test/lib/iperf3-json-check.py (what iperf3's
# protocol promises: per direction, received <= sent, the server's count as the client
# shows it equals the server's own report; UDP: packets and loss the same way; both
# sides agree on start.test_start), plus the row's own --expect / --text checks.
#
# A row:  @test "NAME" { interop [row options] -- CLIENT OPTIONS; }
#   --roles c2i|i2e         only one role (default both)
#   --na "PEERS ROLE: why"  combination that cannot exist (the peer lacks the option)
#   --known "PEERS ROLE: fault: what happens"
#                           a known esxperf fault: not run (a hang would cost the
#                           stall guard's 30 s); the test ends as skipped naming it,
#                           after the other combinations passed. INTEROP_RUN_KNOWN=1
#                           runs them as ordinary cases (for the fixers).
#   --server "OPTS"         extra options for the server (either kind; may repeat)
#   --esx-client "OPTS"     extra options only when esxperf is the client (c2i)
#   --esx-server "OPTS"     extra options only when esxperf is the server (i2e)
#   --host H                client target (default 127.0.0.1)
#   --expect PYEXPR         Python over c, s (client and server JSON); must be true
#   --sent N                the sender sent at least N bytes (exactly, where the
#                           client sends and stops at the count itself; not where
#                           an iperf3 client receives TCP -k: it counts reads)
#   --quick                 without -t/-n/-k of its own: -n 48M -i 0.1 (not 1 s)
#   --text ERE              client without -J, both servers in text mode: output matches
#   --every-line ERE        client text output: every non-empty line matches
#   --output FILE           the client's text output to check is FILE (--logfile)
# In client options and --expect, @PORT@ is the combination's server port and @CPORT@
# a client port (both from free_port, fresh for each combination).
# PEERS is a comma list (3.12,3.18,3.22) or "all"; ROLE is c2i, i2e or both.
# Every client runs under `timeout` (CASE_TIMEOUT): a hang fails, it never blocks.
load ../lib/common

PEERS_LIB="$ESXDIAG_ROOT/test/lib/iperf3-peers.sh"
CHECK="$ESXDIAG_ROOT/test/lib/iperf3-json-check.py"
# a combination takes 1-3 s here (-t 1 plus setup); 25 s is the bound against a hang,
# below the 30 s stall guard so a stranded UDP -R -n test fails instead of passing late
CASE_TIMEOUT=25

setup_file() {
    source "$PEERS_LIB"
    iperf3_peers_setup_file
    local d="$BATS_FILE_TMPDIR"
    openssl genrsa -traditional -out "$d/priv.pem" 2048 2>/dev/null
    openssl rsa -in "$d/priv.pem" -pubout -out "$d/pub.pem" 2>/dev/null
    chmod 600 "$d/priv.pem"
    printf 'alice,%s\n' "$(printf '%s' '{alice}s3cret' | sha256sum | cut -d' ' -f1)" >"$d/users.csv"
}

setup() {
    source "$PEERS_LIB"
    PIDS=()
    TMP=$(mktemp -d)
    K="$BATS_FILE_TMPDIR"
}

teardown() {
    stop_pids
    rm -rf "$TMP"
}

# peer_bin PEER: the peer's command, or "" (with the reason in PEER_WHY)
peer_bin() {
    PEER_WHY=""
    if [ "$1" != 3.12 ] && [ -f "$BATS_FILE_TMPDIR/peers.skip" ]; then
        PEER_WHY=$(cat "$BATS_FILE_TMPDIR/peers.skip")
        return 1
    fi
    iperf3_peer "$1" || { PEER_WHY="iperf3 $1 not available"; return 1; }
}

# matches "PEERS ROLE: text" against peer $2 and role $3; prints text
rule_match() {
    local peers=${1%% *} rest=${1#* } role
    role=${rest%%:*}
    [ "$peers" = all ] || [[ ",$peers," == *",$2,"* ]] || return 1
    [ "$role" = both ] || [ "$role" = "$3" ] || return 1
    echo "${rest#*: }"
}

# version_ge A B: A >= B (dotted)
version_ge() { [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -n1)" = "$2" ]; }

# listen_own PORT PID: wait (bounded, 5 s) until PID itself listens on TCP PORT;
# 1 if another process holds the port (other jobs on this machine pick ports too)
listen_own() {
    local _
    for _ in $(seq 1 50); do
        ss -ltnpH "sport = :$1" | grep -q "pid=$2," && return 0
        kill -0 "$2" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}

# the server and client command lines of one combination on port $3: sets C_SRV,
# C_CLI, C_SARGS, C_CARGS
combo_args() {
    local role=$1 pbin=$2 port=$3 i
    C_SARGS=(-s -1 -p "$port" "${R_SERVER[@]}")
    C_CARGS=(-c "$R_HOST" -p "$port")
    for i in "${R_ARGS[@]}"; do i=${i//@PORT@/$port}; C_CARGS+=("${i//@CPORT@/$C_CPORT}"); done
    # the length: the row's own -t/-n/-k, else 1 s, or with --quick 48 MiB (iperf3
    # 3.18+ ends an -n test at the next interval: -i 0.1 keeps that short)
    if ! [[ " ${R_ARGS[*]} " =~ \ -(t|n|k)\  ]]; then
        if [ -n "$R_QUICK" ]; then C_CARGS+=(-n 48M -i 0.1); else C_CARGS+=(-t 1); fi
    fi
    if [ -z "$R_TEXT$R_EVERY" ]; then C_SARGS+=(-J); C_CARGS+=(-J); fi
    if [ "$role" = c2i ]; then
        C_SRV=$pbin C_CLI=$BIN/esxperf
        C_CARGS+=("${R_ESXC[@]}")
        C_SARGS+=("${R_ISRV[@]}")
    else
        C_SRV=$BIN/esxperf C_CLI=$pbin
        C_SARGS+=("${R_ESXS[@]}")
    fi
}

# one combination: combo ROLE PEER PEERBIN; sets COMBO_MSG on failure, returns 1;
# the JSON check of a run that completed goes into CHECKS
combo() {
    local role=$1 peer=$2 pbin=$3 port rc sout cout spid i attempt
    local -a chk
    sout="$TMP/$role-$peer.server"
    cout="$TMP/$role-$peer.client"
    [ -n "$R_OUTPUT" ] && rm -f "$R_OUTPUT"
    for attempt in 1 2 3; do
        port=$(free_port) && C_CPORT=$(free_port) || { COMBO_MSG="no free port"; return 1; }
        combo_args "$role" "$pbin" "$port"
        "$C_SRV" "${C_SARGS[@]}" >"$sout" 2>&1 &
        spid=$!
        PIDS+=($spid)
        listen_own "$port" "$spid" && break
        kill "$spid" 2>/dev/null
        if [ "$attempt" = 3 ]; then
            COMBO_MSG="server did not listen on three free ports: $(head -c 300 "$sout")"
            return 1
        fi
    done
    rc=0
    timeout -k 2 "$CASE_TIMEOUT" "$C_CLI" "${C_CARGS[@]}" >"$cout" 2>&1 || rc=$?
    if [ "$rc" -ne 0 ]; then
        kill "$spid" 2>/dev/null
        [ "$rc" -eq 124 ] && rc="124 (timed out after $CASE_TIMEOUT s)"
        COMBO_MSG="client exited $rc: $(tail -n 3 "$cout" | tr '\n' ' ' | cut -c1-400); server: $(tail -n 2 "$sout" | tr '\n' ' ' | cut -c1-300)"
        return 1
    fi
    # the server (-1) ends right after the test; bounded wait, then it is a failure
    for i in $(seq 1 50); do kill -0 "$spid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$spid" 2>/dev/null; then
        kill "$spid" 2>/dev/null
        COMBO_MSG="the server was still running 5 s after the test"
        return 1
    fi
    [ -n "$R_OUTPUT" ] && cout=$R_OUTPUT
    if [ -n "$R_TEXT" ] && ! grep -Eq -- "$R_TEXT" "$cout"; then
        COMBO_MSG="client output lacks /$R_TEXT/: $(head -c 600 "$cout")"
        return 1
    fi
    if [ -n "$R_EVERY" ] && grep -v '^$' "$cout" | grep -Evq -- "$R_EVERY"; then
        COMBO_MSG="a client line does not match /$R_EVERY/: $(grep -v '^$' "$cout" | grep -Ev -- "$R_EVERY" | head -n 2)"
        return 1
    fi
    [ -z "$R_TEXT$R_EVERY" ] || return 0
    chk=()
    # which sender is an iperf3 3.16+ (its last send may be uncounted: see the checker)
    if [ "$role" = i2e ] && version_ge "$peer" 3.16; then chk+=(--sender-cancels fwd); fi
    if [ "$role" = c2i ] && version_ge "$peer" 3.16; then chk+=(--sender-cancels rev); fi
    # An iperf3 client that receives TCP (-R) counts one block per read, whatever
    # the read returned (iperf_recv: ++blocks_received), and sends TEST_END once it
    # made -k reads: where a read comes back short (a loaded host) that is before
    # -k x len bytes arrived, and its server rightly sent less. Against itself too.
    local reads_as_blocks=""
    if [ "$role" = i2e ] && [[ " ${R_ARGS[*]} " =~ \ -R\  ]] && [[ " ${R_ARGS[*]} " =~ \ -k\  ]] &&
        ! [[ " ${R_ARGS[*]} " =~ \ -u\  ]]; then
        reads_as_blocks=1
    fi
    if [ -n "$R_SENT" ] && [ -z "$reads_as_blocks" ]; then
        chk+=(--sent-at-least "$R_SENT")
        # exact only where the client sends and stops at the count itself: not under -R
        # (an iperf3 server sends until TEST_END), not an iperf3 3.18+ UDP client (it
        # sends until the end of the interval; iperf3 against itself does the same)
        if ! [[ " ${R_ARGS[*]} " =~ \ -R\  ]] &&
            { [ "$role" = c2i ] || ! [[ " ${R_ARGS[*]} " =~ \ -u\  ]] || ! version_ge "$peer" 3.18; }; then
            chk+=(--sent-exact)
        fi
    fi
    for i in "${R_EXPECT[@]}"; do i=${i//@PORT@/$port}; chk+=(--expect "${i//@CPORT@/$C_CPORT}"); done
    # checked for the whole row at once (one python start, not six)
    CHECKS+=(--case "$peer $role" "$cout" "$sout" "${chk[@]}")
}

# interop [row options] -- CLIENT OPTIONS: the row against every peer in both roles
interop() {
    local roles="c2i i2e" peer role pbin r why out
    local -a known=() na=() fails=() skips=() more=()
    CHECKS=()
    R_SERVER=() R_ESXC=() R_ESXS=() R_ISRV=() R_EXPECT=() R_HOST=127.0.0.1 R_TEXT="" R_EVERY="" R_SENT="" R_OUTPUT="" R_QUICK=""
    while [ $# -gt 0 ]; do
        case "$1" in
        --roles) roles=$2; shift 2 ;;
        --known) known+=("$2"); shift 2 ;;
        --na) na+=("$2"); shift 2 ;;
        --server) read -ra more <<<"$2"; R_SERVER+=("${more[@]}"); shift 2 ;;
        --esx-client) read -ra R_ESXC <<<"$2"; shift 2 ;;
        --esx-server) read -ra R_ESXS <<<"$2"; shift 2 ;;
        --iperf3-server) read -ra R_ISRV <<<"$2"; shift 2 ;;
        --output) R_OUTPUT=$2; shift 2 ;;
        --host) R_HOST=$2; shift 2 ;;
        --expect) R_EXPECT+=("$2"); shift 2 ;;
        --sent) R_SENT=$2; shift 2 ;;
        --quick) R_QUICK=1; shift ;;
        --text) R_TEXT=$2; shift 2 ;;
        --every-line) R_EVERY=$2; shift 2 ;;
        --) shift; break ;;
        *) flunk "interop: unknown row option $1" ;;
        esac
    done
    R_ARGS=("$@")
    for peer in 3.12 3.18 3.22; do
        if ! pbin=$(peer_bin "$peer"); then
            skips+=("$peer: $PEER_WHY")
            continue
        fi
        for role in $roles; do
            why=""
            for r in "${na[@]}"; do why=$(rule_match "$r" "$peer" "$role") && break; done
            if [ -n "$why" ]; then echo "# $peer $role: n/a ($why)" >&3; continue; fi
            for r in "${known[@]}"; do why=$(rule_match "$r" "$peer" "$role") && break; done
            if [ -n "$why" ] && [ "${INTEROP_RUN_KNOWN:-0}" != 1 ]; then
                skips+=("$peer $role: $why")
                continue
            fi
            if combo "$role" "$peer" "$pbin"; then
                echo "# $peer $role: ran" >&3
            else
                fails+=("$peer $role: $COMBO_MSG")
            fi
        done
    done
    if [ ${#CHECKS[@]} -gt 0 ] && ! out=$(python3 "$CHECK" "${CHECKS[@]}" 2>&1); then
        fails+=("$out")
    fi
    if [ ${#fails[@]} -gt 0 ]; then
        printf '%s\n' "${fails[@]}" >&2
        return 1
    fi
    if [ ${#skips[@]} -gt 0 ]; then
        skip "$(printf '%s; ' "${skips[@]}")"
    fi
}

# RSA auth, each peer in both roles: OAEP (the default of 3.17+) against 3.18 and
# 3.22; PKCS#1 v1.5 against 3.12, which has nothing else (docs/esxperf.md, "Authentication"):
# interop_auth [row options] [-- more client options]; keys and users made by openssl
# in setup_file
interop_auth() {
    local -a more=()
    export IPERF3_PASSWORD=s3cret
    while [ $# -gt 0 ] && [ "$1" != -- ]; do more+=("$1"); shift; done
    [ "${1:-}" = -- ] && shift
    interop "${more[@]}" --server "--rsa-private-key-path $K/priv.pem --authorized-users-path $K/users.csv" \
        -- --username alice --rsa-public-key-path "$K/pub.pem" "$@"
}

@test "peers: iperf3 3.12, 3.18 and 3.22 run and report their version" {
    local p v
    for p in 3.12 3.18 3.22; do
        bin=$(peer_bin "$p") || skip "$PEER_WHY"
        v=$("$bin" --version | head -n1)
        [[ "$v" == "iperf $p "* ]] || [[ "$v" == "iperf $p" ]] || flunk "peer $p says: $v"
    done
    # the unpacked peers use their own loader and libraries, none of this machine's
    local l=$ESXDIAG_ROOT/.cache/iperf3-peer-3.22/root/usr/lib/x86_64-linux-gnu
    run "$l/ld-linux-x86-64.so.2" --library-path "$l" --list "$ESXDIAG_ROOT/.cache/iperf3-peer-3.22/root/usr/bin/iperf3"
    assert_status 0
    ! echo "$output" | grep '=>' | grep -v "$ESXDIAG_ROOT/.cache/iperf3-peer-3.22/root/" || flunk "$output"
}

@test "peers: the fetch refuses a mirror whose signature does not verify, and names an unreachable one" {
    # the same code path as the real fetch, into an empty cache: a keyring without
    # Debian's keys must make apt refuse the lists (signature checking stays on)
    run env IPERF3_PEERS_CACHE="$TMP/c1" IPERF3_PEERS_KEYRING=/usr/share/keyrings/debian-archive-removed-keys.gpg \
        "$PEERS_LIB" fetch
    if [[ "$output" == *"cannot reach"* ]]; then skip "mirror unreachable: $output"; fi
    [ "$status" -eq 1 ] || flunk "fetch with a foreign keyring exited $status: $output"
    assert_contains "NO_PUBKEY"
    [ ! -e "$TMP/c1/iperf3-peer-3.22" ] || flunk "a peer was unpacked without a good signature"
    # an unreachable mirror (a closed port on loopback): one line naming it, exit 1
    run env IPERF3_PEERS_CACHE="$TMP/c2" IPERF3_PEERS_MIRROR=http://127.0.0.1:9/debian "$PEERS_LIB" fetch
    assert_status 1
    assert_contains "cannot reach the Debian mirror http://127.0.0.1:9/debian"
}

# ---- the matrix: one option (set) per line
@test "TCP"                      { interop -- ; }
@test "TCP -P 4"                 { interop -- -P 4; }
@test "TCP -R"                   { interop -- -R; }
@test "TCP -R -P 4"              { interop -- -R -P 4; }
@test "TCP --bidir"              { interop -- --bidir; }
@test "TCP --bidir -P 2"         { interop -- --bidir -P 2; }
@test "TCP -n"                   { interop --sent 41943040 -- -n 40M -i 0.1; }
@test "TCP -n -R"                { interop --sent 41943040 -- -n 40M -R -i 0.1; }
@test "TCP -k"                   { interop --sent 20971520 -- -k 160 -i 0.1; }
@test "TCP -k -R -P 2"           { interop --sent 20971520 -- -k 160 -R -P 2 -i 0.1; }
@test "TCP -w 512K"              { interop --quick -- -w 512K; }
@test "TCP -l 64K"               { interop --quick --expect "c['start']['test_start']['blksize']==65536" -- -l 64K; }
@test "TCP -M 1400"              { interop --quick -- -M 1400; }
@test "TCP -N"                   { interop --quick -- -N; }
@test "TCP -Z"                   { interop --quick -- -Z; }
@test "TCP -Z -R"                { interop --quick -- -Z -R; }
@test "TCP -O 1"                 { interop --expect "c['start']['test_start']['omit']==1" -- -O 1; }
@test "TCP -b 400M (paced)"      { interop --expect "c['end']['sum_sent']['bits_per_second'] < 480e6" -- -b 400M; }
@test "TCP -C reno"              { interop --quick --expect "c['end'].get('sender_tcp_congestion')=='reno'" -- -C reno; }
@test "TCP -S 16 (TOS value)"    { interop --quick --expect "c['start']['test_start']['tos']==16" -- -S 16; }
@test "TCP -S 0x10 (TOS hex)"    { interop --quick --expect "c['start']['test_start']['tos']==16" -- -S 0x10; }
@test "TCP -S 064 (TOS octal)"   { interop --quick --expect "c['start']['test_start']['tos']==52" -- -S 064; }
@test "TCP --cport"              { interop --quick --expect "c['start']['connected'][0]['local_port']==@CPORT@" -- --cport @CPORT@; }
@test "TCP -4 / -B 127.0.0.1"    { interop --quick --expect "c['start']['connected'][0]['local_host']=='127.0.0.1'" -- -4 -B 127.0.0.1; }
@test "TCP -6 (::1)"             { interop --quick --host ::1 --expect "c['start']['connected'][0]['remote_host']=='::1'" -- -6; }
@test "TCP -A 0,1 (affinity)"    { interop --quick -- -A 0,1; }
@test "TCP -i 0.5"               { interop --expect "len(c['intervals'])>=2" -- -i 0.5; }
@test "TCP --connect-timeout"    { interop --quick -- --connect-timeout 3000; }
@test "TCP --skip-rx-copy"       { interop --quick --na "3.12,3.18 i2e: iperf3 before 3.19 has no --skip-rx-copy" -- --skip-rx-copy; }
@test "UDP -b 100M"              { interop -- -u -b 100M; }
@test "UDP -b 100M -R"           { interop -- -u -b 100M -R; }
@test "UDP --bidir -P 2"         { interop -- -u -b 50M --bidir -P 2; }
@test "UDP -P 4 -l 1400"         { interop --expect "c['start']['test_start']['blksize']==1400" -- -u -b 20M -P 4 -l 1400; }
@test "UDP -n"                   { interop --sent 2097152 -- -u -b 200M -l 1024 -n 2M -i 0.1; }
@test "UDP -k"                   { interop --sent 1024000 -- -u -b 200M -l 1000 -k 1024 -i 0.1; }
@test "UDP -n -R"                { interop --sent 2097152 -- -u -b 200M -l 1024 -n 2M -R -i 0.1; }
@test "UDP -k -R"                { interop --sent 1024000 -- -u -b 200M -l 1000 -k 1024 -R -i 0.1; }
@test "UDP -b 100M/10 (burst)"   { interop -- -u -b 100M/10; }
@test "UDP --udp-counters-64bit" { interop -- -u -b 50M --udp-counters-64bit; }
@test "UDP --dont-fragment"      { interop -- -u -b 50M -l 1400 --dont-fragment; }
@test "UDP --pacing-timer 2000"  { interop -- -u -b 50M --pacing-timer 2000; }
@test "UDP -l 8972 (jumbo)"      { interop --expect "c['start']['test_start']['blksize']==8972" -- -u -b 500M -l 8972; }
@test "UDP -S 16 -R"             { interop --expect "c['start']['test_start']['tos']==16" -- -u -b 50M -S 16 -R; }
# UDP --skip-rx-copy: esxperf's receiver reads each datagram's header only and counts
# every datagram (esxperf_speed.bats traces it); iperf3 3.22's own receiver with it
# reads 16 bytes a datagram and counts none (packets 0), which the checks allow
@test "UDP --skip-rx-copy"       { interop --na "3.12,3.18 i2e: iperf3 before 3.19 has no --skip-rx-copy" -- -u -b 100M --skip-rx-copy; }
@test "UDP --skip-rx-copy -R"    { interop --na "3.12,3.18 i2e: iperf3 before 3.19 has no --skip-rx-copy" -- -u -b 100M -R --skip-rx-copy; }
@test "-T title (text)"          { interop --quick --every-line '^t1:  ' -- -T t1; }
# what iperf3 3.21+ takes in the parameters, esxperf -s takes too (a title or
# extra_data of 256+ bytes, pacing_timer over 10^7, CPU 1024), so that any client
# iperf3 serves is served; -J carries the title at the top, on both sides, as iperf3 writes it
T300=$(printf 'T%.0s' $(seq 300)) X300=$(printf 'x%.0s' $(seq 300))
@test "-T of 300 characters (-J title)" { interop --quick --expect "c['title']=='$T300' and s['title']=='$T300'" -- -T "$T300"; }
@test "--extra-data of 300 characters" { interop --quick --expect "c['extra_data']=='$X300' and s['extra_data']=='$X300'" -- --extra-data "$X300"; }
@test "--pacing-timer 20000000"  { interop --quick -- --pacing-timer 20000000; }
# iperf3 -s ends the test when it cannot pin to the CPU asked for (error 132);
# esxperf -s warns and runs it unpinned, so only i2e
@test "-A 0,1023 and 0,1024 (a server CPU this host lacks)" {
    local f
    interop --quick --roles i2e --text receiver -- -A 0,1023
    for f in "$TMP"/i2e-*.server; do
        grep -q "cannot pin" "$f" || flunk "$f: no warning: $(head -c 300 "$f")"
    done
    rm -f "$TMP"/i2e-*.server
    interop --quick --roles i2e --text receiver -- -A 0,1024
    for f in "$TMP"/i2e-*.server; do
        grep -q "cannot pin to CPU 1024, which the client asked for" "$f" ||
            flunk "$f: no warning: $(head -c 300 "$f")"
    done
}
@test "-f m (text)"              { interop --quick --text 'Mbits/sec .*receiver' -- -f m; }
@test "-V (text)"                { interop --quick --text 'receiver' -- -V; }
@test "--get-server-output (text)" { interop --quick --text 'Server output:' -- --get-server-output; }
@test "--get-server-output -J"   { interop --quick --expect "c['server_output_json']['end']['sum_received']['bytes']==s['end']['sum_received']['bytes']" -- --get-server-output; }
@test "--logfile --forceflush"   { interop --quick --output "$TMP/client.log" --text 'receiver' -- --logfile "$TMP/client.log" --forceflush; }
@test "server --idle-timeout"    { interop --quick --server "--idle-timeout 20" -- ; }
# the esxperf server takes either padding without a flag; only clients choose
@test "auth: RSA, PKCS1 v1.5 with 3.12" { interop_auth --quick --na "3.18,3.22 both: OAEP row" --esx-client --use-pkcs1-padding; }
@test "auth: RSA, OAEP with 3.18, 3.22"   { interop_auth --quick --na "3.12 both: PKCS#1 row"; }
@test "auth: RSA, PKCS1 with 3.18, 3.22"  { interop_auth --quick --iperf3-server --use-pkcs1-padding --na "3.12 both: PKCS#1 row above" --na "3.22 i2e: iperf3 3.20+ clients have no --use-pkcs1-padding" -- --use-pkcs1-padding; }
@test "auth: --time-skew-threshold"      { interop_auth --quick --server "--time-skew-threshold 30" --na "3.12 both: PKCS#1 row above"; }
@test "UDP --cport"              { interop --expect "c['start']['connected'][0]['local_port']==@CPORT@" -- -u -b 50M --cport @CPORT@; }
@test "server -B 127.0.0.1"      { interop --quick --server "-B 127.0.0.1" -- ; }

# iperf3 3.17..3.22's output, run and server options both sides have
# (their behaviour against 3.22 in detail: esxperf_run_options.bats)
@test "--repeating-payload"      { interop --quick -- --repeating-payload; }
@test "--extra-data"             { interop --quick --expect "c.get('extra_data')=='rack7' and s.get('extra_data')=='rack7'" -- --extra-data rack7; }
@test "--timestamps (text)"      { interop --quick --every-line '^[A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9][0-9] [0-9]{2}:[0-9]{2}:[0-9]{2} [0-9]{4} ' -- --timestamps; }
@test "--timestamps=FMT (text)"  { interop --quick --every-line '^[0-9]{2}:[0-9]{2}:[0-9]{2} t2:  ' -- '--timestamps=%H:%M:%S ' -T t2; }
@test "server --server-bitrate-limit (test within it)" { interop --quick --server "--server-bitrate-limit 1000G/1" -- ; }
@test "server --server-max-duration (test within it)"  { interop --server "--server-max-duration 20" --na "3.12,3.18 c2i: iperf3 before 3.19 has no --server-max-duration" -- -t 1 -O 1; }

# ---- iperf3 3.22's socket and wire options. What each does to the
# sockets and the packets is proven in esxperf_netopts.bats; here, that each peer
# takes it in both roles and both sides agree on what the parameters asked.
@test "TCP --dscp af41 (TOS 136)" { interop --quick --expect "c['start']['test_start']['tos']==136 and s['start']['test_start']['tos']==136" -- --dscp af41; }
@test "UDP --dscp 0x2e -R (EF, TOS 184)" { interop --expect "c['start']['test_start']['tos']==184" -- -u -b 50M --dscp 0x2e -R; }
@test "TCP --fq-rate 200M (paced)" { interop --expect "c['end']['sum_sent']['bits_per_second'] < 400e6" -- --fq-rate 200M; }
@test "TCP --fq-rate 200M -R (the server paces)" { interop --na "3.12 c2i: an iperf3 3.12 server sets the pacing rate only on a listener it remakes for -N/-M/-w" --expect "c['end']['sum_received']['bits_per_second'] < 400e6" -- --fq-rate 200M -R; }
@test "UDP --fq-rate 50M"        { interop -- -u -b 40M --fq-rate 50M; }
@test "-J start.fq_rate"         { interop --quick --na "3.12 both: iperf3 3.12 writes no start.fq_rate" --expect "c['start']['fq_rate']==100000000 and s['start']['fq_rate']==100000000 and s['start']['test_start']['fqrate']==100000000" -- --fq-rate 100M; }
@test "--no-fq-socket-pacing (text)" { interop --quick --roles c2i --text 'receiver' -- --fq-rate 100M --no-fq-socket-pacing; }
@test "TCP -L 0x12345 (flow label, ::1)" { interop --quick --host ::1 -- -6 -L 0x12345; }
@test "TCP --flowlabel 77 -R (::1)" { interop --quick --host ::1 -- -R --flowlabel 77; }
@test "TCP --bind-dev lo (both ends)" { interop --quick --server "--bind-dev lo" -- --bind-dev lo; }
@test "TCP -B 127.0.0.1%lo (both ends)" { interop --quick --server "-B 127.0.0.1%lo" --expect "c['start']['connected'][0]['local_host']=='127.0.0.1'" -- -B 127.0.0.1%lo; }
@test "UDP --bind-dev lo (both ends)" { interop --server "--bind-dev lo" -- -u -b 50M --bind-dev lo; }
@test "TCP --snd-timeout (both ends)" { interop --quick --server "--snd-timeout 5000" -- --snd-timeout 5000; }
@test "TCP -R --rcv-timeout (both ends)" { interop --quick --server "--rcv-timeout 5000" -- -R --rcv-timeout 5000; }
@test "UDP --rcv-timeout on the server" { interop --server "--rcv-timeout 3000" -- -u -b 50M; }
@test "TCP --cntl-ka (both ends)" { interop --quick --na "3.12,3.18 both: these iperf3 builds have no --cntl-ka" --server "--cntl-ka" -- --cntl-ka=20/5/3; }
@test "TCP -m (MPTCP, both ends)" {
    [ "$(cat /proc/sys/net/mptcp/enabled 2>/dev/null)" = 1 ] || skip "this kernel has no MPTCP (net.mptcp.enabled)"
    interop --quick --na "3.12,3.18 both: these iperf3 builds have no -m" --server "-m" -- -m
}
@test "TCP --mptcp -R (plain server)" {
    [ "$(cat /proc/sys/net/mptcp/enabled 2>/dev/null)" = 1 ] || skip "this kernel has no MPTCP (net.mptcp.enabled)"
    interop --quick --na "3.12,3.18 both: these iperf3 builds have no --mptcp" -- --mptcp -R
}
@test "UDP --gsro"               { interop --na "3.12,3.18 both: --gsro is new in iperf3 3.22" -- -u -b 200M -l 1400 --gsro; }
@test "UDP --gsro -R"            { interop --na "3.12,3.18 both: --gsro is new in iperf3 3.22" -- -u -b 200M -l 1400 --gsro -R; }
# -J start.test_start gso/gro (iperf3 3.22's keys; every row checks esxperf writes
# them, typed and ordered as the peer does): esxperf's side says what its UDP streams
# use (this kernel has UDP GSO and GRO): the sender GSO, the receiver GRO; with
# datagrams too big for two per send, no GSO. ESX: esxperf's test_start.
ESX="e['start']['test_start']"
@test "-J test_start gso/gro: the esxperf sender GSO, the receiver GRO" { interop --expect "($ESX['gso'],$ESX['gro'])==((1,0) if e is c else (0,1))" -- -u -b 100M -l 1400; }
@test "-J test_start gso/gro -R"  { interop --expect "($ESX['gso'],$ESX['gro'])==((0,1) if e is c else (1,0))" -- -u -b 100M -l 1400 -R; }
@test "-J test_start gso/gro --bidir" { interop --expect "($ESX['gso'],$ESX['gro'])==(1,1)" -- -u -b 50M -l 1400 --bidir; }
@test "-J test_start gso/gro -l 32K (no GSO)" { interop --expect "$ESX['gso']==0" -- -u -b 100M -l 32K; }
@test "-J test_start gso/gro --gsro (3.22 says 1, 1)" { interop --na "3.12,3.18 both: --gsro is new in iperf3 3.22" --expect "(i['start']['test_start']['gso'],i['start']['test_start']['gro'])==(1,1) and ($ESX['gso'],$ESX['gro'])==((1,0) if e is c else (0,1))" -- -u -b 100M -l 1400 --gsro; }
# --skip-rx-copy: an esxperf receiver reads headers only, without GRO, and says so
@test "-J test_start gso/gro --skip-rx-copy -R (the receiver no GRO)" { interop --na "3.12,3.18 i2e: iperf3 before 3.19 has no --skip-rx-copy" --expect "($ESX['gso'],$ESX['gro'])==((0,0) if e is c else (1,0))" -- -u -b 100M -l 1400 -R --skip-rx-copy; }
@test "-J test_start gso/gro TCP (0, 0)" { interop --quick --expect "($ESX['gso'],$ESX['gro'])==(0,0)" -- -P 2; }
@test "TCP --version4"           { interop --quick --expect "c['start']['connected'][0]['local_host']=='127.0.0.1'" -- --version4; }
@test "TCP --version6 (::1)"     { interop --quick --host ::1 --expect "c['start']['connected'][0]['remote_host']=='::1'" -- --version6; }
@test "TCP --bandwidth 400M"     { interop --expect "c['end']['sum_sent']['bits_per_second'] < 480e6" -- --bandwidth 400M; }
