#!/usr/bin/env bats
# esxi/prepare.sh, esxi/cleanup.sh and esxi/hostcli.sh on an ESXi-shaped shell: busybox
# ash built without `command` and `type`, no tr, no od (build/deps.sh), with a PATH of
# links to the applets test/lib/esxi-shell.list allows and nothing of this machine's
# (test/lib/esxi-shell.bash), and a stand-in esxcli (test/lib/fake-esxcli) that logs
# its arguments, keeps the host's state in files and answers in ESXi's layouts.
load ../lib/common
load ../lib/esxi-shell
bats_require_minimum_version 1.5.0

FAKE=$ESXDIAG_ROOT/test/lib/fake-esxcli

# an unpacked kit, as build/dist.sh lays it out, with one real program (prepare.sh
# proves with bin/esxpart --version that the host runs the kit)
make_kit() {
    KIT=$T/esxdiag-0.1.0
    mkdir -p "$KIT/bin" "$KIT/esxi" "$KIT/licenses"
    # the host scripts only: esxi/fleet/ runs on the controller, it is not in the kit
    find "$ESXDIAG_ROOT/esxi" -maxdepth 1 -type f -exec cp -t "$KIT/esxi/" {} +
    cp "$BIN/esxpart" "$KIT/bin/esxpart"
    printf 'not a real tool\n' > "$KIT/bin/esxtest"
    printf 'license text\n' > "$KIT/licenses/musl.copyright"
    (cd "$KIT" && find . -type f | sed 's|^\./||' | LC_ALL=C sort | xargs sha256sum > SHA256SUMS)
}

# the host: execInstalledOnly 1 (the boot option off, no TPM enforcement), firewall on,
# one stock ruleset
make_host() {
    export FAKE_ESXI=$T/host ESXDIAG_FIREWALL_DIR=$T/host/firewall
    mkdir -p "$FAKE_ESXI/rs/sshServer" "$ESXDIAG_FIREWALL_DIR"
    echo 1 > "$FAKE_ESXI/exec"
    echo "FALSE FALSE" > "$FAKE_ESXI/boot"
    echo false > "$FAKE_ESXI/tpm"
    echo true > "$FAKE_ESXI/fw_enabled"
    echo true > "$FAKE_ESXI/rs/sshServer/enabled"
    echo true > "$FAKE_ESXI/rs/sshServer/allowed_all"
    : > "$FAKE_ESXI/rs/sshServer/ips"
    echo "Inbound TCP Dst 22 22" > "$FAKE_ESXI/rs/sshServer/rules"
    : > "$FAKE_ESXI/log"
}

setup() {
    T=$(mktemp -d)
    make_kit
    make_host
    # PATH: the esxcli stand-in, then the listed applets; nothing else
    mkdir -p "$T/fakebin"
    ln -s "$FAKE" "$T/fakebin/esxcli"
    esxi_shell_bin "$T/esxi-bin"
    HOSTPATH=$T/fakebin:$T/esxi-bin
    INITIAL=$(host_state)
}

teardown() {
    fake_esxcli_reap
    rm -rf "$T"
}

# host_sh [NAME=VALUE]... SCRIPT ARGS...: SCRIPT under the ESXi-shaped shell, in an
# environment of the host's only (env -i), NAME=VALUE and the array HOST_ENV added;
# run under the command in the array HOST_WRAP (an outer timeout for a sick esxcli)
HOST_ENV=() HOST_WRAP=()
host_sh() {
    local vars=()
    while [[ "${1:-}" == *=* ]]; do vars+=("$1"); shift; done
    "${HOST_WRAP[@]}" env -i PATH="$HOSTPATH" HOME=/ FAKE_ESXI="$FAKE_ESXI" ESXDIAG_FIREWALL_DIR="$ESXDIAG_FIREWALL_DIR" \
        "${HOST_ENV[@]}" "${vars[@]}" "$T/esxi-bin/sh" "$@"
}

# everything the stand-in host keeps, one line per fact
host_state() {
    (cd "$FAKE_ESXI" && for f in exec boot tpm fw_enabled $(find rs -type f | LC_ALL=C sort); do
        [ -f "$f" ] && printf '%s: %s\n' "$f" "$(tr '\n' ' ' < "$f")"; done)
    ls -A "$ESXDIAG_FIREWALL_DIR"
}
prepare() { run host_sh "$KIT/esxi/prepare.sh" "$@"; }
# the state file's records (no header, no kit= and sum= lines)
records() { grep -vE '^(#|kit=|sum=)' "$KIT/esxdiag.state"; }
cleanup() { run host_sh "$KIT/esxi/cleanup.sh" "$@"; }
# commands that change the host, as the stand-in logged them
changing_calls() { grep -E ' (set|add|remove|refresh)( |$)' "$FAKE_ESXI/log" || true; }
# esxcli was asked only for esxmtu's scratch objects (cleanup lists them on every run)
scratch_listing_only() {
    [ "$(cut -d' ' -f2- "$FAKE_ESXI/log" | sort -u | tr '\n' ';')" = \
        "network ip interface list;network vswitch standard portgroup list;" ] || flunk "esxcli called: $(cat "$FAKE_ESXI/log")"
}
# the host as setup left it: same state, no changing call logged, no state file
assert_host_untouched() {
    [ "$(host_state)" = "$INITIAL" ] || flunk "host changed: $(host_state)"
    [ ! -e "$KIT/esxdiag.state" ] || flunk "state file written"
    [ -z "$(changing_calls)" ] || flunk "changing calls: $(changing_calls)"
}
# every logged esxcli call must appear in the output as "+ esxcli ARGS"
assert_all_printed() {
    local line
    while IFS= read -r line; do
        [[ "$output" == *"+ $line"* ]] || flunk "not printed: '$line'; output: $output"
    done < "$FAKE_ESXI/log"
}

@test "esxi: --help of both scripts shows usage, examples and exit codes" {
    prepare --help
    assert_status 0
    assert_contains "usage: sh esxi/prepare.sh"
    assert_contains "Examples:"
    assert_contains "Exit codes:"
    cleanup --help
    assert_status 0
    assert_contains "usage: sh esxi/cleanup.sh"
    assert_contains "Exit codes:"
}

@test "esxi: prepare without flags shows the settings and changes nothing" {
    prepare
    assert_status 0
    assert_contains "/User/execInstalledOnly = 1"
    assert_contains "rerun with --allow-exec"
    assert_contains "firewall enabled: true"
    assert_contains "nothing was changed"
    assert_host_untouched
}

@test "esxi: prepare --dry-run prints the changes and makes none" {
    prepare --allow-exec --allow-ip 198.18.0.0/15 --dry-run
    assert_status 0
    assert_contains "(dry run, not run) esxcli system settings advanced set -o /User/execInstalledOnly -i 0"
    assert_contains "(dry run, not run) write $ESXDIAG_FIREWALL_DIR/esxdiag.xml"
    assert_contains "(dry run, not run) esxcli network firewall refresh"
    assert_contains "(dry run, not run) esxcli network firewall ruleset allowedip add --ruleset-id esxdiag --ip-address 198.18.0.0/15"
    assert_contains "dry run: nothing was changed"
    assert_host_untouched
    prepare --disable-firewall --dry-run
    assert_status 0
    assert_contains "(dry run, not run) esxcli network firewall set --enabled false"
    assert_host_untouched
}

@test "esxi: prepare --allow-exec sets 0, cleanup restores 1 and removes the kit" {
    prepare --allow-exec
    assert_status 0
    [ "$(cat "$FAKE_ESXI/exec")" = 0 ] || flunk "execInstalledOnly not 0"
    grep -qx 'exec_prev=1' "$KIT/esxdiag.state" || flunk "state: $(cat "$KIT/esxdiag.state")"
    assert_all_printed
    cleanup
    assert_status 0
    assert_contains "+ esxcli system settings advanced set -o /User/execInstalledOnly -i 1"
    assert_contains "kit removed: $KIT"
    [ "$(cat "$FAKE_ESXI/exec")" = 1 ] || flunk "execInstalledOnly not restored"
    [ ! -e "$KIT" ] || flunk "kit still there"
    [ "$(host_state)" = "$INITIAL" ] || flunk "host differs: $(host_state)"
}

