#!/usr/bin/env bats
# esxmtu against clumsy input it cannot see: several -f lists, a list saved with a
# byte-order mark, peer names holding control or invisible bytes. Real probes to
# 127.0.0.1 and ::1 only (no namespace); a name that must resolve comes from a hosts
# file bound over /etc/hosts in a private mount namespace (unshare -m), never the
# machine's own.
load ../lib/common

MTU=$BIN/esxmtu

setup() {
    need_root
    D=$BATS_TEST_TMPDIR
}

@test "-f twice: both lists are read, in order after the operands; an empty one of several is named" {
    echo 127.0.0.1 > "$D/a"
    echo ::1 > "$D/b"
    run "$MTU" -q -W 0.3 -f "$D/a" -f "$D/b"
    assert_status 0
    [ "${#lines[@]}" = 3 ] || flunk "$output"
    [[ "${lines[0]}" == "127.0.0.1 "*PASS* ]] || flunk "$output"
    [[ "${lines[1]}" == "::1 "*PASS* ]] || flunk "$output"
    [ "${lines[2]}" = "summary: 2 of 2 peers pass (exit 0)" ] || flunk "$output"
    # operands first, then each list in the order given
    run "$MTU" -q -W 0.3 -f "$D/b" ::1 -f "$D/a"
    assert_status 0
    [[ "${lines[0]}" == "::1 "* && "${lines[1]}" == "::1 "* && "${lines[2]}" == "127.0.0.1 "* ]] || flunk "$output"
    # a second list that cannot be read is an error, never a run on the first alone
    run "$MTU" -q -W 0.3 -f "$D/a" -f "$D/missing"
    assert_status 2
    [ "$output" = "esxmtu: cannot open $D/missing: No such file or directory (check the -f path)" ] || flunk "$output"
    : > "$D/empty"
    run "$MTU" -q -W 0.3 -f "$D/a" -f "$D/empty"
    assert_status 2
    [ "$output" = "esxmtu: $D/empty: no peer in it (one address or name a line, # comments) (try 'esxmtu --help')" ] ||
        flunk "$output"
}

@test "-f list starting with a UTF-8 byte-order mark: the mark is skipped, the first peer is read" {
    printf '\xef\xbb\xbf127.0.0.1\r\n::1\r\n' > "$D/bom"
    run "$MTU" -q -W 0.3 -f "$D/bom"
    assert_status 0
    assert_contains "summary: 2 of 2 peers pass (exit 0)"
    printf '\xef\xbb\xbf# saved by an editor\n127.0.0.1\n' > "$D/bomc"
    run "$MTU" -q -W 0.3 -f "$D/bomc"
    assert_status 0
    # only a whole mark at the very start: a cut one stays in the name, shown escaped
    printf '\xef\xbb127.0.0.1\n' > "$D/half"
    run "$MTU" -q -W 0.3 -f "$D/half"
    assert_status 2
    [ "$output" = 'esxmtu: cannot resolve \xef\xbb127.0.0.1: unknown host or not an address (check the name, or give an address)' ] ||
        flunk "$output"
    printf '127.0.0.1\n\xef\xbb\xbf::1\n' > "$D/mid"
    run "$MTU" -q -W 0.3 -f "$D/mid"
    assert_status 2
    [ "$output" = 'esxmtu: cannot resolve \xef\xbb\xbf::1: unknown host or not an address (check the name, or give an address)' ] ||
        flunk "$output"
}

# a name that resolves (from a hosts file of this test, in a mount namespace of its
# own) but holds an escape sequence, an invisible mark or a byte that is not UTF-8
with_hosts() {
    printf '127.0.0.1 localhost\n127.0.0.1 %s\n' "$1" > "$D/hosts"
    shift
    unshare -m sh -c 'mount --bind "$1" /etc/hosts && shift && exec "$@"' _ "$D/hosts" "$@"
}

@test "a peer name with control or invisible bytes is printed escaped (\\xNN), in text; JSON escapes it its way" {
    command -v unshare >/dev/null || skip "unshare missing"
    local esc=$'esx\e[2J01' zw=$'esx\xe2\x80\x8b02' bad=$'esx\xff03'
    run with_hosts "$esc" "$MTU" -q -W 0.3 "$esc"
    assert_status 0
    [ "${lines[0]%% PASS*}" = 'esx\x1b[2J01 (127.0.0.1)' ] || flunk "$output"
    [[ "$output" != *$'\e'* ]] || flunk "a raw ESC: $output"
    run with_hosts "$zw" "$MTU" -q -W 0.3 "$zw"
    assert_status 0
    [ "${lines[0]%% PASS*}" = 'esx\xe2\x80\x8b02 (127.0.0.1)' ] || flunk "$output"
    run with_hosts "$bad" "$MTU" -q -W 0.3 "$bad"
    assert_status 0
    [ "${lines[0]%% PASS*}" = 'esx\xff03 (127.0.0.1)' ] || flunk "$output"
    run with_hosts "$esc" "$MTU" -J -W 0.3 "$esc"
    assert_status 0
    [ "$(jq -r '.peers[0].target' <<<"$output")" = "$esc" ] || flunk "$output"
    [[ "$output" == *'"target": "esx\u001b[2J01"'* ]] || flunk "$output"
    # an error naming such a peer escapes it too (fail.c, the same rule)
    run "$MTU" -q -W 0.3 "$zw"
    assert_status 2
    [ "$output" = 'esxmtu: cannot resolve esx\xe2\x80\x8b02: unknown host or not an address (check the name, or give an address)' ] ||
        flunk "$output"
}
