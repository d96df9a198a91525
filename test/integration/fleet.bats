#!/usr/bin/env bats
# The fleet layer (esxi/fleet/validate.yml) end to end, with real parts only: four
# "ESXi hosts" as network namespaces, each running Debian's sshd (per-run host keys
# and test key), the real kit tarball from `make dist`, real Ansible from a
# controller namespace, real esxmtu/esxperf/esxpart on the hosts, headless Chromium
# for the page. The one stand-in is esxcli (test/lib/fake-esxcli, first on each
# host's PATH through esxdiag_host_env, with its own state per host). Each host's
# login shell is the ESXi-shaped one (test/lib/esxi-shell.bash: busybox ash without
# command and type, no tr, no od, a PATH of the listed applets and the stand-in only),
# so prepare.sh, cleanup.sh and every command the playbook runs there run under it.
#
# Bench (test/lib/fleet-net.bash): management 198.18.0.0/24, vMotion bridge
# 198.19.0.0/24 + 2001:db8:19::/64; h4's vMotion link goes through router R.
# Runs 1 and 2 are the documented command with the vCenter inventory: the hosts, their
# vMotion vmks and MTUs read from govmomi's simulator in the controller's namespace
# (test/lib/fleet-vcenter.bash), which also knows a host in maintenance mode and a
# disconnected one. Faults of the first run: h2's switch port drops IP packets over
# 1500 bytes silently (nft, bridge family; vCenter has every MTU at 9000), R forwards
# h3<->h4 over a route of MTU 1500 and sends frag-needed / Packet Too Big. Run 2: h2's
# own interface at 1500 (and its vmk1 at 1500 in vCenter), h4's sshd stopped; it runs
# the collection make dist built (esxdiag.fleet.validate), installed offline into a
# folder of this run's own, from outside the checkout. vCenter's distributed switch has
# h4's vmnic2 port failing its VLAN/MTU health check: run 1 turns the check on for the
# run (esxdiag_vds_healthcheck_enable) and back off, run 2 finds it on and only reads it. The later
# runs use the typed inventory: a kit for another architecture, a missing kit, ^C.
load ../lib/common
load ../lib/fleet-net
load ../lib/fleet-hosts
load ../lib/fleet-page
load ../lib/fleet-vcenter

N=4

setup_file() {
    [ "$(id -u)" = 0 ] || skip "needs root (namespaces, sshd, raw sockets)"
    # the vCenter (vcsim) is built once into .cache; rebuilt here if its main changed
    "$ESXDIAG_ROOT/build/deps.sh" vcsim >&2 || return 1
    export W; W=$(mktemp -d)
    # the real kit, as a user gets it (make dist packs out/bin, which make test built)
    local made
    made=$(make -s -C "$ESXDIAG_ROOT" dist 2>&1) || { echo "$made" >&2; return 1; }
    local kit; kit=$(sed -n 's/^dist: \(dist\/.*\.tar\.gz\)$/\1/p' <<<"$made")
    [ -n "$kit" ] || { echo "no kit in make dist's output: $made" >&2; return 1; }
    FLEET_KIT=$W/$(basename "$kit")
    export FLEET_KIT
    cp "$ESXDIAG_ROOT/$kit" "$FLEET_KIT"
    # the collection make dist built beside it, installed as a user installs it (run 2)
    # shellcheck disable=SC2046
    made=$(env $(fleet_env "$W") ansible-galaxy collection install --offline -p "$W/collections" \
        "$ESXDIAG_ROOT/dist/esxdiag-fleet-$(sed -n 's/^VERSION *:= *//p' "$ESXDIAG_ROOT/Makefile").tar.gz" 2>&1) ||
        { echo "$made" >&2; return 1; }
    # shellcheck source=test/lib/esxpart-images.sh
    . "$ESXDIAG_ROOT/test/lib/esxpart-images.sh"
    mk_esxi7 "$W/esxi7.img"
    export FLEET_IPV6=1
    fleet_net_up "$$" "$N" 4 || return 1
    fleet_hosts_up "$W" || return 1
    fleet_inventory "$W"
    fleet_bench_vars "$W"
    fleet_vmk_names add
    local i
    for i in $(seq 1 "$N"); do fleet_host_state "$i" > "$W/state$i.before"; done
    # vCenter in the controller's namespace, at its management address; its login in
    # the environment only; its certificate trusted through OpenSSL's SSL_CERT_FILE
    fleet_vcenter_cert "$W/vc" 198.18.0.1 || return 1
    # h4's vmnic2 switch port does not pass 9000 (the vDS health check's answer, its
    # first results 2 s after it is turned on); the check is off: run 1 turns it on
    # for the run (esxdiag_vds_healthcheck_enable) and puts it back off
    fleet_vcenter_spec "$W/vc/spec1.json" "$N" 4:health_mtu_bad=vmnic2 || return 1
    jq '.health_delay_ms = 2000' "$W/vc/spec1.json" > "$W/vc/spec1.tmp" && mv "$W/vc/spec1.tmp" "$W/vc/spec1.json"
    fleet_vcenter_up "$FLEET_NS_CTL" 198.18.0.1:443 "$W/vc/spec1.json" "$W/vc" || return 1
    fleet_vcenter_login "$W/vc/spec1.json" 198.18.0.1
    unset VMWARE_PORT
    export SSL_CERT_FILE=$W/vc/cert.pem
    # h1 lets root open ICMP ping sockets (a sysctl of its namespace alone), the others
    # keep the kernel's default that refuses them: each host's self-test differs there
    ip netns exec "$(fleet_ns 1)" sysctl -qw net.ipv4.ping_group_range="0 2147483647" || return 1
    # run 1: every check, with the port-drop and router faults
    fleet_fault_port_drop 2 1500
    fleet_fault_router_pair 3 4
    RUN1_RC=0
    fleet_play_vcenter "$W/run1.out" -e esxdiag_perf_seconds=1 -e esxdiag_rr_seconds=1 -e "esxdiag_report_dir=$W/report1" \
        -e '{"esxdiag_checks": ["mtu", "perf", "rr", "part"]}' -e "{\"esxdiag_part_disks\": [\"$W/esxi7.img\"]}" \
        -e esxdiag_vds_healthcheck_enable=true -e esxdiag_vds_healthcheck_poll=1 || RUN1_RC=$?
    echo "$RUN1_RC" > "$W/run1.rc"
    # every change vCenter saw, and the health check as run 1 left it
    grep '^vcsim-fleet: health check' "$W/vc/vcsim.log" > "$W/vc/changes1" || true
    fleet_vcenter_healthcheck "$FLEET_NS_CTL" 198.18.0.1 443 "$W/vc/spec1.json" > "$W/vc/after1"
    # for people to look at (out/ is not committed)
    mkdir -p "$ESXDIAG_ROOT/out/fleet"
    cp "$W/run1.out" "$W"/report1/report.* "$ESXDIAG_ROOT/out/fleet/" 2>/dev/null
    return 0
}