# the main scenario: --allow-ip narrows the firewall, cleanup puts it back
narrow_path() {
    prepare --allow-ip 198.18.0.0/15 --allow-ip 2001:db8::/32 --port 5299
    assert_status 0
    assert_contains "UNVERIFIED on ESXi 8"
    rs=$FAKE_ESXI/rs/esxdiag
    [ -f "$ESXDIAG_FIREWALL_DIR/esxdiag.xml" ] || flunk "no ruleset file"
    grep -q '<port>5299</port>' "$ESXDIAG_FIREWALL_DIR/esxdiag.xml" || flunk "port not in the ruleset"
    [ "$(cat "$rs/enabled")" = true ] && [ "$(cat "$rs/allowed_all")" = false ] || flunk "ruleset not narrowed"
    [ "$(cat "$rs/ips")" = $'198.18.0.0/15\n2001:db8::/32' ] || flunk "ips: $(cat "$rs/ips")"
    [ "$(cat "$FAKE_ESXI/fw_enabled")" = true ] || flunk "firewall was disabled"
    [ "$(cat "$FAKE_ESXI/rs/sshServer/allowed_all")" = true ] || flunk "another ruleset touched"
    diff <(records) - <<EOT || flunk "state file"
ruleset=esxdiag
rs_file=$ESXDIAG_FIREWALL_DIR/esxdiag.xml
rs_enabled_prev=false
rs_allowed_all_prev=true
rs_ip_added=198.18.0.0/15
rs_ip_added=2001:db8::/32
EOT
    assert_all_printed
    : > "$FAKE_ESXI/log"
    cleanup --keep-kit
    assert_status 0
    assert_contains "+ esxcli network firewall ruleset allowedip remove --ruleset-id esxdiag --ip-address 2001:db8::/32"
    assert_contains "+ rm -f $ESXDIAG_FIREWALL_DIR/esxdiag.xml"
    assert_all_printed
    [ "$(host_state)" = "$INITIAL" ] || flunk "host differs: $(host_state)"
    [ -d "$KIT" ] || flunk "--keep-kit removed the kit"
    [ ! -e "$KIT/esxdiag.state" ] || flunk "state file kept"
}

@test "esxi: narrow firewall path: ruleset with allowed IPs, recorded and restored" {
    narrow_path
}

@test "esxi: narrow firewall path on a slow esxcli (each call held 0.4 s; a real host takes seconds): the same, under the default bound" {
    HOST_ENV=(FAKE_ESXCLI_SICK=slow FAKE_ESXCLI_SLOW_S=0.4)
    narrow_path
}

@test "esxi: an existing esxdiag ruleset is put back exactly as it was" {
    rs=$FAKE_ESXI/rs/esxdiag
    mkdir -p "$rs"
    echo false > "$rs/enabled"; echo false > "$rs/allowed_all"; echo 192.0.2.9 > "$rs/ips"
    INITIAL=$(host_state)
    prepare --allow-ip 192.0.2.9 --allow-ip 198.18.1.1
    assert_status 0
    assert_contains "192.0.2.9 is already allowed"
    [ ! -e "$ESXDIAG_FIREWALL_DIR/esxdiag.xml" ] || flunk "wrote a file for a ruleset that exists"
    [ "$(records)" = $'ruleset=esxdiag\nrs_enabled_prev=false\nrs_ip_added=198.18.1.1' ] ||
        flunk "state: $(cat "$KIT/esxdiag.state")"
    cleanup --keep-kit
    assert_status 0
    [ "$(host_state)" = "$INITIAL" ] || flunk "host differs: $(host_state) / $INITIAL"
}

@test "esxi: a host that refuses the custom ruleset gets a clear message; cleanup removes the file" {
    touch "$FAKE_ESXI/refuse_custom"
    INITIAL=$(host_state)
    prepare --allow-ip 198.18.0.0/15
    assert_status 1
    assert_contains "DID NOT LOAD THE CUSTOM RULESET"
    assert_contains "--disable-firewall"
    cleanup
    assert_status 0
    [ "$(host_state)" = "$INITIAL" ] || flunk "host differs: $(host_state)"
    [ ! -e "$KIT" ] || flunk "kit still there"
}

@test "esxi: --disable-firewall turns it off; cleanup turns it back on" {
    prepare --disable-firewall --allow-exec
    assert_status 0
    assert_contains "+ esxcli network firewall set --enabled false"
    assert_contains "WHOLE firewall is off"
    [ "$(cat "$FAKE_ESXI/fw_enabled")" = false ] || flunk "firewall still on"
    grep -qx 'fw_enabled_prev=true' "$KIT/esxdiag.state" || flunk "not recorded"
    : > "$FAKE_ESXI/log"
    cleanup
    assert_status 0
    assert_contains "+ esxcli network firewall set --enabled true"
    assert_all_printed
    [ "$(host_state)" = "$INITIAL" ] || flunk "host differs: $(host_state)"
}

@test "esxi: a firewall that was already off stays off after cleanup" {
    echo false > "$FAKE_ESXI/fw_enabled"
    INITIAL=$(host_state)
    prepare --disable-firewall
    assert_status 0
    assert_contains "already disabled"
    cleanup
    assert_status 0
    [ "$(host_state)" = "$INITIAL" ] || flunk "host differs: $(host_state)"
}

@test "esxi: TPM-enforced host: clear message, exit 1, nothing changed" {
    echo true > "$FAKE_ESXI/tpm"
    INITIAL=$(host_state)
    prepare --allow-exec --allow-ip 198.18.0.0/15
    assert_status 1
    assert_contains "THIS HOST CANNOT RUN COPIED BINARIES"
    assert_contains "enforced by the TPM"
    assert_host_untouched
    # even without --allow-exec the answer is the same
    prepare
    assert_status 1
    assert_contains "THIS HOST CANNOT RUN COPIED BINARIES"
}

@test "esxi: a refused execInstalledOnly change (encryption settings unreadable) exits 1" {
    echo true > "$FAKE_ESXI/tpm"
    # a host whose encryption namespace is unreadable but still refuses the set
    rm "$T/fakebin/esxcli"    # the symlink: write a new file, not through it
    cat > "$T/fakebin/esxcli" <<EOT
#!/bin/sh
[ "\$*" = "system settings encryption get" ] && { echo "Error: Unknown command or namespace"; exit 1; }
exec "$FAKE" "\$@"
EOT
    chmod +x "$T/fakebin/esxcli"
    prepare --allow-exec
    assert_status 1
    assert_contains "the host refused to change /User/execInstalledOnly"
    assert_contains "enforced by the TPM"
    [ "$(cat "$FAKE_ESXI/exec")" = 1 ] || flunk "exec changed"
    [ ! -e "$KIT/esxdiag.state" ] || flunk "state file left"
}

@test "esxi: a host without /User/execInstalledOnly (ESXi 7) needs no change" {
    rm "$FAKE_ESXI/exec" "$FAKE_ESXI/tpm"
    prepare --allow-exec
    assert_status 0
    assert_contains "does not exist here"
    assert_contains "nothing to change for --allow-exec"
    [ ! -e "$KIT/esxdiag.state" ] || flunk "state file for no change"
}

@test "esxi: localcli is used when esxcli is absent" {
    rm "$T/fakebin/esxcli"
    ln -s "$FAKE" "$T/fakebin/localcli"
    prepare --allow-exec
    assert_status 0
    assert_contains "+ localcli system settings advanced set -o /User/execInstalledOnly -i 0"
    ! grep -q '^esxcli' "$FAKE_ESXI/log" || flunk "esxcli used"
    cleanup
    assert_status 0
    [ "$(cat "$FAKE_ESXI/exec")" = 1 ] || flunk "not restored"
}

@test "esxi: cleanup without a state file restores nothing and removes the kit" {
    cleanup --dry-run
    assert_status 0
    assert_contains "no state file"
    assert_contains "(dry run, not run) rm -rf -- $KIT"
    [ -d "$KIT" ] || flunk "dry run removed the kit"
    cleanup
    assert_status 0
    assert_contains "kit removed"
    [ ! -e "$KIT" ] || flunk "kit still there"
    scratch_listing_only    # (none here)
    [ "$(host_state)" = "$INITIAL" ] || flunk "host differs"
}

@test "esxi: cleanup --dry-run after prepare changes nothing" {
    prepare --allow-exec --allow-ip 198.18.0.0/15
    assert_status 0
    after=$(host_state)
    : > "$FAKE_ESXI/log"
    cleanup --dry-run
    assert_status 0
    assert_contains "(dry run, not run) esxcli system settings advanced set -o /User/execInstalledOnly -i 1"
    [ "$(host_state)" = "$after" ] || flunk "dry run changed the host"
    [ -z "$(changing_calls)" ] || flunk "changing calls: $(changing_calls)"
    [ -f "$KIT/esxdiag.state" ] || flunk "dry run removed the state file"
}

