#!/usr/bin/env bats
# esxperf's iperf3-compatible RSA authentication against Debian's iperf3 3.12 in both
# roles (PKCS#1 v1.5, the only padding 3.12 has) and esxperf <-> esxperf (OAEP), on
# 127.0.0.1 only. Tokens with a chosen timestamp (expired, replayed) are made by
# openssl from iperf3's plaintext format and sent by test/lib/hostile_client.py, so
# the token format is also checked against an independent RSA implementation.
# Every refusal is followed by a test that must pass: the server goes on serving.
load ../lib/common

HC="$ESXDIAG_ROOT/test/lib/hostile_client.py"

setup_file() {
    local d="$BATS_FILE_TMPDIR"
    openssl genrsa -traditional -out "$d/priv.pem" 2048 2>/dev/null
    openssl rsa -in "$d/priv.pem" -pubout -out "$d/pub.pem" 2>/dev/null
    openssl genrsa -traditional -out "$d/other.pem" 2048 2>/dev/null
    openssl rsa -in "$d/other.pem" -pubout -out "$d/otherpub.pem" 2>/dev/null
    chmod 600 "$d/priv.pem" "$d/other.pem"
    # alice / s3cret; one malformed line that must be warned about and never match
    {
        echo "# esxperf auth test users"
        printf 'alice,%s\n' "$(printf '%s' '{alice}s3cret' | sha256sum | cut -d' ' -f1)"
        echo "mallory,not-a-hash"
    } >"$d/users.csv"
}

setup() {
    command -v openssl >/dev/null || skip "openssl not installed"
    K="$BATS_FILE_TMPDIR"
    PORT=$(free_port)
    PIDS=()
    TMP=$(mktemp -d)
    export IPERF3_PASSWORD=s3cret
    # esxperf_server (test/lib/common.bash): authenticating, on 127.0.0.1, log in $TMP/s.out
    SERVER_ARGS=(-B 127.0.0.1 --rsa-private-key-path "$K/priv.pem" --authorized-users-path "$K/users.csv")
}

teardown() {
    stop_pids
    rm -rf "$TMP"
}


iperf3_server() {   # authenticating iperf3 3.12 -s, log in $TMP/i.out
    iperf3 -s -B 127.0.0.1 -p "$PORT" --rsa-private-key-path "$K/priv.pem" \
        --authorized-users-path "$K/users.csv" >"$TMP/i.out" 2>&1 &
    SPID=$!
    PIDS+=($SPID)
    wait_port "$PORT"
}

# token USER PASS TS PADDING(pkcs1|oaep) [PUBKEY]: iperf3's plaintext, RSA by openssl
token() {
    printf 'user: %s\npwd:  %s\nts:   %s' "$1" "$2" "$3" |
        openssl pkeyutl -encrypt -pubin -inkey "${5:-$K/pub.pem}" -pkeyopt rsa_padding_mode:"$4" |
        base64 -w0
}

# esxperf client with credentials: ecli USER PUBKEY [more options]
ecli() {
    local u=$1 k=$2
    shift 2
    run timeout 20 "$BIN/esxperf" -c 127.0.0.1 -p "$PORT" -t 1 -i 0 --username "$u" \
        --rsa-public-key-path "$k" "$@"
}

# iperf3 3.12 client with credentials: icli USER PUBKEY
icli() {
    run timeout 20 iperf3 -c 127.0.0.1 -p "$PORT" -t 1 -i 0 --username "$1" \
        --rsa-public-key-path "$2"
}

@test "auth options: pairs required, key file mode refused with the fix named, override" {
    run "$BIN/esxperf" -c 127.0.0.1 --username alice
    assert_status 2
    assert_contains "needs both --username and --rsa-public-key-path"
    run "$BIN/esxperf" -s --rsa-private-key-path "$K/priv.pem"
    assert_status 2
    assert_contains "needs both --rsa-private-key-path and --authorized-users-path"
    run "$BIN/esxperf" -c 127.0.0.1 --authorized-users-path "$K/users.csv" \
        --rsa-private-key-path "$K/priv.pem"
    assert_status 2
    cp "$K/priv.pem" "$TMP/open.pem"
    chmod 644 "$TMP/open.pem"
    run timeout 10 "$BIN/esxperf" -s -p "$PORT" --rsa-private-key-path "$TMP/open.pem" \
        --authorized-users-path "$K/users.csv"
    assert_status 2
    assert_contains "has mode 0644: group or others may read it"
    assert_contains "chmod 600 $TMP/open.pem"
    assert_contains "--allow-readable-key"
    [ "${#lines[@]}" -eq 1 ] || flunk "more than one line: $output"
    run timeout 10 "$BIN/esxperf" -s -1 --idle-timeout 1 -p "$PORT" --allow-readable-key \
        --rsa-private-key-path "$TMP/open.pem" --authorized-users-path "$K/users.csv"
    assert_status 1
    assert_contains "no client within --idle-timeout"
    run timeout 10 "$BIN/esxperf" -s -p "$PORT" --rsa-private-key-path "$K/pub.pem" \
        --authorized-users-path "$K/users.csv"
    assert_status 2
    assert_contains "private key"
    run timeout 10 "$BIN/esxperf" -s -p "$PORT" --rsa-private-key-path "$K/priv.pem" \
        --authorized-users-path "$TMP/missing.csv"
    assert_status 2
    assert_contains "cannot open users file"
    # no IPERF3_PASSWORD and no terminal: one clear line, before any connection
    unset IPERF3_PASSWORD
    run timeout 10 setsid -w "$BIN/esxperf" -c 127.0.0.1 -p 9 --username alice \
        --rsa-public-key-path "$K/pub.pem"
    assert_status 2
    assert_contains "no password: IPERF3_PASSWORD is not set"
}