teardown_file() {
    [ -n "${W:-}" ] && fleet_vcenter_down "$W/vc"
    fleet_hosts_down
    fleet_net_down
    [ -n "${W:-}" ] && rm -rf "$W"
}

setup() {
    [ -n "${FLEET_DIR:-}" ] || skip "no test bench (needs root)"
    R1=$W/report1/report.json
}

# every host as it began: the stand-in's state, nothing left in the remote folder
assert_hosts_restored() {
    local i
    for i in "$@"; do
        [ "$(fleet_host_state "$i")" = "$(cat "$W/state$i.before")" ] ||
            flunk "h$i changed: $(diff <(cat "$W/state$i.before") <(fleet_host_state "$i"))"
        [ ! -e "$W/h$i/remote" ] || flunk "h$i: remote folder left: $(find "$W/h$i/remote" | head)"
        [ -z "$(ls -A "$W/h$i/remote-tmp" 2>/dev/null)" ] || flunk "h$i: Ansible tmp left: $(ls -A "$W/h$i/remote-tmp")"
    done
}
# directed MTU pairs of a report, one "FROM TO FAMILY VERDICT EXTRA" a line, sorted
mtu_pairs() {
    jq -r '.pairs[] | select(.check == "mtu") | [.from, .to, .family, .verdict,
        (if .verdict == "TOO-BIG" then "router=\(.evidence.router) nh=\(.evidence.next_hop_mtu)"
         elif .verdict == "LOCAL-MTU" then "local=\(.evidence.local_mtu)"
         elif .verdict == "BLACK-HOLE" then "found=\(.evidence.discovered_mtu)"
         else "-" end)] | join(" ")' "$1" | LC_ALL=C sort
}

@test "fleet run 1: non-zero exit, the matrix and the failing pairs printed at the end" {
    [ "$(cat "$W/run1.rc")" != 0 ] || flunk "exit 0 with failing pairs: $(tail -5 "$W/run1.out")"
    run cat "$W/run1.out"
    # the report comes after Ansible's recap: the last thing printed
    local recap; recap=$(grep -n '^PLAY RECAP' "$W/run1.out" | tail -1 | cut -d: -f1)
    [ -n "$recap" ] || flunk "no recap: $output"
    run tail -n +"$recap" "$W/run1.out"
    assert_contains "MTU 9000 IPv4, DF set (row: from, column: to)"
    assert_contains "MTU 9000 IPv6, DF set (row: from, column: to)"
    assert_contains "Throughput, Gbit/s received, 1 s per direction (row: sender, column: receiver)"
    assert_contains "h3 -> h4  MTU IPv4  TOO-BIG: router 198.19.0.1: frag needed and DF set, next-hop MTU 1500"
    assert_contains "look at: the router 198.19.0.1 between them: its interface towards h4 has MTU 1500"
    assert_contains "every MTU pair with h2 fails, in both directions: look at that host first"
    # (the latency pairs' count is the run's: a loaded host may push a p50 over 1 ms)
    local lat; lat=$(jq '.summary.rr_failed' "$R1")
    [[ "$(tail -n 1 "$W/run1.out")" == "summary: $((22 + lat)) of 48 directed checks failed (MTU 16, throughput 6, latency $lat); 0 of 4 hosts not ok; 1 vDS health check finding; report in $W/report1" ]] ||
        flunk "last line: $(tail -n 1 "$W/run1.out")"
    # the row of h2 in the IPv4 grid, as people read it
    grep -qE '^h2 +BLACK-HOLE 1500 +- +BLACK-HOLE 1500 +BLACK-HOLE 1500$' "$W/run1.out" || flunk "h2 row: $output"
    [ -s "$W/report1/report.txt" ] && [ -s "$W/report1/report.html" ] || flunk "report files missing"
}

@test "fleet run 1: exactly the expected directed MTU pairs fail, with their verdicts and evidence" {
    local a b fam want=()
    for a in 1 2 3 4; do for b in 1 2 3 4; do
        [ "$a" = "$b" ] && continue
        for fam in ipv4 ipv6; do
            if [ "$a" = 2 ] || [ "$b" = 2 ]; then
                want+=("h$a h$b $fam BLACK-HOLE found=1500")
            elif [ "$a$b" = 34 ]; then
                [ "$fam" = ipv4 ] && want+=("h3 h4 ipv4 TOO-BIG router=198.19.0.1 nh=1500") ||
                    want+=("h3 h4 ipv6 TOO-BIG router=2001:db8:19::1 nh=1500")
            elif [ "$a$b" = 43 ]; then
                [ "$fam" = ipv4 ] && want+=("h4 h3 ipv4 TOO-BIG router=198.19.1.1 nh=1500") ||
                    want+=("h4 h3 ipv6 TOO-BIG router=2001:db8:191::1 nh=1500")
            else
                want+=("h$a h$b $fam PASS -")
            fi
        done
    done; done
    local expected; expected=$(printf '%s\n' "${want[@]}" | LC_ALL=C sort)
    [ "$(mtu_pairs "$R1")" = "$expected" ] ||
        flunk "MTU pairs differ (want, got): $(diff <(echo "$expected") <(mtu_pairs "$R1"))"
    # one esxmtu run per host, against all 3 others in both families at once
    run jq -r '.hosts[] | "\(.name) \(.raw.esxmtu.peers | length) \(.raw.esxmtu.summary.peers)"' "$R1"
    [ "$output" = $'h1 6 6\nh2 6 6\nh3 6 6\nh4 6 6' ] || flunk "esxmtu runs: $output"
    # black holes: small probes answered, the discovery names 1500 with loss as proof
    run jq -r '[.pairs[] | select(.verdict == "BLACK-HOLE") | .evidence | "\(.largest_passed) \(.smallest_failed) \(.discover_proof)"] | unique | .[]' "$R1"
    [ "$output" = "1500 1501 loss" ] || flunk "black-hole evidence: $output"
}