@test "esxi: cleanup refuses to delete a folder that is not the kit" {
    # 1: a folder with another name
    mv "$KIT" "$T/mydata"; KIT=$T/mydata
    cleanup
    assert_status 1
    assert_contains "not removing $KIT: its name is not esxdiag-<version>"
    [ -f "$KIT/bin/esxtest" ] || flunk "folder touched"
    # 2: the kit folder, holding a file that is not part of the kit
    mv "$KIT" "$T/esxdiag-0.1.0"; KIT=$T/esxdiag-0.1.0
    echo results > "$KIT/bin/my-results.txt"
    cleanup
    assert_status 1
    assert_contains "it holds 'bin/my-results.txt'"
    [ -f "$KIT/bin/my-results.txt" ] || flunk "folder touched"
    # 3: no SHA256SUMS
    rm "$KIT/bin/my-results.txt" "$KIT/SHA256SUMS"
    cleanup
    assert_status 1
    assert_contains "it has no SHA256SUMS"
    [ -d "$KIT" ] || flunk "folder removed"
}

@test "esxi: cleanup rejects a tampered state file and runs nothing" {
    printf 'exec_prev=1\nrs_file=/etc/passwd\n' > "$KIT/esxdiag.state"
    cleanup
    assert_status 2
    assert_contains "not restoring anything"
    [ ! -s "$FAKE_ESXI/log" ] || flunk "esxcli called"
    [ -d "$KIT" ] || flunk "kit removed"
}

@test "esxi: a failed restore keeps the state file and the kit" {
    prepare --allow-exec
    assert_status 0
    echo true > "$FAKE_ESXI/tpm"    # now the stand-in refuses to set execInstalledOnly
    cleanup
    assert_status 2
    assert_contains "restore command(s) failed"
    [ -f "$KIT/esxdiag.state" ] && [ -d "$KIT/bin" ] || flunk "state or kit gone"
}

@test "esxi: prepare refuses to run twice without cleanup" {
    prepare --allow-exec
    assert_status 0
    prepare --disable-firewall
    assert_status 2
    assert_contains "run sh $KIT/esxi/cleanup.sh first"
    [ "$(cat "$FAKE_ESXI/fw_enabled")" = true ] || flunk "changed the firewall"
}

# a port range (the fleet's one port per throughput round) is one rule per
# protocol and direction with begin/end, as ESXi's firewall XML writes ranges
@test "esxi: --port N-M opens a range of ports in the ruleset" {
    prepare --allow-ip 198.18.0.0/15 --port 5201-5215
    assert_status 0
    local xml=$ESXDIAG_FIREWALL_DIR/esxdiag.xml
    [ "$(grep -c '<begin>5201</begin>' "$xml")" = 4 ] && [ "$(grep -c '<end>5215</end>' "$xml")" = 4 ] ||
        flunk "range not in the ruleset: $(cat "$xml")"
    python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$xml" || flunk "not XML"
    cleanup
    assert_status 0
    [ ! -e "$xml" ] || flunk "ruleset left behind"
}

@test "esxi: usage errors exit 2" {
    prepare --allow-ip 'not;an ip'
    assert_status 2
    prepare --allow-ip 198.18.0.0/15 --disable-firewall
    assert_status 2
    prepare --port 70000
    assert_status 2
    assert_contains "--port 70000: out of range 1-65535"
    # beyond 64 bits: test(1) errors instead of saying false; must still be refused
    prepare --allow-ip 198.18.0.0/15 --port 99999999999999999999
    assert_status 2
    assert_contains "out of range 1-65535"
    [ ! -e "$ESXDIAG_FIREWALL_DIR/esxdiag.xml" ] || flunk "ruleset written for a bad port"
    local r
    for r in 5210-5201 5201-5265 5201- -5201 5201-70000 5201-52x; do
        prepare --allow-ip 198.18.0.0/15 --port "$r"
        assert_status 2
        assert_contains "--port $r:"
        [ ! -e "$ESXDIAG_FIREWALL_DIR/esxdiag.xml" ] || flunk "ruleset written for --port $r"
    done
    cleanup --bogus
    assert_status 2
    [ -z "$(changing_calls)" ] || flunk "changing calls: $(changing_calls)"
}

@test "esxi: --port with a leading zero, --allow-ip of no one host (unspecified, broadcast, multicast): refused in one line" {
    prepare --allow-ip 198.18.0.0/15 --port 05201
    assert_status 2
    [ "$output" = "prepare.sh: --port 05201: 05201 has a leading zero (write it as 5201)" ] || flunk "$output"
    prepare --allow-ip 198.18.0.0/15 --port 5201-005210
    assert_status 2
    [ "$output" = "prepare.sh: --port 5201-005210: 005210 has a leading zero (write it as 5210)" ] || flunk "$output"
    local v why
    for v in 0.0.0.0 0.0.0.0/32 :: ::/128 255.255.255.255 224.0.0.1 239.255.255.250 224.0.0.0/4 ff02::1 FF05::1:3 ff00::/8; do
        case $v in 0* | :*) why="the unspecified address, which no host has" ;;
            255.*) why="the broadcast address, which is no one host" ;;
            *) why="a multicast address, which is no one host" ;; esac
        prepare --allow-ip "$v"
        assert_status 2
        [ "$output" = "prepare.sh: --allow-ip $v: $why (give the esxperf peer's own address, or its network such as 198.18.0.0/15)" ] ||
            flunk "$v: $output"
    done
    # a prefix that only reaches into multicast, and the addresses beside these, are peers'
    for v in 192.0.0.0/2 223.255.255.255 240.0.0.1 0.0.0.1 ff::1 fe80::1; do
        prepare --allow-ip "$v" --dry-run
        assert_status 0
    done
    assert_host_untouched
}