@test "esxperf client -> iperf3 3.12 server (PKCS#1 v1.5): right passes, each refusal as 3.12 refuses" {
    command -v iperf3 >/dev/null || skip "iperf3 not installed"
    iperf3_server
    ecli alice "$K/pub.pem" --use-pkcs1-padding -J
    assert_status 0
    python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["end"]["sum_received"]["bytes"] > 0' "$output"
    IPERF3_PASSWORD=wrong ecli alice "$K/pub.pem" --use-pkcs1-padding
    assert_status 1
    assert_contains "the server refused the test: authentication failed"
    ecli bob "$K/pub.pem" --use-pkcs1-padding
    assert_status 1
    assert_contains "authentication failed"
    ecli alice "$K/otherpub.pem" --use-pkcs1-padding       # a token for another key
    assert_status 1
    assert_contains "authentication failed"
    ecli alice "$K/pub.pem"                                 # OAEP: 3.12 cannot decrypt it
    assert_status 1
    assert_contains "authentication failed"
    run timeout 20 "$BIN/esxperf" -c 127.0.0.1 -p "$PORT" -t 1 -i 0   # no token
    assert_status 1
    assert_contains "authentication failed"
    # what 3.12 sends on the wire for a refusal: SERVER_ERROR and one int32, 142
    run timeout 20 "$HC" -p "$PORT" -t 3 -s 0 \
        --authtoken "$(token alice s3cret $(( $(date +%s) - 100 )) pkcs1)" normal
    [[ "$output" == "normal: state:SERVER_ERROR errors=[142] after"* ]] || flunk "$output"
    run timeout 20 "$HC" -p "$PORT" -t 3 -s 0 normal
    [[ "$output" == "normal: state:SERVER_ERROR errors=[142] after"* ]] || flunk "$output"
    ecli alice "$K/pub.pem" --use-pkcs1-padding
    assert_status 0
    assert_contains "iperf Done."
    [ "$(grep -c 'test authorization failed' "$TMP/i.out")" -ge 7 ] || flunk "$(cat "$TMP/i.out")"
}

@test "iperf3 3.12 client -> esxperf server (no padding flag: PKCS#1 v1.5 taken): right passes, refusals logged, server goes on" {
    command -v iperf3 >/dev/null || skip "iperf3 not installed"
    esxperf_server
    icli alice "$K/pub.pem"
    assert_status 0
    assert_contains "iperf Done."
    IPERF3_PASSWORD=wrong icli alice "$K/pub.pem"
    assert_status 1
    assert_contains "test authorization failed"
    icli alice "$K/pub.pem"
    assert_status 0
    icli bob "$K/pub.pem"
    assert_status 1
    assert_contains "test authorization failed"
    icli alice "$K/otherpub.pem"
    assert_status 1
    assert_contains "test authorization failed"
    IPERF3_PASSWORD="s3 cret" icli alice "$K/pub.pem"   # iperf3 puts the space in the token
    assert_status 1
    assert_contains "test authorization failed"
    run timeout 20 iperf3 -c 127.0.0.1 -p "$PORT" -t 1 -i 0
    assert_status 1
    assert_contains "test authorization failed"
    icli alice "$K/pub.pem"
    assert_status 0
    # expired (100 s old), then a fresh token twice: the refusal bytes are 3.12's, and
    # after a refusal the server accepts nothing for about a second
    local now
    now=$(date +%s)
    run timeout 20 "$HC" -p "$PORT" -t 5 -s 0 --authtoken "$(token alice s3cret $((now - 100)) pkcs1)" \
        normal normal
    [[ "${lines[0]}" == "normal: state:SERVER_ERROR errors=[142] after"* ]] || flunk "$output"
    local t
    t=$(printf '%s\n' "${lines[1]}" | sed -E 's/.* after ([0-9.]+)s$/\1/')
    python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) >= 0.7 else 1)' "$t" ||
        flunk "the second refusal came after $t s, expected a ~1 s pause: $output"
    icli alice "$K/pub.pem"
    assert_status 0
    kill -0 "$SPID" || flunk "the server died"
    run cat "$TMP/s.out"
    assert_contains "Authenticated user 'alice' from 127.0.0.1"
    assert_contains "authentication failed: wrong password (user 'alice')"
    assert_contains "authentication failed: unknown user (user 'bob')"
    assert_contains "authentication failed: bad token: it does not decrypt with our key"
    assert_contains "authentication failed: bad token: the user name or password holds a space"
    assert_contains "authentication failed: no token"
    assert_contains "authentication failed: expired token (user 'alice'"
    assert_contains "1 malformed line ignored, the first is line 3"
}