@test "fleet run 1: throughput of every pair both ways in N-1 rounds of disjoint pairs; the black hole's pairs fail" {
    run jq -r '.pairs[] | select(.check == "perf") | "\(.from) \(.to) \(.round) \(.direction) \(.port) \(.verdict)"' "$R1"
    [ "${#lines[@]}" = 12 ] || flunk "not 12 directed tests: $output"
    # every ordered pair once
    [ "$(printf '%s\n' "${lines[@]}" | awk '{print $1, $2}' | sort -u | wc -l)" = 12 ] || flunk "$output"
    # rounds 1..3 (N-1), port 5201 + round - 1, each unordered pair in one round, both directions
    local l from to rnd port verdict
    for l in "${lines[@]}"; do
        read -r from to rnd _ port verdict <<<"$l"
        [ "$rnd" -ge 1 ] && [ "$rnd" -le 3 ] || flunk "round $rnd: $l"
        [ "$port" = $((5200 + rnd)) ] || flunk "port: $l"
        grep -qx "$to $from $rnd [a-z]* $port [a-z]*" <<<"$output" || flunk "reverse not in the same round: $l"
        if [ "$from" = h2 ] || [ "$to" = h2 ]; then
            [ "$verdict" = failed ] || flunk "through the black hole but $verdict: $l"
        else
            [ "$verdict" = ok ] || flunk "clean pair failed: $l $(jq -c ".pairs[] | select(.check == \"perf\" and .from == \"$from\" and .to == \"$to\")" "$R1")"
        fi
    done
    # no host in two tests of the same phase
    run jq -r '.pairs[] | select(.check == "perf") | "\(.round)-\(.direction) \(.from)", "\(.round)-\(.direction) \(.to)"' "$R1"
    [ -z "$(printf '%s\n' "${lines[@]}" | sort | uniq -d)" ] || flunk "a host twice in a phase: $(printf '%s\n' "${lines[@]}" | sort | uniq -d)"
    # the ok ones carry their evidence; the failed ones say why
    run jq -r '.pairs[] | select(.check == "perf" and .verdict == "ok") | select(.gbps > 0 and (.retransmits | type) == "number" and (.cpu_sender | type) == "number") | .from' "$R1"
    [ "${#lines[@]}" = 6 ] || flunk "ok pairs without gbps/retransmits/cpu: $(jq -c '.pairs[] | select(.check == "perf")' "$R1")"
    # (esxperf names the black hole: path-mtu, whose pair is failed with its words)
    run jq -r '[.pairs[] | select(.check == "perf" and .verdict == "failed") | "\(.diagnosis.bottleneck) \(.error | sub(" \\(esxperf: path-mtu, .*"; ""))"] | unique | .[]' "$R1"
    [ "$output" = "path-mtu full-size packets vanish on the way, small ones cross" ] || flunk "failed pairs' errors: $output"
    # esxperf's diagnosis and the share of the link: the keys on every pair, null allowed
    run jq '[.pairs[] | select(.check == "perf") | has("diagnosis") and has("percent_of_link") and has("link_speed_source")] | all' "$R1"
    [ "$output" = true ] || flunk "perf pairs without diagnosis/percent_of_link/link_speed_source: $(jq -c '.pairs[] | select(.check == "perf")' "$R1")"
}

@test "fleet run 1: latency (rr) of every ordered pair in the throughput rounds, judged against vSAN's 1 ms from vCenter's cluster; its grid in report.txt and report.html" {
    run jq -r '.pairs[] | select(.check == "rr") | "\(.from) \(.to) \(.round) \(.direction) \(.port)"' "$R1"
    [ "${#lines[@]}" = 12 ] || flunk "not 12 directed latency tests: $output"
    [ "$(printf '%s\n' "${lines[@]}" | awk '{print $1, $2}' | sort -u | wc -l)" = 12 ] || flunk "$output"
    local l from to rnd port
    for l in "${lines[@]}"; do
        read -r from to rnd _ port <<<"$l"
        [ "$port" = $((5200 + rnd)) ] || flunk "port: $l"
    done
    # small requests cross h2's black hole and h3-h4's router: every pair measured, its
    # role from the cluster vCenter puts all four in, its verdict its p50 against 1 ms
    python3 - "$R1" <<'PY' || flunk "$(jq -c '.pairs[] | select(.check == "rr")' "$R1")"
import json, sys
d = json.load(open(sys.argv[1]))
rr = [p for p in d["pairs"] if p["check"] == "rr"]
for p in rr:
    assert p["error"] is None, p
    assert p["role"] == "vsan" and p["limit_ms"] == 1.0, p
    assert p["role_source"] == "both in cluster vmotion-lab in vCenter", p
    assert 0 < p["p50_ms"] <= p["p99_ms"] and p["transactions"] > 0, p
    assert p["verdict"] == ("failed" if p["p50_ms"] > 1.0 else "ok"), p
    assert (p["sentence"] is not None) == (p["verdict"] == "failed" or p["tail"]), p
assert d["summary"]["rr_failed"] == len([p for p in rr if p["verdict"] == "failed"])
assert all(len(h["raw"]["esxperf"]) == 3 for h in d["hosts"]), "the throughput runs kept apart"
assert all(len(h["raw"]["esxperf_rr"]) == 3 and h["raw"]["esxperf_rr"][0]["server"]["end"]["rr"]
           for h in d["hosts"]), "the latency runs' raw JSON"
PY
    grep -q "^Latency, request/response round trip p50/p99 in ms, 1 s per direction (row: client, column: server)$" \
        "$W/report1/report.txt" || flunk "no latency grid: $(cat "$W/report1/report.txt")"
    grep -qE '^h1 +- +[0-9.]+/[0-9.]+ +[0-9.]+/[0-9.]+ +[0-9.]+/[0-9.]+$' "$W/report1/report.txt" ||
        flunk "h1's latency row: $(grep -A5 '^Latency' "$W/report1/report.txt")"
    [ "$(grep -o 'data-check="rr"' "$W/report1/report.html" | wc -l)" -ge 12 ] || flunk "report.html has no latency grid"
}

@test "fleet run 1: esxpart on each host names OSDATA, the bootbanks and the VMFS datastore" {
    run jq -r '.hosts[] | "\(.name) \(.part.osdata | join(",")) | \(.part.bootbanks | join(",")) | \(.part.vmfs | join(","))"' "$R1"
    local i
    for i in 1 2 3 4; do
        [ "${lines[$((i - 1))]}" = "h$i $W/esxi7.img #7 | $W/esxi7.img #5,$W/esxi7.img #6 | $W/esxi7.img #8 (datastore1)" ] ||
            flunk "h$i: ${lines[$((i - 1))]}"
    done
}

@test "fleet run 1: every host ends as it began; prepare opened exactly the other hosts' test addresses" {
    assert_hosts_restored 1 2 3 4
    run jq -r '[.hosts[] | "\(.name)=\(.state)"] | join(" ")' "$R1"
    [ "$output" = "h1=ok h2=ok h3=ok h4=ok" ] || flunk "$output"
    local i j added want
    for i in 1 2 3 4; do
        added=$(sed -n 's/.*allowedip add --ruleset-id esxdiag --ip-address //p' "$W/h$i/host/log" | LC_ALL=C sort)
        want=$(for j in 1 2 3 4; do [ "$i" = "$j" ] || printf '%s\n%s\n' "$(fleet_test_ip "$j")" "$(fleet_test_ip6 "$j")"; done | LC_ALL=C sort)
        [ "$added" = "$want" ] || flunk "h$i allowed: $added"
        grep -qx 'esxcli system settings advanced set -o /User/execInstalledOnly -i 0' "$W/h$i/host/log" || flunk "h$i: no --allow-exec"
        grep -qx 'esxcli system settings advanced set -o /User/execInstalledOnly -i 1' "$W/h$i/host/log" || flunk "h$i: not restored"
        [ "$(jq -r ".hosts[$((i - 1))].steps.cleanup.rc" "$R1")" = 0 ] || flunk "h$i cleanup: $(jq -c ".hosts[$((i - 1))].steps.cleanup" "$R1")"
    done
    jq -e '.hosts[0].steps.prepare.stdout | test("changes recorded in .*esxdiag.state")' "$R1" >/dev/null ||
        flunk "prepare output not kept: $(jq -c '.hosts[0].steps.prepare' "$R1")"
    # the ruleset opened the ports of all three rounds (5201-5203), not just the first
    jq -e '.hosts[0].steps.prepare.stdout | test("tcp\\+udp port 5201-5203")' "$R1" >/dev/null ||
        flunk "prepare did not open the rounds' ports: $(jq -r '.hosts[0].steps.prepare.stdout' "$R1")"
}