@test "esxi: shellcheck -s sh finds nothing in the host scripts (and dist.sh, demo.sh)" {
    command -v shellcheck >/dev/null || skip "shellcheck not installed (apt-get install shellcheck)"
    run shellcheck -s sh -x "$ESXDIAG_ROOT"/esxi/*.sh "$FAKE" "$ESXDIAG_ROOT/build/dist.sh"
    assert_status 0
    run shellcheck -s bash "$ESXDIAG_ROOT/test/lib/demo.sh"
    assert_status 0
}

# ---- host settings survive every interruption

# reseal STATE: recompute the sum line after an edit (as a careful admin could)
reseal() {
    local body; body=$(sed '$d' "$1"; echo x); body=${body%x}
    { printf '%s' "$body"; printf 'sum=%s\n' "$(printf '%s' "$body" | host_sh -c ". $KIT/esxi/hostcli.sh; state_sum")"; } > "$1.tmp"
    mv "$1.tmp" "$1"
}

# run_killed K WHEN SCRIPT ARGS...: run esxi/SCRIPT, SIGKILLed at its K-th esxcli
# call (WHEN before or after it); setsid: the stand-in kills its whole process
# group (the script), not bats
run_killed() {
    local k=$1 when=$2 script=$3; shift 3
    run setsid -w env -i PATH="$HOSTPATH" HOME=/ FAKE_ESXI="$FAKE_ESXI" ESXDIAG_FIREWALL_DIR="$ESXDIAG_FIREWALL_DIR" \
        FAKE_KILL_AT="$k" FAKE_KILL_WHEN="$when" "$T/esxi-bin/sh" "$KIT/esxi/$script" "$@"
    [ "$(cat "$FAKE_ESXI/calls")" = "$k" ] || flunk "$script: call $k $when: not killed there: $output"
}

# the esxcli calls of the run just made, in order (the stand-in numbers them so), in
# CALLS; killed_points K: the kill points of call K, "before after", or "before" for a
# call that reads only: killed after it, the host and the script's files are as when
# killed before it (the script waits in the call), so that point proves nothing new
calls_made() {
    mapfile -t CALLS < <(grep -E '^(esxcli|localcli) ' "$FAKE_ESXI/log")
    [ "${#CALLS[@]}" = "$(cat "$FAKE_ESXI/calls")" ] || flunk "log and count differ: $(cat "$FAKE_ESXI/log")"
}
kill_points() {
    if [[ "${CALLS[$1 - 1]}" =~ \ (set|add|remove|refresh)(\ |$) ]]; then echo before after; else echo before; fi
}

# kill_each_step FLAGS...: run prepare once to count its esxcli calls, then for each
# call k, killed with SIGKILL just before it and just after it (a read-only call:
# before it), cleanup must put the host back exactly as it was and leave no lock,
# state or temporary file behind
kill_each_step() {
    local calls k when
    : > "$FAKE_ESXI/log"
    prepare "$@"
    assert_status 0
    calls=$(cat "$FAKE_ESXI/calls")
    [ "$calls" -ge 4 ] || flunk "only $calls calls: $output"
    calls_made
    for k in $(seq 1 "$calls"); do
        for when in $(kill_points "$k"); do
            rm -rf "$KIT" "$FAKE_ESXI"; make_kit; make_host
            [ "$(host_state)" = "$INITIAL" ] || flunk "reset failed"
            run_killed "$k" "$when" prepare.sh "$@"
            assert_not_contains "changes recorded in"
            : > "$FAKE_ESXI/log"
            cleanup --keep-kit
            [ "$status" = 0 ] || flunk "killed $when call $k of $calls ($*): cleanup exit $status: $output"
            [ "$(host_state)" = "$INITIAL" ] ||
                flunk "killed $when call $k of $calls ($*): host differs after cleanup: $(host_state)"
            [ ! -e "$KIT/esxdiag.state" ] && [ ! -e "$KIT/esxdiag.lock" ] && [ ! -e "$KIT/esxdiag.state.new" ] ||
                flunk "killed $when call $k: left behind: $(ls -A "$KIT")"
            # a second cleanup finds nothing to do and changes nothing
            : > "$FAKE_ESXI/log"
            cleanup --keep-kit
            assert_status 0
            assert_contains "no state file"
            [ -z "$(changing_calls)" ] || flunk "second cleanup changed: $(changing_calls)"
        done
    done
}

@test "esxi: prepare killed (-9) before and after each step, narrow firewall path: cleanup restores the start" {
    kill_each_step --allow-exec --allow-ip 198.18.0.0/15 --allow-ip 2001:db8::/32 --port 5299
}

@test "esxi: prepare killed (-9) before and after each step, --disable-firewall and an existing ruleset" {
    kill_each_step --allow-exec --disable-firewall
    # an esxdiag ruleset the host already has (allowed all, disabled): enable, narrow, add
    make_ruleset() {
        mkdir -p "$FAKE_ESXI/rs/esxdiag"
        echo false > "$FAKE_ESXI/rs/esxdiag/enabled"; echo true > "$FAKE_ESXI/rs/esxdiag/allowed_all"
        : > "$FAKE_ESXI/rs/esxdiag/ips"
    }
    make_host() {
        export FAKE_ESXI=$T/host ESXDIAG_FIREWALL_DIR=$T/host/firewall
        mkdir -p "$FAKE_ESXI/rs/sshServer" "$ESXDIAG_FIREWALL_DIR"
        echo 1 > "$FAKE_ESXI/exec"; echo false > "$FAKE_ESXI/tpm"; echo true > "$FAKE_ESXI/fw_enabled"
        echo true > "$FAKE_ESXI/rs/sshServer/enabled"; echo true > "$FAKE_ESXI/rs/sshServer/allowed_all"
        : > "$FAKE_ESXI/rs/sshServer/ips"; : > "$FAKE_ESXI/log"
        make_ruleset
    }
    rm -rf "$KIT" "$FAKE_ESXI"; make_kit; make_host
    INITIAL=$(host_state)
    kill_each_step --allow-ip 198.18.0.0/15 --allow-ip 198.19.0.1
}

@test "esxi: after a killed prepare, prepare stops and points to cleanup; a half-written state is ignored" {
    run_killed 4 after prepare.sh --allow-exec   # three lock queries, then the set
    [ "$(cat "$FAKE_ESXI/exec")" = 0 ] || flunk "not killed after the change: $output"
    : > "$FAKE_ESXI/log"
    prepare --allow-exec
    assert_status 2
    assert_contains "was interrupted: run sh $KIT/esxi/cleanup.sh"
    [ ! -s "$FAKE_ESXI/log" ] || flunk "esxcli called: $(cat "$FAKE_ESXI/log")"
    # a state write cut short (killed between writing and renaming): never acted on
    printf 'exec_prev=0\nfw_enabled_prev=fal' > "$KIT/esxdiag.state.new"
    cleanup
    assert_status 0
    assert_contains "took over the lock of pid"
    assert_contains "removing $KIT/esxdiag.state.new"
    assert_contains "kit removed"
    [ "$(host_state)" = "$INITIAL" ] || flunk "host differs: $(host_state)"
}

@test "esxi: prepare twice, cleanup twice: the second prepare refuses, the second cleanup has nothing to do" {
    prepare --allow-exec --allow-ip 198.18.0.0/15
    assert_status 0
    local after; after=$(host_state)
    : > "$FAKE_ESXI/log"
    prepare --allow-exec --disable-firewall
    assert_status 2
    assert_contains "an earlier prepare was not undone (run sh $KIT/esxi/cleanup.sh first)"
    [ -z "$(changing_calls)" ] || flunk "changing calls: $(changing_calls)"
    [ "$(host_state)" = "$after" ] || flunk "second prepare changed the host"
    cleanup --keep-kit
    assert_status 0
    [ "$(host_state)" = "$INITIAL" ] || flunk "host differs: $(host_state)"
    : > "$FAKE_ESXI/log"
    cleanup --keep-kit
    assert_status 0
    assert_contains "no state file"
    scratch_listing_only
    # and prepare works again after a cleanup
    prepare --allow-exec
    assert_status 0
    cleanup
    assert_status 0
    [ "$(host_state)" = "$INITIAL" ] || flunk "host differs: $(host_state)"
}

@test "esxi: a state file empty, cut short, edited, or naming another ruleset, kit or path: refused, nothing changed" {
    prepare --allow-exec --allow-ip 198.18.0.0/15
    assert_status 0
    local after good st=$KIT/esxdiag.state
    after=$(host_state)
    good=$(cat "$st"; echo x); good=${good%x}
    check_refused() { # WHAT EXPECTED-TEXT
        : > "$FAKE_ESXI/log"
        cleanup
        [ "$status" = 2 ] || flunk "$1: cleanup exit $status: $output"
        assert_contains "$2"
        assert_contains "not restoring anything"
        [ ! -s "$FAKE_ESXI/log" ] || flunk "$1: esxcli called: $(cat "$FAKE_ESXI/log")"
        [ "$(host_state)" = "$after" ] || flunk "$1: host changed"
        [ -f "$st" ] && [ -d "$KIT/bin" ] || flunk "$1: state file or kit removed"
        [ ! -e "$KIT/esxdiag.lock" ] || flunk "$1: lock left behind"
        printf '%s' "$good" > "$st"
    }
    : > "$st"
    check_refused empty "it is empty"
    head -c -20 "$st" > "$st.cut"; mv "$st.cut" "$st"
    check_refused "cut mid-line" "its last line is cut short"
    sed -i '$d' "$st"; sed -i '$d' "$st"
    check_refused "cut at a line" "it has no sum line at the end"
    sed -i 's/^exec_prev=1$/exec_prev=0/' "$st"
    check_refused "edited" "its sum does not match its lines"
    sed -i 's/^ruleset=esxdiag$/ruleset=sshServer/' "$st"; reseal "$st"
    check_refused "another ruleset" "not the esxdiag ruleset that prepare.sh makes"
    sed -i "s|^rs_ip_added=.*|rs_file=$T/outside.xml|" "$st"; reseal "$st"
    check_refused "a path outside" "not $ESXDIAG_FIREWALL_DIR/esxdiag.xml"
    sed -i "s|^kit=.*|kit=$T/esxdiag-9.9.9|" "$st"; reseal "$st"
    check_refused "another kit" "written for another kit"
    # the untouched file still restores everything
    cleanup
    assert_status 0
    [ "$(host_state)" = "$INITIAL" ] || flunk "host differs: $(host_state)"
}

@test "esxi: two prepares at once: one holds the kit, the other (and a cleanup) says so and changes nothing" {
    # A stops inside its third esxcli call (two queries done), holding the lock
    host_sh FAKE_PAUSE_AT=3 "$KIT/esxi/prepare.sh" --allow-exec > "$T/a.out" 2>&1 &
    local a=$! i
    for i in $(seq 1 100); do [ -e "$FAKE_ESXI/paused" ] && break; sleep 0.05; done   # 5 s bound
    [ -e "$FAKE_ESXI/paused" ] || { kill "$a"; flunk "A did not start: $(cat "$T/a.out")"; }
    prepare --allow-exec --disable-firewall
    assert_status 2
    assert_contains "another prepare.sh or cleanup.sh (pid "
    assert_contains "is running on this kit: wait for it to end"
    cleanup
    assert_status 2
    assert_contains "is running on this kit"
    [ -d "$KIT/bin" ] || flunk "cleanup removed the kit under a running prepare"
    [ "$(wc -l < "$FAKE_ESXI/log")" = 3 ] || flunk "B or cleanup called esxcli: $(cat "$FAKE_ESXI/log")"
    : > "$FAKE_ESXI/go"
    wait "$a" || flunk "A failed: $(cat "$T/a.out")"
    [ "$(cat "$FAKE_ESXI/fw_enabled")" = true ] || flunk "B changed the firewall"
    [ "$(records)" = exec_prev=1 ] || flunk "state: $(cat "$KIT/esxdiag.state")"
    [ ! -e "$KIT/esxdiag.lock" ] || flunk "A left its lock"
    # started at the same moment: exactly one changes the host, the other exits 2
    cleanup --keep-kit
    assert_status 0
    for i in 1 2 3; do
        host_sh "$KIT/esxi/prepare.sh" --allow-exec > "$T/p1" 2>&1 & local p1=$!
        host_sh "$KIT/esxi/prepare.sh" --allow-exec > "$T/p2" 2>&1 & local p2=$!
        local r1=0 r2=0; wait "$p1" || r1=$?; wait "$p2" || r2=$?
        [ "$((r1 + r2))" = 2 ] && [ "$((r1 * r2))" = 0 ] || flunk "round $i: exits $r1 and $r2: $(cat "$T/p1" "$T/p2")"
        [ "$(records)" = exec_prev=1 ] || flunk "round $i: state: $(cat "$KIT/esxdiag.state")"
        cleanup --keep-kit
        assert_status 0
        [ "$(host_state)" = "$INITIAL" ] || flunk "round $i: host differs"
    done
}

@test "esxi: --allow-ip: /0 only with --allow-any, shell metacharacters refused, 1,000 entries refused, 64 work" {
    local v
    for v in 0.0.0.0/0 ::/0 198.18.0.1/0; do
        prepare --allow-ip "$v"
        assert_status 2
        assert_contains "--allow-ip $v admits any address to port 5201: add --allow-any if that is meant"
    done
    for v in '$(touch '"$T"'/pwned)' '`touch '"$T"'/pwned`' '198.18.0.1;touch '"$T"'/pwned' \
             '198.18.0.1 198.18.0.2' $'198.18.0.1\n198.18.0.2' '198.18.0.1|x' '*' '../etc' '-rf' '' \
             198.18.0.1/33 256.0.0.1 198.018.0.1 2001:db8::/129 1::2::3 '198.18.0.1/' 198.18.0.1/08; do
        prepare --allow-ip "$v"
        [ "$status" = 2 ] || flunk "--allow-ip '$v' exited $status: $output"
        [ "${#lines[@]}" = 1 ] || flunk "--allow-ip '$v': $output"
        assert_contains "not an IPv4 or IPv6 address or CIDR"
    done
    [ ! -e "$T/pwned" ] || flunk "a value was run by the shell"
    assert_host_untouched
    # 1,000 values: refused at once, before anything is asked of the host
    local many=() i
    for i in $(seq 0 999); do many+=(--allow-ip "198.18.$((i / 250)).$((i % 250 + 1))"); done
    prepare --allow-exec "${many[@]}"
    assert_status 2
    assert_contains "more than 64 --allow-ip values: give a wider CIDR"
    assert_host_untouched
    # 64 (and a repeated one, and upper-case IPv6 the same as lower-case): all added, all removed
    prepare "${many[@]:0:128}" --allow-ip 2001:db8::1
    [ "$status" = 2 ] && [[ "$output" == *"more than 64"* ]] || flunk "64 + 1 distinct: $output"
    assert_host_untouched
    prepare "${many[@]:0:126}" --allow-ip 198.18.0.1 --allow-ip 2001:DB8::1 --allow-ip 2001:db8::1
    assert_status 0
    [ "$(wc -l < "$FAKE_ESXI/rs/esxdiag/ips")" = 64 ] || flunk "ips: $(cat "$FAKE_ESXI/rs/esxdiag/ips")"
    grep -qx 2001:db8::1 "$FAKE_ESXI/rs/esxdiag/ips" || flunk "2001:db8::1 missing"
    cleanup --keep-kit
    assert_status 0
    [ "$(host_state)" = "$INITIAL" ] || flunk "host differs: $(host_state)"
    # --allow-any: 0.0.0.0/0 goes in, and comes out again
    prepare --allow-ip 0.0.0.0/0 --allow-any
    assert_status 0
    [ "$(cat "$FAKE_ESXI/rs/esxdiag/ips")" = 0.0.0.0/0 ] || flunk "ips: $(cat "$FAKE_ESXI/rs/esxdiag/ips")"
    cleanup
    assert_status 0
    [ "$(host_state)" = "$INITIAL" ] || flunk "host differs: $(host_state)"
}

@test "esxi: cleanup killed (-9) before and after each of its steps: the next cleanup finishes the job" {
    local flags=(--allow-exec --allow-ip 198.18.0.0/15 --allow-ip 2001:db8::/32) calls k when
    prepare "${flags[@]}"
    assert_status 0
    echo 0 > "$FAKE_ESXI/calls"
    : > "$FAKE_ESXI/log"
    cleanup --keep-kit
    assert_status 0
    calls=$(cat "$FAKE_ESXI/calls")
    [ "$calls" -ge 4 ] || flunk "only $calls calls: $output"
    calls_made
    for k in $(seq 1 "$calls"); do
        for when in $(kill_points "$k"); do
            rm -rf "$KIT" "$FAKE_ESXI"; make_kit; make_host
            prepare "${flags[@]}"
            assert_status 0
            echo 0 > "$FAKE_ESXI/calls"
            run_killed "$k" "$when" cleanup.sh --keep-kit
            cleanup --keep-kit
            [ "$status" = 0 ] || flunk "cleanup killed $when call $k: rerun exit $status: $output"
            [ "$(host_state)" = "$INITIAL" ] || flunk "cleanup killed $when call $k: host differs: $(host_state)"
            [ ! -e "$KIT/esxdiag.lock" ] && [ ! -e "$KIT/esxdiag.state" ] || flunk "left behind: $(ls -A "$KIT")"
        done
    done
}

# ---- the ESXi-shaped shell, and the scripts on it

@test "esxi shell: no command or type builtin, no tr or od, nothing of this machine's on PATH" {
    run -127 host_sh -c 'command -v sh'
    run -127 host_sh -c 'type sh'
    local c
    for c in tr od sha256sum find rmdir which; do
        run -127 host_sh -c "$c --help"
    done
    run host_sh -c 'printf "%s\n" "$(echo ABC | sed y/ABC/abc/)" | awk "{ print toupper(\$0) }"'
    assert_status 0
    [ "$output" = ABC ] || flunk "$output"
}

@test "esxi shell: the lint finds no command outside test/lib/esxi-shell.list in esxi/*.sh" {
    run python3 "$ESXDIAG_ROOT/test/lib/esxi-shell-lint.py" "$ESXI_SH_LIST" "$ESXDIAG_ROOT"/esxi/*.sh
    [ "$status" = 0 ] || flunk "commands outside the list: $output"
    # and it sees them: one of each kind it must refuse
    printf 'act() { "$@"; }\nx=$(command -v esxcli)\nf() { printf %%s "$1" | tr a b; }\nact od -An x\ntrap '"'"'sha256sum y'"'"' EXIT\ncase $a in b) find . ;; esac\n' > "$T/bad.sh"
    run python3 "$ESXDIAG_ROOT/test/lib/esxi-shell-lint.py" "$ESXI_SH_LIST" "$T/bad.sh"
    assert_status 1
    [ "$output" = "$T/bad.sh:2: command
$T/bad.sh:3: tr
$T/bad.sh:4: od
$T/bad.sh:5: sha256sum
$T/bad.sh:6: find" ] || flunk "lint output: $output"
}

@test "esxi: esxcli, and localcli without esxcli, found on a shell without command (a PATH walk)" {
    prepare
    assert_status 0
    assert_contains "+ esxcli system settings advanced list -o /User/execInstalledOnly"
    rm "$T/fakebin/esxcli"
    ln -s "$FAKE" "$T/fakebin/localcli"
    prepare --check
    assert_status 0
    assert_contains "esxcli        localcli ($T/fakebin/localcli)"
    rm "$T/fakebin/localcli"
    prepare
    assert_status 2
    assert_contains "prepare.sh: neither esxcli nor localcli found"
}

@test "esxi: --allow-ip values kept without tr: upper case and other spellings folded, canonical forms added and removed" {
    prepare --allow-ip 2001:DB8::1 --allow-ip 2001:db8:0::1 --allow-ip 10.20.0.5/24 --allow-ip 198.18.0.7/32 --port 5299
    assert_status 0
    assert_contains "--allow-ip 2001:db8:0::1 is added as 2001:db8::1 (its canonical form)"
    assert_contains "--allow-ip 10.20.0.5/24 is added as 10.20.0.0/24"
    [ "$(cat "$FAKE_ESXI/rs/esxdiag/ips")" = $'2001:db8::1\n10.20.0.0/24\n198.18.0.7' ] ||
        flunk "ips: $(cat "$FAKE_ESXI/rs/esxdiag/ips")"
    # a host that keeps an address in another spelling: still found, removed as it spells it
    sed -i 's/^2001:db8::1$/2001:DB8:0:0:0:0:0:1/' "$FAKE_ESXI/rs/esxdiag/ips"
    cleanup --keep-kit
    assert_status 0
    assert_contains "allowedip remove --ruleset-id esxdiag --ip-address 2001:DB8:0:0:0:0:0:1"
    [ "$(host_state)" = "$INITIAL" ] || flunk "host differs: $(host_state)"
    # the list a host prints (a, b, c) is split without tr: an address already there is seen
    mkdir -p "$FAKE_ESXI/rs/esxdiag"
    echo true > "$FAKE_ESXI/rs/esxdiag/enabled"; echo false > "$FAKE_ESXI/rs/esxdiag/allowed_all"
    printf '192.0.2.9\n2001:db8::5\n' > "$FAKE_ESXI/rs/esxdiag/ips"
    printf 'Inbound TCP Dst 5201 5201\nOutbound TCP Dst 5201 5201\nInbound UDP Dst 5201 5201\nOutbound UDP Dst 5201 5201\n' > "$FAKE_ESXI/rs/esxdiag/rules"
    : > "$FAKE_ESXI/log"
    prepare --allow-ip 2001:db8:0:0::5
    assert_status 0
    assert_contains "2001:db8::5 is already allowed"
    [ -z "$(changing_calls)" ] || flunk "changing calls: $(changing_calls)"
}

# an ELF header for another CPU (aarch64: e_machine 183) where the kit's programs are
@test "esxi: a kit for another CPU is refused without od; a kit it cannot judge says it was not checked" {
    printf '\177ELF\002\001\001\000\000\000\000\000\000\000\000\000\002\000\267\000' > "$KIT/bin/esxmtu"
    prepare --allow-exec
    assert_status 2
    assert_contains "prepare.sh: this kit is built for aarch64 (bin/esxmtu), this host is x86_64: unpack esxdiag-0.1.0-x86_64.tar.gz instead (nothing was changed)"
    [ ! -s "$FAKE_ESXI/log" ] || flunk "esxcli was called: $(cat "$FAKE_ESXI/log")"
    prepare --check
    assert_status 1
    assert_contains "architecture  MISMATCH: kit aarch64 (bin/esxmtu), host x86_64"
    # no dd on the host: said so, and prepare goes on
    rm "$KIT/bin/esxmtu" "$T/esxi-bin/dd"
    prepare
    assert_status 0
    assert_contains "the kit's architecture was not checked: no dd here to read the programs' headers"
}

@test "esxi: the state file is sealed with awk (no sha256sum on the host) and still refused when edited" {
    prepare --allow-exec
    assert_status 0
    grep -qE '^sum=awk:[0-9]+:[0-9]+:[0-9]+$' "$KIT/esxdiag.state" || flunk "state: $(cat "$KIT/esxdiag.state")"
    sed -i 's/^exec_prev=1$/exec_prev=0/' "$KIT/esxdiag.state"
    cleanup --keep-kit
    assert_status 2
    assert_contains "its sum does not match its lines"
    sed -i 's/^exec_prev=0$/exec_prev=1/' "$KIT/esxdiag.state"
    cleanup --keep-kit
    assert_status 0
    [ "$(host_state)" = "$INITIAL" ] || flunk "host differs: $(host_state)"
}

# ---- the three locks of execInstalledOnly

# refused_by_lock LOCK COMMAND: a lock prepare may not lift holds: exit 1, the lock and
# the administrator's command (with its reboot) named, nothing changed
refused_by_lock() {
    INITIAL=$(host_state)
    prepare --allow-exec --allow-ip 198.18.0.0/15
    assert_status 1
    assert_contains "THIS HOST CANNOT RUN COPIED BINARIES."
    assert_contains "$1"
    assert_contains "$2"
    assert_contains "and a reboot"
    assert_host_untouched
}

@test "esxi: the boot option on: prepare changes nothing, names the lock and the command; exit 1" {
    echo "TRUE TRUE" > "$FAKE_ESXI/boot"
    refused_by_lock "Lock: the boot option execInstalledOnly" "esxcli system settings kernel set -s execInstalledOnly -v FALSE"
    # already configured FALSE, still TRUE for this boot: says it lifts at the next reboot
    echo "FALSE TRUE" > "$FAKE_ESXI/boot"
    INITIAL=$(host_state)
    prepare --allow-exec
    assert_status 1
    assert_contains "It is configured FALSE already: it lifts at the next reboot."
    assert_host_untouched
    # configured TRUE for the next boot only: prepare goes on and warns
    echo "TRUE FALSE" > "$FAKE_ESXI/boot"
    prepare --allow-exec
    assert_status 0
    assert_contains "after a reboot copied binaries are refused again"
}

@test "esxi: TPM enforcement holds even with /User/execInstalledOnly at 0: nothing changed, exit 1" {
    echo true > "$FAKE_ESXI/tpm"
    echo 0 > "$FAKE_ESXI/exec"
    refused_by_lock "execInstalledOnly is enforced by the TPM" "esxcli system settings encryption set --require-exec-installed-only=F"
    assert_contains "cleanup.sh"
}

@test "esxi: after --allow-exec prepare proves the kit runs; refused (Operation not permitted): said plainly, put back, exit 1" {
    prepare --allow-exec
    assert_status 0
    assert_contains "+ $KIT/bin/esxpart --version"
    assert_contains "the kit runs: esxpart"
    cleanup --keep-kit
    assert_status 0
    # a host that refuses the kit's binary whatever its settings say (a lock prepare
    # cannot see): execve of bin/esxpart fails with EPERM, as on ESXi
    run esxi_refusing_exec "$KIT/bin/esxpart" env -i PATH="$HOSTPATH" FAKE_ESXI="$FAKE_ESXI" \
        ESXDIAG_FIREWALL_DIR="$ESXDIAG_FIREWALL_DIR" "$T/esxi-bin/sh" "$KIT/esxi/prepare.sh" --allow-exec
    assert_status 1
    assert_contains "THE HOST STILL REFUSES THE KIT'S BINARIES: bin/esxpart --version exited 126:"
    assert_contains "Operation not permitted"
    assert_contains "+ esxcli system settings advanced set -o /User/execInstalledOnly -i 1"
    [ "$(cat "$FAKE_ESXI/exec")" = 1 ] || flunk "execInstalledOnly not put back"
    [ ! -e "$KIT/esxdiag.state" ] && [ ! -e "$KIT/esxdiag.lock" ] || flunk "left behind: $(ls -A "$KIT")"
}

# ---- the firewall both ways

@test "esxi: the ruleset opens the range inbound and outbound, TCP and UDP, for the allowed IPs; cleanup removes it" {
    prepare --allow-ip 198.18.0.0/15 --port 5201-5203
    assert_status 0
    run "$T/fakebin/esxcli" network firewall ruleset rule list --ruleset-id esxdiag
    assert_status 0
    local rows; rows=$(awk '$1 == "esxdiag" { print $2, $3, $4, $5, $6 }' <<<"$output" | LC_ALL=C sort)
    [ "$rows" = $'Inbound TCP Dst 5201 5203\nInbound UDP Dst 5201 5203\nOutbound TCP Dst 5201 5203\nOutbound UDP Dst 5201 5203' ] ||
        flunk "rules: $output"
    [ "$(cat "$FAKE_ESXI/rs/esxdiag/allowed_all")" = false ] || flunk "allowed all"
    cleanup --keep-kit
    assert_status 0
    run "$T/fakebin/esxcli" network firewall ruleset rule list
    assert_not_contains esxdiag
    [ "$(host_state)" = "$INITIAL" ] || flunk "host differs: $(host_state)"
}

@test "esxi: a ruleset esxdiag the host has that opens the port inbound only is refused, nothing changed" {
    local rs=$FAKE_ESXI/rs/esxdiag
    mkdir -p "$rs"
    echo false > "$rs/enabled"; echo true > "$rs/allowed_all"; : > "$rs/ips"
    printf 'Inbound TCP Dst 5201 5201\nInbound UDP Dst 5201 5201\n' > "$rs/rules"
    INITIAL=$(host_state)
    prepare --allow-ip 198.18.0.0/15
    assert_status 1
    assert_contains "THE HOST'S RULESET 'esxdiag' DOES NOT OPEN PORT 5201 FOR: tcp outbound, udp outbound."
    assert_contains "an esxperf client outbound"
    assert_host_untouched
    # and without flags prepare says a client needs the outbound side too
    rm -rf "$rs"
    INITIAL=$(host_state)
    prepare
    assert_status 0
    assert_contains "an esxperf client"
    assert_contains "outbound (the host firewall filters both ways): --allow-ip CIDR opens both"
}

# ---- the pre-flight report

@test "esxi: prepare --check: one line each, changes nothing; --json the same as JSON; a lock that holds exits 1" {
    run --separate-stderr host_sh "$KIT/esxi/prepare.sh" --check
    assert_status 0
    [[ "$stderr" == *"+ esxcli network firewall get"* ]] || flunk "queries not on stderr: $stderr"
    local l
    for l in "  shell         the 16 commands the scripts use are here; optional, not here: sha256sum" \
             "  esxcli        esxcli ($T/fakebin/esxcli)" "  runtime lock  on (/User/execInstalledOnly = 1): --allow-exec sets it to 0" \
             "  boot lock     off (Configured FALSE, Runtime FALSE)" \
             "  TPM lock      off (Require Executables Only From Installed VIBs: false, Mode TPM)" \
             "  firewall      enabled: true; ruleset esxdiag not loaded" "  architecture  kit x86_64 (bin/esxpart), host x86_64: match" \
             "  free space    " "  verdict       nothing stands in the way"; do
        assert_contains "$l"
    done
    assert_not_contains "+ esxcli"
    assert_host_untouched
    [ ! -e "$KIT/esxdiag.lock" ] || flunk "lock left"
    run --separate-stderr host_sh "$KIT/esxi/prepare.sh" --check --json
    assert_status 0
    jq -e --arg kit "$KIT" '.kit == $kit and .ready == true and .blocked_by == [] and .unread == [] and .shell.missing == []
        and .shell.optional_missing == ["sha256sum"] and .esxcli.command == "esxcli"
        and .locks.runtime == {"state": "on", "value": 1, "why": null}
        and .locks.boot == {"state": "off", "configured": false, "runtime": false, "why": null}
        and .locks.tpm.state == "off" and .locks.tpm.require_exec_installed_only == false
        and .firewall.enabled == true and .firewall.ruleset_loaded == false
        and .arch == {"state": "match", "kit": "x86_64", "host": "x86_64", "file": "bin/esxpart", "why": null}
        and (.free_space.kib | type) == "number" and .free_space.kib > 0' <<<"$output" >/dev/null ||
        flunk "JSON: $output"
    # the boot option on and a ruleset open inbound only: exit 1, each said
    echo "TRUE TRUE" > "$FAKE_ESXI/boot"
    mkdir -p "$FAKE_ESXI/rs/esxdiag"
    echo true > "$FAKE_ESXI/rs/esxdiag/enabled"; echo true > "$FAKE_ESXI/rs/esxdiag/allowed_all"
    echo 'Inbound TCP Dst 5201 5201' > "$FAKE_ESXI/rs/esxdiag/rules"
    run --separate-stderr host_sh "$KIT/esxi/prepare.sh" --check --json
    assert_status 1
    jq -e '.ready == false and .blocked_by == ["boot"] and .locks.boot.state == "on"
        and .firewall.rules_missing == ["tcp-outbound", "udp-inbound", "udp-outbound"]' <<<"$output" >/dev/null ||
        flunk "JSON: $output"
    prepare --check --allow-exec
    assert_status 2
    assert_contains "--check changes nothing"
}

# ---- a sick esxcli (test/lib/fake-esxcli's FAKE_ESXCLI_SICK): an error, an empty
# answer, an answer in no layout esxcli prints, or none (hang: stopped at the bound,
# ESXDIAG_ESXCLI_SECS=2, the call left hanging 10 s). Nothing unread is taken as clear;
# the outer timeout only catches a script that would wait without end.

@test "esxi: prepare --check on a sick esxcli (error, empty, garbage, hang): not green, exit 1, names what it could not read; orphan: read at once" {
    HOST_WRAP=(timeout 60)
    local mode
    mkdir "$T/tmp"
    for mode in error empty garbage hang; do
        HOST_ENV=(FAKE_ESXCLI_SICK=$mode FAKE_ESXCLI_HANG_S=10 ESXDIAG_ESXCLI_SECS=2 TMPDIR="$T/tmp")
        : > "$FAKE_ESXI/log"
        run --separate-stderr host_sh "$KIT/esxi/prepare.sh" --check
        [ "$status" = 1 ] || flunk "$mode: exit $status: $output"
        assert_contains "  verdict       NOT READ: tpm boot runtime firewall ruleset scratch (see the lines above)"
        assert_contains "  boot lock     unknown ("
        assert_contains "  firewall      enabled: unknown ("
        [[ "$stderr" == *"prepare.sh: esxcli gave no answer to judge by for: tpm boot runtime firewall ruleset scratch ("* ]] ||
            flunk "$mode: stderr: $stderr"
    done
    assert_contains "  TPM lock      unknown (no answer within 2 s, stopped; ESXDIAG_ESXCLI_SECS sets the bound)"
    assert_contains "  runtime lock  unknown (not run: esxcli did not answer within 2 s)"
    [ "$(wc -l < "$FAKE_ESXI/log")" = 1 ] || flunk "esxcli asked again after it hung: $(cat "$FAKE_ESXI/log")"
    [ -z "$(ls -A "$T/tmp")" ] || flunk "answer files left: $(ls -A "$T/tmp")"
    HOST_ENV=(FAKE_ESXCLI_SICK=garbage)
    run --separate-stderr host_sh "$KIT/esxi/prepare.sh" --check --json
    assert_status 1
    jq -e '.ready == false and .blocked_by == [] and .unread == ["tpm", "boot", "runtime", "firewall", "ruleset", "scratch"]
        and .locks.boot.state == "unknown" and (.locks.boot.why | startswith("an answer in no layout esxcli prints"))
        and .firewall.enabled == null and (.firewall.why | type) == "string"' <<<"$output" >/dev/null || flunk "JSON: $output"
    # the right answers, each leaving a child that holds esxcli's output open 10 s:
    # read at once (the answer is a file, not a pipe), green
    HOST_WRAP=(timeout 30)
    HOST_ENV=(FAKE_ESXCLI_SICK=orphan FAKE_ESXCLI_HANG_S=10)
    run --separate-stderr host_sh "$KIT/esxi/prepare.sh" --check
    assert_status 0
    assert_contains "  verdict       nothing stands in the way"
    # a loaded ruleset whose rules cannot be read
    mkdir -p "$FAKE_ESXI/rs/esxdiag"
    echo true > "$FAKE_ESXI/rs/esxdiag/enabled"; echo true > "$FAKE_ESXI/rs/esxdiag/allowed_all"
    HOST_ENV=(FAKE_ESXCLI_SICK=error "FAKE_ESXCLI_SICK_ON=network firewall ruleset rule list")
    run --separate-stderr host_sh "$KIT/esxi/prepare.sh" --check
    assert_status 1
    assert_contains "ruleset esxdiag loaded (enabled: true), its rules unknown (exit 1: Error: something broke)"
    assert_contains "  verdict       NOT READ: rules (see the lines above)"
}

@test "esxi: prepare and cleanup on a sick esxcli: what they cannot read they do not change (exit 2); cleanup keeps its state" {
    HOST_WRAP=(timeout 60)
    HOST_ENV=(FAKE_ESXCLI_SICK=error)
    prepare --allow-exec
    assert_status 2
    assert_contains "prepare.sh: --allow-exec: cannot read /User/execInstalledOnly (exit 1: Error: something broke): nothing changed for it"
    assert_host_untouched
    HOST_ENV=(FAKE_ESXCLI_SICK=garbage "FAKE_ESXCLI_SICK_ON=network firewall get")
    prepare --disable-firewall
    assert_status 2
    assert_contains "prepare.sh: cannot read whether the firewall is enabled (an answer in no layout esxcli prints ('<<< ??? >>>')): nothing more is changed"
    assert_host_untouched
    # an empty ruleset list is not "not loaded": no ruleset file is written
    HOST_ENV=(FAKE_ESXCLI_SICK=empty "FAKE_ESXCLI_SICK_ON=network firewall ruleset list")
    prepare --allow-ip 198.18.0.0/15
    assert_status 2
    assert_contains "prepare.sh: cannot read the firewall's rulesets (an empty answer): nothing more is changed"
    assert_host_untouched
    # esxcli hangs at the allowed-IP list, after the ruleset was loaded and narrowed:
    # stopped at the bound, nothing more asked or changed
    HOST_ENV=(FAKE_ESXCLI_SICK=hang "FAKE_ESXCLI_SICK_ON=network firewall ruleset allowedip list" FAKE_ESXCLI_HANG_S=10 ESXDIAG_ESXCLI_SECS=2)
    prepare --allow-exec --allow-ip 198.18.0.0/15
    assert_status 2
    assert_contains "prepare.sh: cannot read the allowed IPs of ruleset esxdiag (no answer within 2 s, stopped; ESXDIAG_ESXCLI_SECS sets the bound): nothing more is changed (rerun when esxcli answers; sh $KIT/esxi/cleanup.sh undoes what was done)"
    [ "$(tail -n 1 "$FAKE_ESXI/log")" = "esxcli network firewall ruleset allowedip list --ruleset-id esxdiag" ] ||
        flunk "asked on after the hang: $(cat "$FAKE_ESXI/log")"
    # cleanup that cannot read the ruleset list restores nothing in it, keeps the state
    HOST_ENV=(FAKE_ESXCLI_SICK=error "FAKE_ESXCLI_SICK_ON=network firewall ruleset list")
    cleanup --keep-kit
    assert_status 2
    assert_contains "cleanup.sh: cannot read the firewall's rulesets (exit 1: Error: something broke): ruleset esxdiag not restored"
    [ -e "$KIT/esxdiag.state" ] || flunk "state file removed"
    [ -e "$ESXDIAG_FIREWALL_DIR/esxdiag.xml" ] || flunk "ruleset file removed unread"
    HOST_ENV=()
    cleanup --keep-kit
    assert_status 0
    [ "$(host_state)" = "$INITIAL" ] || flunk "host differs: $(host_state)"
    # the bound itself: seconds 1-3600, else one line and exit 2
    local b
    for b in 0 x 3601 030; do
        run host_sh ESXDIAG_ESXCLI_SECS=$b "$KIT/esxi/prepare.sh" --check
        assert_status 2
        [ "$output" = "prepare.sh: ESXDIAG_ESXCLI_SECS=$b: not a number of seconds 1-3600 (unset it for the default, 30)" ] || flunk "$output"
    done
}

# ---- cleanup that keeps a folder that is not the kit any more

@test "esxi: cleanup that restored everything but kept a folder with a foreign file removes the state file; prepare works again" {
    prepare --allow-exec
    assert_status 0
    echo results > "$KIT/my-results.txt"
    cleanup
    assert_status 1
    assert_contains "settings restored"
    assert_contains "it holds 'my-results.txt'"
    assert_contains "state file removed: the settings are back and prepare.sh can run again; the kit folder stays"
    [ ! -e "$KIT/esxdiag.state" ] || flunk "state file kept: $(cat "$KIT/esxdiag.state")"
    [ -f "$KIT/my-results.txt" ] || flunk "foreign file removed"
    [ "$(host_state)" = "$INITIAL" ] || flunk "host differs: $(host_state)"
    prepare --allow-exec
    assert_status 0
    assert_contains "changes recorded in"
}

# ---- the stand-in's own answers (layouts and errors; sources in test/lib/fake-esxcli)

@test "esxi stand-in: vmknics with their netstack, netstacks, locks and errors as esxcli prints them" {
    printf 'vmk0 vSwitch0 Management_Network defaultTcpipStack 1500 00:50:56:00:00:01\nvmk1 vSwitch1 vMotion vmotion 9000 00:50:56:6a:1b:2c\n' > "$FAKE_ESXI/interfaces"
    local cli=$T/fakebin/esxcli
    run "$cli" network ip interface list
    assert_status 0
    assert_contains $'vmk1\n   Name: vmk1\n   MAC Address: 00:50:56:6a:1b:2c\n   Enabled: true\n   Portset: vSwitch1\n   Portgroup: vMotion\n   Netstack Instance: vmotion\n   VDS Name: N/A\n   MTU: 9000'
    run "$cli" network ip netstack list
    assert_contains $'vmotion\n   Key: vmotion\n   Name: vmotion'
    run "$cli" system settings kernel list -o execinstalledonly
    [ "${lines[0]}" = "Name               Type  Configured  Runtime  Default  Description" ] || flunk "$output"
    [[ "${lines[2]}" == "execinstalledonly  Bool  FALSE       FALSE    FALSE    "* ]] || flunk "$output"
    run "$cli" system settings encryption get
    [ "$output" = $'   Mode: TPM\n   Require Executables Only From Installed VIBs: false\n   Require Secure Boot: true' ] || flunk "$output"
    run "$cli" network nosuch list
    assert_status 1
    [ "$output" = "Error: Unknown command or namespace network nosuch list" ] || flunk "$output"
    run "$cli" network firewall ruleset set --ruleset-id nosuch --enabled true
    assert_status 1
    assert_contains "nosuch"
    echo true > "$FAKE_ESXI/tpm"
    run "$cli" system settings advanced set -o /User/execInstalledOnly -i 0
    assert_status 1
    assert_contains "Unable to set option execInstalledOnly"
}

# ---- what an esxmtu --each-uplink run killed with -9 can leave: a scratch portgroup
# (esxmtu-scratch-<vmnic>) and the scratch vmk on it; prepare --check names them,
# cleanup removes them (vmk first) and nothing else
@test "esxi: esxmtu's scratch leftovers: prepare --check reports them, cleanup removes them and leaves the rest" {
    printf '%s\n' "vmk0 vSwitch0 Management_Network defaultTcpipStack 1500 00:50:56:00:00:01" \
        "vmk1 vSwitch1 vMotion vmotion 9000 00:50:56:6a:1b:2c" \
        "vmk90 vSwitch1 esxmtu-scratch-vmnic1 vmotion 9000 00:50:56:7e:00:02" > "$FAKE_ESXI/interfaces"
    printf '%s\n' "Management_Network vSwitch0 0" "vMotion vSwitch1 0" "esxmtu-scratch-vmnic1 vSwitch1 0" \
        "esxmtu-scratch-vmnic0 vSwitch1 0" > "$FAKE_ESXI/portgroups"
    run --separate-stderr host_sh "$KIT/esxi/prepare.sh" --check
    assert_status 1
    assert_contains "  scratch       LEFT by an esxmtu --each-uplink run: vmk90, esxmtu-scratch-vmnic1 (vSwitch1), esxmtu-scratch-vmnic0 (vSwitch1) (sh esxi/cleanup.sh --keep-kit removes them)"
    assert_contains "  verdict       BLOCKED by: scratch"
    run --separate-stderr host_sh "$KIT/esxi/prepare.sh" --check --json
    jq -e '.scratch.vmks == ["vmk90"] and .scratch.portgroups == ["esxmtu-scratch-vmnic1", "esxmtu-scratch-vmnic0"]
        and .blocked_by == ["scratch"]' <<<"$output" >/dev/null || flunk "JSON: $output"
    cleanup --keep-kit
    assert_status 0
    assert_contains "+ esxcli network ip interface remove -i vmk90"
    assert_contains "+ esxcli network vswitch standard portgroup remove -p esxmtu-scratch-vmnic1 -v vSwitch1"
    [ "$(cut -d' ' -f1 "$FAKE_ESXI/portgroups" | tr '\n' ' ')" = "Management_Network vMotion " ] ||
        flunk "portgroups: $(cat "$FAKE_ESXI/portgroups")"
    [ "$(cut -d' ' -f1 "$FAKE_ESXI/interfaces" | tr '\n' ' ')" = "vmk0 vmk1 " ] || flunk "vmks: $(cat "$FAKE_ESXI/interfaces")"
    run --separate-stderr host_sh "$KIT/esxi/prepare.sh" --check
    assert_contains "  scratch       no esxmtu --each-uplink objects (esxmtu-scratch-*) on the host"
    # a removal the host refuses: said, exit 2
    echo "esxmtu-scratch-vmnic0 vSwitch1 0" >> "$FAKE_ESXI/portgroups"
    HOST_ENV=(FAKE_ESXCLI_SICK=error "FAKE_ESXCLI_SICK_ON=network vswitch standard portgroup remove")
    cleanup --keep-kit
    assert_status 2
    assert_contains "cleanup.sh: removing the scratch portgroup esxmtu-scratch-vmnic0 failed"
}