@test "esxperf <-> esxperf (OAEP): right passes; either padding accepted; wrong password, replay, skew refused" {
    esxperf_server
    ecli alice "$K/pub.pem"
    assert_status 0
    assert_contains "iperf Done."
    IPERF3_PASSWORD=wrong ecli alice "$K/pub.pem"
    assert_status 1
    assert_contains "authentication failed"
    # the server takes PKCS#1 v1.5 tokens too (iperf3 3.16 and older), with no flag
    ecli alice "$K/pub.pem" --use-pkcs1-padding
    assert_status 0
    ecli alice "$K/pub.pem" -u -b 10M -R
    assert_status 0
    # one OAEP token (made by openssl) used twice: iperf3 3.12 would take both
    local now tok
    now=$(date +%s)
    tok=$(token alice s3cret "$now" oaep)
    run timeout 30 "$HC" -p "$PORT" -t 5 -s 0.2 --authtoken "$tok" normal normal
    [[ "${lines[0]}" == "normal: completed"* ]] || flunk "$output"
    [[ "${lines[1]}" == "normal: state:SERVER_ERROR errors=[142] after"* ]] || flunk "$output"
    # 30 s old: refused with the default 10 s skew
    run timeout 30 "$HC" -p "$PORT" -t 5 -s 1 --authtoken "$(token alice s3cret $((now - 30)) oaep)" normal
    [[ "$output" == "normal: state:SERVER_ERROR errors=[142] after"* ]] || flunk "$output"
    ecli alice "$K/pub.pem"
    assert_status 0
    run cat "$TMP/s.out"
    assert_contains "authentication failed: replayed (user 'alice')"
    assert_contains "authentication failed: expired token"
    assert_contains "--time-skew-threshold is 10"
    # the same 30 s old token passes a server with --time-skew-threshold 60
    kill "$SPID"
    PORT=$((PORT + 1))
    esxperf_server --time-skew-threshold 60
    run timeout 30 "$HC" -p "$PORT" -t 5 -s 0 --authtoken "$(token alice s3cret $((now - 30)) oaep)" normal
    [[ "$output" == "normal: completed"* ]] || flunk "$output"
}

@test "password prompt: asked on the terminal without echo when IPERF3_PASSWORD is unset" {
    esxperf_server
    unset IPERF3_PASSWORD
    # a pty as the client's terminal; the answer is typed after the prompt appears
    run timeout 30 python3 - "$BIN/esxperf" "$PORT" "$K/pub.pem" <<'PY'
import os, pty, select, sys, time
esx, port, pub = sys.argv[1:4]
pid, fd = pty.fork()
if pid == 0:
    os.execv(esx, [esx, "-c", "127.0.0.1", "-p", port, "-t", "1", "-i", "0",
                   "--username", "alice", "--rsa-public-key-path", pub])
out, typed, end = b"", False, time.monotonic() + 20
while time.monotonic() < end:
    r, _, _ = select.select([fd], [], [], 0.5)
    if not r:
        continue
    try:
        d = os.read(fd, 4096)
    except OSError:
        break
    if not d:
        break
    out += d
    if b"Password: " in out and not typed:
        os.write(fd, b"s3cret\n")
        typed = True
print(out.decode(errors="replace"))
print("exit", os.waitpid(pid, 0)[1] >> 8)
PY
    assert_contains "Password: "
    assert_contains "iperf Done."
    assert_contains "exit 0"
    assert_not_contains "s3cret"
}

@test "auth audit: authenticating client and server stay within build/syscalls.allow" {
    ( sleep 1; timeout 20 "$BIN/esxperf" -c 127.0.0.1 -p "$PORT" -t 1 --username alice \
        --rsa-public-key-path "$K/pub.pem" >/dev/null 2>&1 ) &
    PIDS+=($!)
    audit_syscalls "$BIN/esxperf" -s -1 -p "$PORT" --idle-timeout 20 \
        --rsa-private-key-path "$K/priv.pem" --authorized-users-path "$K/users.csv"
    [ "$AUDIT_RC" = 0 ] || flunk "server exited $AUDIT_RC"
    esxperf_server
    audit_syscalls "$BIN/esxperf" -c 127.0.0.1 -p "$PORT" -t 1 --username alice \
        --rsa-public-key-path "$K/pub.pem"
    [ "$AUDIT_RC" = 0 ] || flunk "client exited $AUDIT_RC"
    audit_enosys "$BIN/esxperf" -c 127.0.0.1 -p "$PORT" -t 1 --username alice \
        --rsa-public-key-path "$K/pub.pem"
}