@test "fleet run 1: each host's pre-flight report is in report.json (hosts[].preflight), report.txt and report.html" {
    run jq -r '.hosts[] | [.name, .preflight.ready, (.preflight.blocked_by | length), .preflight.locks.runtime.state,
        .preflight.locks.boot.state, .preflight.locks.tpm.state, .preflight.firewall.enabled, .preflight.arch.state,
        (.preflight.shell.missing | length), (.preflight.shell.optional_missing | join(",")),
        (.preflight.free_space.kib > 0), .steps.deploy.sha256sum_skipped] | map(tostring) | join(" ")' "$R1"
    local i
    for i in 1 2 3 4; do
        [ "${lines[$((i - 1))]}" = "h$i true 0 on off off true match 0 sha256sum true true" ] ||
            flunk "h$i preflight: ${lines[$((i - 1))]}"
    done
    grep -qE '^  h1  locks: runtime on, boot off, TPM off; firewall on; kit x86_64 on x86_64; [0-9]+ MiB free; no sha256sum$' \
        "$W/report1/report.txt" || flunk "report.txt: $(grep -A5 '^pre-flight' "$W/report1/report.txt")"
    [ "$(grep -c '<tr class="preflight" data-host="h[1-4]" data-ready="True">' "$W/report1/report.html")" = 4 ] ||
        flunk "report.html: $(grep -A6 'id="preflight"' "$W/report1/report.html")"
}

@test "fleet run 1: each host's self-test is in report.json (hosts[].selftest), report.txt and report.html; h1 allows ping sockets, the others refuse them" {
    local want i st ping
    want=$("$BIN/esxdiag-selftest" -J | jq -c '[.selftest.probes[].name]')
    for i in 1 2 3 4; do
        st=$(jq -c ".hosts[$((i - 1))].selftest" "$R1")
        [ "$(jq -c '[.probes[].name]' <<<"$st")" = "$want" ] || flunk "h$i: other probes than the kit's: $st"
        [ "$(jq -r '[.arch, .kernel, .root] | map(tostring) | join(" ")' <<<"$st")" = "x86_64 $(uname -r) true" ] ||
            flunk "h$i header: $(jq -c 'del(.probes)' <<<"$st")"
        ping=$(jq -r '[.probes[] | select(.name | startswith("socket ICMP")) | "\(.result) \(.errno)"] | join(",")' <<<"$st")
        if [ "$i" = 1 ]; then
            [ "$ping" = "works null,works null" ] || flunk "h1 (ping allowed): $ping"
        else
            [ "$ping" = "refused EACCES,refused EACCES" ] || flunk "h$i (ping refused): $ping"
        fi
        # the text line and the page's row say what report.json says
        grep -qE "^  h$i  Linux $(uname -r) x86_64: $(jq -r .summary.works <<<"$st") works, $(jq -r .summary.refused <<<"$st") refused" \
            "$W/report1/report.txt" || flunk "report.txt h$i: $(grep -A5 '^self-test' "$W/report1/report.txt")"
        grep -q "<tr class=\"selftest\" data-host=\"h$i\" data-refused=\"$(jq -r .summary.refused <<<"$st")\"" \
            "$W/report1/report.html" || flunk "report.html h$i: $(grep 'class="selftest"' "$W/report1/report.html")"
    done
    grep -qE '^  h2  .* refused \(.*socket ICMP ping \(dgram\) EACCES' "$W/report1/report.txt" || flunk "$(grep -A5 '^self-test' "$W/report1/report.txt")"
    # as Chromium renders it: h2's refused ping socket with the tools' fallback as its title
    fleet_page_dom "$W/report1/report.html" "$W/dom-selftest.html"
    grep -q 'title="esxmtu: raw sockets (needs root); without root no IPv4 probing">socket ICMP ping (dgram): refused EACCES</span>' \
        "$W/dom-selftest.html" || flunk "rendered page: $(grep -o '<table id="selftest-hosts">.*' "$W/dom-selftest.html" | head -c 2000)"
}

@test "fleet: each host's shell is the ESXi-shaped one: no command, no tr, nothing of this machine's on PATH" {
    local out rc=0
    out=$(ip netns exec "$FLEET_NS_CTL" ssh -F "$FLEET_DIR/ssh/config" "$(fleet_mgmt_ip 1)" \
        'command -v ls 2>&1; echo "rc=$?"; tr a b </dev/null 2>&1; echo "rc=$?"; echo "PATH=$PATH"' 2>&1) || rc=$?
    [[ "$out" == *"command: not found"*"rc=127"*"tr: not found"*"rc=127"*"PATH=$W/h1/fakebin:$W/esxi-bin" ]] ||
        flunk "host shell (exit $rc): $out"
}

@test "fleet run 1: report.html in headless Chromium shows the failing pairs; screenshot in out/fleet/report.png" {
    local html=$W/report1/report.html
    # self-contained: nothing to fetch
    ! grep -qiE '(src|href)=|url\(|@import|https?://' "$html" || flunk "the page refers out: $(grep -oiE '(src|href)=[^ ]*|url\([^)]*|https?://[^ ]*' "$html" | head)"
    fleet_page_dom "$html" "$W/dom.html"
    run fleet_page_cells "$W/dom.html"
    assert_status 0
    # failing grid cells and failing-pair rows, as rendered, against report.json
    local want got_cells got_rows
    want=$(jq -r '.pairs[] | select(.verdict != "PASS" and .verdict != "ok") | "\(.from) \(.to) \(.check) \(.family // "-") \(.verdict)"' "$R1" | LC_ALL=C sort)
    got_cells=$(printf '%s\n' "${lines[@]}" | awk '$1 == "cell" && $6 != "PASS" && $6 != "ok" && $6 != "-" {print $2, $3, $4, $5, $6}' | LC_ALL=C sort)
    got_rows=$(printf '%s\n' "${lines[@]}" | awk '$1 == "row" {print $2, $3, $4, $5, $6}' | LC_ALL=C sort)
    [ "$(wc -l <<<"$want")" = 22 ] || flunk "report.json: $want"
    [ "$got_cells" = "$want" ] || flunk "grid cells differ: $(diff <(echo "$want") <(echo "$got_cells"))"
    [ "$got_rows" = "$want" ] || flunk "failing-pair rows differ: $(diff <(echo "$want") <(echo "$got_rows"))"
    grep -q 'TOO-BIG 1500' "$W/dom.html" || flunk "no TOO-BIG 1500 cell"
    mkdir -p "$ESXDIAG_ROOT/out/fleet"
    rm -f "$ESXDIAG_ROOT/out/fleet/report.png"
    fleet_page_png "$html" "$ESXDIAG_ROOT/out/fleet/report.png"
    [ "$(head -c 8 "$ESXDIAG_ROOT/out/fleet/report.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
        flunk "no PNG at out/fleet/report.png"
    [ "$(stat -c %s "$ESXDIAG_ROOT/out/fleet/report.png")" -gt 20000 ] || flunk "screenshot too small to show anything"
}

@test "fleet run 2: unreachable host reported, the others tested; a host at MTU 1500: LOCAL-MTU out, BLACK-HOLE in" {
    fleet_faults_clear
    fleet_fault_host_mtu 2 1500
    fleet_sshd_stop 4
    # vCenter has h2's vmk1 at 1500 too
    fleet_vcenter_down "$W/vc"
    # and the vDS health check on, h4's vmnic2 port not passing 9000: read-only
    fleet_vcenter_spec "$W/vc/spec2.json" "$N" 2:vmk_mtu=1500 4:health_mtu_bad=vmnic2
    jq '.health_check = true' "$W/vc/spec2.json" > "$W/vc/spec2.tmp" && mv "$W/vc/spec2.tmp" "$W/vc/spec2.json"
    fleet_vcenter_up "$FLEET_NS_CTL" 198.18.0.1:443 "$W/vc/spec2.json" "$W/vc"
    fleet_vcenter_login "$W/vc/spec2.json" 198.18.0.1
    unset VMWARE_PORT
    fleet_vcenter_healthcheck "$FLEET_NS_CTL" 198.18.0.1 443 "$W/vc/spec2.json" > "$W/vc/before2"
    local i
    for i in 1 2 3 4; do : > "$W/h$i/host/log"; done
    local rc=0
    FLEET_COLLECTIONS=$W/collections fleet_play_vcenter "$W/run2.out" -e "esxdiag_report_dir=$W/report2" -e '{"esxdiag_checks": ["mtu"]}' \
        -e esxdiag_fail_on_error=false || rc=$?
    grep '^vcsim-fleet: health check' "$W/vc/vcsim.log" > "$W/vc/changes2" || true
    fleet_vcenter_healthcheck "$FLEET_NS_CTL" 198.18.0.1 443 "$W/vc/spec2.json" > "$W/vc/after2"
    fleet_vcenter_down "$W/vc"
    fleet_sshd_start 4
    fleet_faults_clear
    [ "$rc" = 0 ] || flunk "esxdiag_fail_on_error=false, exit $rc: $(tail -20 "$W/run2.out")"
    local r2=$W/report2/report.json
    run jq -r '.hosts[] | "\(.name) \(.state)"' "$r2"
    [ "$output" = $'h1 ok\nh2 ok\nh3 ok\nh4 unreachable' ] || flunk "$output"
    jq -e '.hosts[3].detail | test("198.18.0.14")' "$r2" >/dev/null || flunk "detail: $(jq -c '.hosts[3]' "$r2")"
    local expected
    expected=$(printf '%s\n' \
        "h1 h2 ipv4 BLACK-HOLE found=1500" "h1 h2 ipv6 BLACK-HOLE found=1500" \
        "h1 h3 ipv4 PASS -" "h1 h3 ipv6 PASS -" \
        "h2 h1 ipv4 LOCAL-MTU local=1500" "h2 h1 ipv6 LOCAL-MTU local=1500" \
        "h2 h3 ipv4 LOCAL-MTU local=1500" "h2 h3 ipv6 LOCAL-MTU local=1500" \
        "h3 h1 ipv4 PASS -" "h3 h1 ipv6 PASS -" \
        "h3 h2 ipv4 BLACK-HOLE found=1500" "h3 h2 ipv6 BLACK-HOLE found=1500" | LC_ALL=C sort)
    [ "$(mtu_pairs "$r2")" = "$expected" ] || flunk "MTU pairs differ: $(diff <(echo "$expected") <(mtu_pairs "$r2"))"
    # LOCAL-MTU one way, BLACK-HOLE the other: marked asymmetric
    run jq -r '[.pairs[] | select(.asymmetric) | "\(.from)>\(.to)"] | unique | join(" ")' "$r2"
    [ "$output" = "h1>h2 h2>h1 h2>h3 h3>h2" ] || flunk "asymmetric: $output"
    run cat "$W/run2.out"
    assert_contains "h4  unreachable"
    assert_contains "summary: 8 of 12 directed checks failed (MTU 8, throughput 0); 1 of 4 hosts not ok"
    assert_hosts_restored 1 2 3 4
    [ ! -s "$W/h4/host/log" ] || flunk "unreachable h4 was touched: $(cat "$W/h4/host/log")"
}

@test "fleet: a host whose vMotion vmk is on its own netstack: esxmtu there reads it from esxcli and probes through esxcli's ping; its pairs PASS, report.json and report.html say how" {
    # h1's vmk1 in a namespace of its own (its "vmotion" netstack; its stand-in esxcli
    # has vmk1 on vmotion and pings in that namespace); h1 and h3 only, MTU only. h1's
    # esxcli is a slow one (1 s a call, as a busy host's): every answer the same
    fleet_own_netstack 1 || { fleet_own_netstack_undo 1; flunk "cannot move h1's vMotion link"; }
    : > "$W/h1/host/log"
    /usr/bin/python3 - "$W/inventory.yml" "$W/inventory-ns.yml" "$(fleet_vmo_ns 1)" <<'PY'
import sys, yaml
inv = yaml.safe_load(open(sys.argv[1]))
hosts = inv['esxdiag']['hosts']
for name in list(hosts):
    if name not in ('h1', 'h3'):
        del hosts[name]
hosts['h1']['esxdiag_vmk'] = 'vmk1'
hosts['h1']['esxdiag_host_env']['FAKE_ESXCLI_NETSTACK_vmotion'] = sys.argv[3]
hosts['h1']['esxdiag_host_env']['FAKE_ESXCLI_SICK'] = 'slow'
hosts['h1']['esxdiag_host_env']['FAKE_ESXCLI_SLOW_S'] = '1'
yaml.safe_dump(inv, open(sys.argv[2], 'w'))
PY
    local rc=0
    FLEET_INVENTORY=$W/inventory-ns.yml fleet_play "$W/run5.out" -e "esxdiag_report_dir=$W/report5" \
        -e '{"esxdiag_checks": ["mtu"]}' || rc=$?
    fleet_own_netstack_undo 1
    [ "$rc" = 0 ] || flunk "exit $rc: $(tail -20 "$W/run5.out")"
    local r5=$W/report5/report.json
    run jq -r '.pairs[] | "\(.from) \(.to) \(.family) \(.verdict) \(.netstack.name) \(.netstack.method) \(.evidence.method)"' "$r5"
    [ "$output" = "h1 h3 ipv4 PASS vmotion esxcli esxcli
h1 h3 ipv6 PASS vmotion esxcli esxcli
h3 h1 ipv4 PASS null current raw
h3 h1 ipv6 PASS null current raw" ] || flunk "pairs: $output"
    [ "$(jq -r '.pairs[0].netstack.from' "$r5")" = "esxcli: vmk1 is on it" ] || flunk "$(jq -c '.pairs[0]' "$r5")"
    grep -q "esxcli network diag ping --netstack vmotion --interface vmk1 --ipv4 --df --size 8972" "$W/h1/host/log" ||
        flunk "h1's esxcli log: $(cat "$W/h1/host/log")"
    grep -q '<td class="netstack">vmotion via esxcli</td>' "$W/report5/report.html" || flunk "report.html has no netstack column"
    run cat "$W/run5.out"
    assert_contains "summary: 0 of 4 directed checks failed"
}

# the configuration sentence of every failing pair of a report, "FROM TO CHECK FAMILY
# VERDICT | TEXT" a line, sorted
config_pairs() {
    jq -r '.pairs[] | select(.verdict != "PASS" and .verdict != "ok") |
        "\(.from) \(.to) \(.check) \(.family // "-") \(.verdict) | \(.configuration.text)"' "$1" | LC_ALL=C sort
}
# the bench host's uplinks as vCenter has them (fleet_vcenter_spec)
uplinks() { case $1 in h1 | h2) echo "$1's vmnic1" ;; *) echo "$1's vmnic1, vmnic2" ;; esac; }

@test "fleet runs 1 and 2 from vCenter: the hosts in maintenance mode or disconnected left out with the reason; each tested host's vmk, netstack and MTUs recorded; the password nowhere" {
    local out
    for out in "$W/run1.out" "$W/run2.out"; do
        [ "$(grep '^esxdiag_vcenter: ' "$out")" = "esxdiag_vcenter: h5 left out: in maintenance mode
esxdiag_vcenter: h6 left out: not connected (vCenter says disconnected)
esxdiag_vcenter: 4 hosts from vCenter 198.18.0.1:443 in group esxdiag, 2 left out" ] || flunk "$out: $(head -5 "$out")"
    done
    run jq -r '.hosts[] | "\(.name) \(.management) \(.test_ip) \(.test_ip6) \(.vmk) \(.netstack) \(.config.vmk_mtu) \(.config.switch.name) \(.config.switch.mtu)"' "$R1"
    [ "$output" = "h1 198.18.0.11 198.19.0.11 2001:db8:19::11 vmk1 vmotion 9000 vSwitch1 9000
h2 198.18.0.12 198.19.0.12 2001:db8:19::12 vmk1 vmotion 9000 vSwitch1 9000
h3 198.18.0.13 198.19.0.13 2001:db8:19::13 vmk1 defaultTcpipStack 9000 dvs-vmotion 9000
h4 198.18.0.14 198.19.1.14 2001:db8:191::14 vmk1 vmotion 9000 dvs-vmotion 9000" ] || flunk "hosts: $output"
    [ "$(jq -c '[.hosts[] | .config.vmk_mtu]' "$W/report2/report.json")" = '[9000,1500,9000,9000]' ] || flunk "run 2's MTUs"
    ! grep -rqF "$VMWARE_PASSWORD" "$W"/run[12].out "$W/report1" "$W/report2" || flunk "the vCenter password is in an output or a report"
}

@test "fleet run 1 from vCenter: the configuration is consistent: h2's black holes are the physical network's, h3<->h4 the router's" {
    local a b fam want=() r4 r6
    for a in 1 2 3 4; do for b in 1 2 3 4; do
        [ "$a" = "$b" ] && continue
        [ "$a" = 2 ] || [ "$b" = 2 ] || continue
        for fam in ipv4 ipv6; do
            want+=("h$a h$b mtu $fam BLACK-HOLE | the configuration is consistent (9000 everywhere): the physical network drops frames over 1500 (the physical switch ports of $(uplinks "h$a") and $(uplinks "h$b"))")
        done
        want+=("h$a h$b perf - failed | its MTU pair: the configuration is consistent (9000 everywhere): the physical network drops frames over 1500 (the physical switch ports of $(uplinks "h$a") and $(uplinks "h$b"))")
    done; done
    for a in 34 43; do
        [ "$a" = 34 ] && r4=198.19.0.1 r6=2001:db8:19::1 || r4=198.19.1.1 r6=2001:db8:191::1
        want+=("h${a:0:1} h${a:1} mtu ipv4 TOO-BIG | the router $r4 between them forwards at most 1500: not a host setting; the configuration is consistent (9000 everywhere)")
        want+=("h${a:0:1} h${a:1} mtu ipv6 TOO-BIG | the router $r6 between them forwards at most 1500: not a host setting; the configuration is consistent (9000 everywhere)")
    done
    local expected; expected=$(printf '%s\n' "${want[@]}" | LC_ALL=C sort)
    [ "$(config_pairs "$R1")" = "$expected" ] || flunk "(want, got): $(diff <(echo "$expected") <(config_pairs "$R1"))"
    [ "$(jq -cS '.configuration' "$R1")" = '{"cluster_vmk_mtu":9000,"explained":0,"hosts_configured":4,"tested_mtu":9000,"unexplained":22}' ] ||
        flunk "configuration: $(jq -c '.configuration' "$R1")"
    grep -qx '  h3  vmk1 9000 (defaultTcpipStack netstack), distributed switch dvs-vmotion 9000, uplinks vmnic1, vmnic2' "$W/report1/report.txt" ||
        flunk "report.txt: $(grep -A5 '^configuration' "$W/report1/report.txt")"
}

@test "fleet run 2 from vCenter: every failing pair names h2's vmk1 at 1500, in report.json, report.txt and at the end of the run" {
    local r2=$W/report2/report.json why="h2 vmk1 MTU 1500 while the cluster's vMotion vmks are 9000" a fam want=()
    for a in 1 3; do for fam in ipv4 ipv6; do
        want+=("h2 h$a mtu $fam LOCAL-MTU | $why: LOCAL-MTU explained" "h$a h2 mtu $fam BLACK-HOLE | $why: BLACK-HOLE explained")
    done; done
    local expected; expected=$(printf '%s\n' "${want[@]}" | LC_ALL=C sort)
    [ "$(config_pairs "$r2")" = "$expected" ] || flunk "(want, got): $(diff <(echo "$expected") <(config_pairs "$r2"))"
    [ "$(jq -c '[.pairs[] | select(.configuration.explained) | .configuration.settings[]] | unique' "$r2")" = '[{"host":"h2","kind":"vmk","mtu":1500,"name":"vmk1","tested":9000}]' ] ||
        flunk "settings: $(jq -c '[.pairs[] | .configuration.settings]' "$r2")"
    run cat "$W/run2.out"
    assert_contains "configuration (vCenter 198.18.0.1:443; 9000 MTU tested, the cluster's vMotion vmks at 9000)"
    assert_contains "  h2  vmk1 1500 (vmotion netstack), vSwitch1 9000, uplinks vmnic1; $why"
    assert_contains "h2 -> h1  MTU IPv4, IPv6  LOCAL-MTU: "
    assert_contains "      configuration: $why: LOCAL-MTU explained"
    assert_contains "      configuration: $why: BLACK-HOLE explained"
    cmp -s <(sed -n '/^esxdiag fleet: /,$p' "$W/run2.out") "$W/report2/report.txt" ||
        flunk "report.txt is not what the run printed: $(diff <(sed -n '/^esxdiag fleet: /,$p' "$W/run2.out") "$W/report2/report.txt")"
}

@test "fleet runs 1 and 2 from vCenter: the vDS health check names h4's vmnic2 per host and vmnic in report.json, txt and html; run 1 turned it on and back off (the play failing), run 2 only read it" {
    local sw
    # run 1: off before, on during (its results read), off after, although the play failed
    [ "$(cat "$W/run1.rc")" != 0 ] || flunk "run 1 passed"
    [ "$(cat "$W/vc/changes1")" = "vcsim-fleet: health check vlanMtu enable=true interval=1
vcsim-fleet: health check vlanMtu enable=false interval=1" ] || flunk "run 1's changes: $(cat "$W/vc/changes1")"
    [ "$(cat "$W/vc/after1")" = "dvs-vmotion off 1" ] || flunk "after run 1: $(cat "$W/vc/after1")"
    [ "$(jq -c '.vds_health | [.read, .switches, .complete, .findings]' "$R1")" = \
        '["enabled for this run, then restored",[{"after":"off (restored)","before":"off","during":"on","dvs":"dvs-vmotion"}],true,1]' ] ||
        flunk "run 1: $(jq -c .vds_health "$R1")"
    # run 2: on before and after, nothing changed, the results read from the inventory
    [ "$(cat "$W/vc/before2")" = "dvs-vmotion on 1" ] && [ "$(cat "$W/vc/after2")" = "dvs-vmotion on 1" ] ||
        flunk "run 2: before $(cat "$W/vc/before2"), after $(cat "$W/vc/after2")"
    [ ! -s "$W/vc/changes2" ] || flunk "run 2 (read-only) changed vCenter: $(cat "$W/vc/changes2")"
    [ "$(jq -r .vds_health.read "$W/report2/report.json")" = "read-only (vCenter inventory)" ] || flunk "run 2's read"
    for r in "$W/report1" "$W/report2"; do
        [ "$(jq -r '.hosts[] | .name as $h | (.vds_health // [])[] | .uplinks[] | "\($h) \(.vmnic) \(.mtu) \(.vlan)"' "$r/report.json")" = \
            "h3 vmnic1 passed trunked
h3 vmnic2 passed trunked
h4 vmnic1 passed trunked
h4 vmnic2 not-passed trunked" ] || flunk "$r: $(jq -c '[.hosts[].vds_health]' "$r/report.json")"
        [ "$(jq -c '[.hosts[] | (.vds_health // [])[] | .findings[]]' "$r/report.json")" = \
            '["vDS health check: vmnic2 on h4: switch MTU does not match 9000 (VLAN 0; its physical switch port)"]' ] ||
            flunk "$r findings: $(jq -c '[.hosts[].vds_health]' "$r/report.json")"
        grep -qx '    vmnic2   port 131    switch MTU: does not pass 9000           VLAN: trunked' "$r/report.txt" ||
            flunk "$r/report.txt: $(grep -A12 '^vDS health' "$r/report.txt")"
        grep -q '<tr class="vds-uplink" data-host="h4" data-vmnic="vmnic2" data-check="on">.*<td class="fail">does not pass 9000</td>' "$r/report.html" ||
            flunk "$r/report.html: no failing row for h4's vmnic2"
    done
    grep -qx '    finding: vDS health check: vmnic2 on h4: switch MTU does not match 9000 (VLAN 0; its physical switch port)' "$W/run2.out" ||
        flunk "not printed at the end of run 2"
}

@test "fleet run 2 from vCenter: report.html in headless Chromium shows the configuration column and the explained pairs; screenshot in out/fleet/report-vcenter.png" {
    local html=$W/report2/report.html
    fleet_page_dom "$html" "$W/dom2.html"
    grep -q '<th>configuration (vCenter)</th>' "$W/dom2.html" || flunk "no configuration column"
    [ "$(grep -c '<td class="config explained" data-explained="True">h2 vmk1 MTU 1500 while the cluster.s vMotion vmks are 9000: [A-Z-]* explained</td>' "$W/dom2.html")" = 8 ] ||
        flunk "explained cells: $(grep -o '<td class="config[^>]*>[^<]*' "$W/dom2.html" | sort | uniq -c)"
    grep -q '<tr class="config-host" data-host="h2" data-below="1">' "$W/dom2.html" || flunk "h2's configuration row"
    [ "$(grep -c '<tr class="config-host" data-host="h[134]" data-below="0">' "$W/dom2.html")" = 3 ] || flunk "configuration rows"
    mkdir -p "$ESXDIAG_ROOT/out/fleet"
    cp "$html" "$ESXDIAG_ROOT/out/fleet/report-vcenter.html"
    cp "$W/run2.out" "$ESXDIAG_ROOT/out/fleet/run2.out"
    rm -f "$ESXDIAG_ROOT/out/fleet/report-vcenter.png"
    fleet_page_png "$html" "$ESXDIAG_ROOT/out/fleet/report-vcenter.png" 1400,1650
    [ "$(head -c 8 "$ESXDIAG_ROOT/out/fleet/report-vcenter.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
        flunk "no PNG at out/fleet/report-vcenter.png"
}

@test "fleet: a kit built for another architecture is refused on every host before anything is copied" {
    local other=$W/esxdiag-0.1.0-aarch64.tar.gz i rc=0
    cp "$FLEET_KIT" "$other"
    for i in 1 2 3 4; do : > "$W/h$i/host/log"; done
    FLEET_KIT=$other fleet_play "$W/run3.out" -e "esxdiag_report_dir=$W/report3" -e '{"esxdiag_checks": ["mtu"]}' || rc=$?
    [ "$rc" != 0 ] || flunk "exit 0: $(tail -5 "$W/run3.out")"
    run jq -r '.hosts[] | "\(.name) \(.state): \(.detail)"' "$W/report3/report.json"
    for i in 1 2 3 4; do
        [ "${lines[$((i - 1))]}" = "h$i wrong architecture: this host is x86_64, the kit esxdiag-0.1.0-aarch64.tar.gz is for aarch64 (use esxdiag-0.1.0-x86_64.tar.gz)" ] ||
            flunk "${lines[$((i - 1))]}"
        [ ! -s "$W/h$i/host/log" ] || flunk "h$i was prepared: $(cat "$W/h$i/host/log")"
    done
    assert_hosts_restored 1 2 3 4
}

@test "fleet: a missing or misnamed kit stops the run with one message, no host touched" {
    local rc=0
    FLEET_KIT=$W/nothing/esxdiag-0.1.0-x86_64.tar.gz fleet_play "$W/run4.out" || rc=$?
    [ "$rc" = 2 ] || flunk "exit $rc: $(cat "$W/run4.out")"
    run cat "$W/run4.out"
    assert_contains "esxdiag: kit $W/nothing/esxdiag-0.1.0-x86_64.tar.gz: no such file on the controller (run make dist, or give the right path)"
    assert_not_contains "TASK [esxdiag : Ask the host"
    cp "$FLEET_KIT" "$W/kit.tgz"
    rc=0
    FLEET_KIT=$W/kit.tgz fleet_play "$W/run4.out" || rc=$?
    [ "$rc" = 2 ] || flunk "exit $rc: $(cat "$W/run4.out")"
    run cat "$W/run4.out"
    assert_contains "not named esxdiag-VERSION-ARCH.tar.gz"
    assert_hosts_restored 1 2 3 4
}

@test "fleet: ^C during the throughput step stops the tests and still cleans up every host" {
    local out=$W/run5.out pid i rc=0
    for i in 1 2 3 4; do : > "$W/h$i/host/log"; done
    # its own session and process group, as a terminal gives a command: the ^C goes
    # to ansible-playbook, its workers and their ssh (no timeout(1) around it: that
    # would forward a second SIGINT; the wait below is the bound)
    fleet_playbook_argv
    setsid "${FLEET_ARGV[@]}" -e esxdiag_perf_seconds=3 -e "esxdiag_report_dir=$W/report5" \
        -e '{"esxdiag_checks": ["perf"]}' > "$out" 2>&1 &
    pid=$!
    # bounded: the first round starts within 120 s (about 40 s here under load)
    for i in $(seq 600); do
        grep -q 'Round 1/3 forward: every sender' "$out" 2>/dev/null && break
        sleep 0.2
    done
    grep -q 'Round 1/3 forward: every sender' "$out" || { kill -9 -- -"$pid"; flunk "no round started: $(tail "$out")"; }
    sleep 1
    kill -INT -- -"$pid"
    # bounded: cleanup and the report take under a minute
    for i in $(seq 900); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -0 "$pid" 2>/dev/null && { kill -9 -- -"$pid"; flunk "still running 180 s after ^C: $(tail "$out")"; }
    wait "$pid" || rc=$?
    [ "$rc" != 0 ] || flunk "exit 0 after ^C"
    # what Ansible alone skips on ^C: the always: cleanup
    for i in 1 2 3 4; do
        grep -qx 'esxcli system settings advanced set -o /User/execInstalledOnly -i 1' "$W/h$i/host/log" ||
            flunk "h$i not restored after ^C: $(cat "$W/h$i/host/log")"
    done
    run cat "$out"
    assert_contains "esxdiag: SIGINT: the tests stop; cleanup runs on every host"
    assert_contains "INTERRUPTED: the tests stopped early"
    jq -e '.interrupted == true' "$W/report5/report.json" >/dev/null || flunk "report not marked interrupted"
    # nothing ran after the round that was interrupted
    run jq -r '[.pairs[] | select(.check == "perf" and (.round > 1 or .direction == "reverse"))] | length' "$W/report5/report.json"
    [ "$output" = 0 ] || flunk "tests after ^C: $(jq -c '.pairs[] | select(.check == "perf")' "$W/report5/report.json")"
    # the receivers and senders of the interrupted round end by themselves (-t 3, -1)
    for i in $(seq 100); do
        for n in 1 2 3 4; do ip netns pids "$(fleet_ns "$n")"; done | xargs -r ps -o comm= -p | grep -q esxperf || break
        sleep 0.2
    done
    assert_hosts_restored 1 2 3 4
}

@test "fleet schedule: every unordered pair once, no host twice in a round, N-1 rounds (N odd: N), N = 2..17" {
    # one ansible run renders the phases of every N through the filter plugin
    local msg out
    msg='{% set all = [] %}{% for n in range(2, 18) %}{% set _ = all.append(range(1, n + 1) | map("string")
        | map("regex_replace", "^", "h") | list | esxdiag_perf_phases(5201)) %}{% endfor %}{{ all | to_json }}'
    # shellcheck disable=SC2046
    out=$(env $(fleet_env "$W") ANSIBLE_FILTER_PLUGINS="$ESXDIAG_ROOT/esxi/fleet/collections/ansible_collections/esxdiag/fleet/plugins/filter" \
        ansible localhost -o -m debug -a "msg='$msg'" 2>&1) || flunk "$out"
    out=$(sed -n 's/^localhost | SUCCESS => //p' <<<"$out" | jq -c '.msg | if type == "string" then fromjson else . end')
    [ "$(jq length <<<"$out")" = 16 ] || flunk "$out"
    local n
    for n in $(seq 2 17); do
        jq -e --argjson n "$n" '.[$n - 2] |
            (map(.round) | max) == (if $n % 2 == 0 then $n - 1 else $n end)
            and all(.[]; (.clients + .servers | length) == (.clients + .servers | unique | length))
            and ([.[] | .tests[] | [.from, .to]] | length) == $n * ($n - 1)
            and ([.[] | .tests[] | [.from, .to]] | unique | length) == $n * ($n - 1)
            and all(.[]; .port == 5200 + .round)
            and all(.[]; (.tests | length) == ($n / 2 | floor))' <<<"$out" >/dev/null ||
            flunk "N=$n: $(jq -c ".[$n - 2]" <<<"$out")"
    done
}

@test "fleet: the example inventory gives every host the settings ESXi needs; the playbook parses" {
    local inv=$ESXDIAG_ROOT/esxi/fleet/inventory/hosts.ini out
    # shellcheck disable=SC2046
    out=$(env $(fleet_env "$W") ansible-inventory -i "$inv" --list 2>&1) || flunk "$out"
    run jq -r '._meta.hostvars | to_entries[] | "\(.key) \(.value.ansible_python_interpreter) \(.value.ansible_pipelining) \(.value.esxdiag_test_ip) \(.value.esxdiag_vmk)"' <<<"$out"
    [ "${#lines[@]}" = 4 ] || flunk "$out"
    [ "${lines[0]}" = "esx01 /bin/python true 198.51.100.11 vmk1" ] || flunk "$output"
    # shellcheck disable=SC2046
    out=$(env $(fleet_env "$W") ansible-playbook -i "$inv" --syntax-check "$ESXDIAG_ROOT/esxi/fleet/validate.yml" 2>&1) ||
        flunk "$out"
}

@test "fleet: the controller wrote nothing in its home (own ansible.cfg, ssh config, keys, tmp)" {
    # fleet_env runs Ansible with HOME=$W/home: a default path that slipped through
    # (~/.ansible/tmp, ~/.ssh/known_hosts, ...) would show up there
    run find "$W/home" -mindepth 1
    [ -z "$output" ] || flunk "written in HOME: $output"
}
