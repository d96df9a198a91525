#!/usr/bin/env bats
# esxdiag-selftest really tries what it reports: every probe of its table is printed
# once (text and -J), the table covers the calls not confirmed on ESXi, every
# optional syscall of build/syscalls.optional and every socket option the tools set;
# a call made to fail under strace (ENOSYS into a syscall, ENOPROTOOPT into every
# setsockopt) shows as refused in exactly its own rows; not root, the privileged
# probes are not tried; bad usage is one line and exit 2; the tool stays within the
# syscall lists; the fleet report's self-test parts hold for the cases the fleet bench
# does not make. Loopback only. Each row runs the tool a few times: about 5 s in all.
load ../lib/common

setup() {
    T=$BIN/esxdiag-selftest
    [ -x "$T" ] || flunk "$T missing (run make)"
    D=$BATS_TEST_TMPDIR
}

# the probe names of the source table (probes.c: SYSCALL, SOCKET and OPT rows), in order
table_names() {
    sed -nE 's/^ +(SYSCALL|SOCKET|OPT)\("([^"]+)".*/\2/p' "$ESXDIAG_ROOT/tools/esxdiag-selftest/probes.c"
}

# the option names in the tools' calls of CALLS (an ERE of function names), one each
tool_options() {
    grep -rhoE "($1)\([^,]*, *[A-Z_0-9]+, *[A-Z_0-9]+" \
        "$ESXDIAG_ROOT/tools" "$ESXDIAG_ROOT/common" --include='*.c' --exclude-dir=esxdiag-selftest |
        sed -E 's/.*, *([A-Z_0-9]+)$/\1/' | sort -u
}

# one "name<TAB>result<TAB>errno" line per probe of a -J run on stdin
json_rows() {
    jq -r '.selftest.probes[] | [.name, .result, (.errno // "-")] | @tsv'
}

# the -J rows of a plain run in $D/plain; of a run with every CALL failing ERR (strace),
# which must still exit 0, in $D/inj, its JSON in $output
rows_refused() {
    "$T" -J | json_rows > "$D/plain"
    run strace -f -qq -o /dev/null -e trace="$1" -e inject="$1":error="$2" "$T" -J
    assert_status 0
    json_rows <<<"$output" > "$D/inj"
}

@test "selftest: every probe of the table is one row of the text and of -J, with a result; the summary adds up" {
    table_names > "$D/table"
    [ "$(wc -l < "$D/table")" -ge 50 ] || flunk "the table's rows were not read from probes.c: $(cat "$D/table")"
    [ "$(sort "$D/table" | uniq -d)" = "" ] || flunk "a probe twice: $(sort "$D/table" | uniq -d)"
    run "$T"
    assert_status 0
    local name n=0 line
    while IFS= read -r name; do
        line=$(grep -E "^$(sed 's/[][().*]/\\&/g' <<<"$name")  +(syscall|sockopt)  " <<<"$output") ||
            flunk "no row for '$name' in the text: $output"
        [[ "$line" =~ (syscall|sockopt)\ \ (works|refused\ E[A-Z0-9]+|refused:\ .+|not\ tried:\ .+)\ \ +[a-z] ]] ||
            flunk "row without a result and a fallback: $line"
        n=$((n + 1))
    done < "$D/table"
    [ "$(grep -cE '  (syscall|sockopt)  ' <<<"$output")" = "$n" ] || flunk "other rows than the table's: $output"
    local w r nt
    read -r w r nt < <(sed -nE 's/^summary: ([0-9]+) works, ([0-9]+) refused, ([0-9]+) not tried$/\1 \2 \3/p' <<<"$output")
    [ $((w + r + nt)) = "$n" ] || flunk "summary does not add up to $n: $(tail -1 <<<"$output")"
    run "$T" -J
    assert_status 0
    diff <(jq -r '.selftest.probes[].name' <<<"$output") "$D/table" || flunk "-J names differ from the table"
}

@test "selftest: the table covers the unconfirmed calls, build/syscalls.optional and every socket option the tools set" {
    table_names > "$D/table"
    local want missing=""
    # the calls whose support on ESXi is not confirmed
    for want in accept4 pipe2 dup3 openat "socket SOCK_CLOEXEC" "socket SOCK_NONBLOCK" getrandom \
        recvmmsg sendmmsg pthread_create clock_gettime sched_setaffinity sendfile \
        "socket SOCK_RAW ICMP" "socket SOCK_RAW ICMPv6" "IP_MTU_DISCOVER PMTUDISC_DO" \
        "IP_MTU_DISCOVER PMTUDISC_PROBE" "IPV6_MTU_DISCOVER PMTUDISC_PROBE" MSG_ZEROCOPY; do
        grep -qxF "$want" "$D/table" || missing+=" '$want'"
    done
    for want in $(grep -v '^#' "$ESXDIAG_ROOT/build/syscalls.optional" | awk 'NF { print $1 }'); do
        grep -qxF "$want" "$D/table" || missing+=" '$want' (build/syscalls.optional)"
    done
    # every option a tool sets (setsockopt, prober_setopt) has a row of its name;
    # every option it reads, a row "getsockopt NAME" or one of its own (TCP_INFO,
    # TCP_CONGESTION: options only ever read, or read first)
    local set read
    set=$(tool_options 'setsockopt|prober_setopt')
    read=$(tool_options getsockopt)
    [ "$(wc -w <<<"$set")" -ge 20 ] || flunk "only $(wc -w <<<"$set") options set by the tools: the pattern is wrong"
    [ "$(wc -w <<<"$read")" -ge 5 ] || flunk "only $(wc -w <<<"$read") options read by the tools: the pattern is wrong"
    for want in $set; do
        grep -qE "^$want( |\$)" "$D/table" || missing+=" '$want' (set by a tool)"
    done
    for want in $read; do
        grep -qxE "(getsockopt )?$want" "$D/table" || missing+=" '$want' (read by a tool)"
    done
    [ -z "$missing" ] || flunk "no probe for:$missing"
}

@test "selftest: a syscall made to fail under strace (ENOSYS) is refused ENOSYS in its own row, every other row as before" {
    command -v strace >/dev/null || skip "strace missing"
    "$T" -J | json_rows > "$D/plain"
    grep -q $'^accept4\tworks' "$D/plain" || skip "accept4 does not work here to begin with: $(grep accept4 "$D/plain")"
    # syscall:row:errno (musl's pthread_create says EAGAIN when clone fails)
    local c sc row err
    for c in accept4:accept4:ENOSYS pipe2:pipe2:ENOSYS dup3:dup3:ENOSYS openat:openat:ENOSYS \
        getrandom:getrandom:ENOSYS sendmmsg:sendmmsg:ENOSYS recvmmsg:recvmmsg:ENOSYS \
        sched_setaffinity:sched_setaffinity:ENOSYS sendfile:sendfile:ENOSYS prlimit64:prlimit64:ENOSYS \
        membarrier:membarrier:ENOSYS statx:statx:ENOSYS setpgid:setpgid:ENOSYS clone:pthread_create:EAGAIN; do
        IFS=: read -r sc row err <<<"$c"
        strace -f -qq -o /dev/null -e trace="$sc" -e inject="$sc":error=ENOSYS "$T" -J > "$D/inj.json" ||
            flunk "with $sc failing the tool did not exit 0"
        json_rows < "$D/inj.json" > "$D/inj"
        grep -qxF "$row"$'\trefused\t'"$err" "$D/inj" || flunk "$sc failing ENOSYS: row '$row' says $(grep -F "$row"$'\t' "$D/inj")"
        diff <(grep -vF "$row"$'\t' "$D/plain") <(grep -vF "$row"$'\t' "$D/inj") ||
            flunk "$sc failing ENOSYS changed other rows than '$row'"
    done
    # the text says it the same way
    run strace -f -qq -o /dev/null -e trace=accept4 -e inject=accept4:error=ENOSYS "$T"
    assert_status 0
    grep -qE '^accept4 +syscall +refused ENOSYS +esxperf' <<<"$output" || flunk "$output"
}

@test "selftest: every setsockopt failing ENOPROTOOPT under strace: each option row refused ENOPROTOOPT, the syscall rows as before" {
    command -v strace >/dev/null || skip "strace missing"
    rows_refused setsockopt ENOPROTOOPT
    local kinds; kinds=$(jq -r '.selftest.probes[] | [.name, .kind] | @tsv' <<<"$output")
    local name kind got bad=""
    while IFS=$'\t' read -r name kind; do
        got=$(grep -F "$name"$'\t' "$D/inj" | head -1 | cut -f2-)
        if [ "$kind" = syscall ]; then
            [ "$got" = "$(grep -F "$name"$'\t' "$D/plain" | head -1 | cut -f2-)" ] || bad+=$'\n'"$name: $got (syscall row changed)"
            continue
        fi
        case $name in
            TCP_INFO|getsockopt\ *) [ "$got" = $'works\t-' ] || bad+=$'\n'"$name: $got (getsockopt only: not affected)" ;;
            MSG_ZEROCOPY) [ "${got%%$'\t'*}" = not-tried ] || bad+=$'\n'"$name: $got (needs SO_ZEROCOPY first)" ;;
            *) [ "$got" = $'refused\tENOPROTOOPT' ] || bad+=$'\n'"$name: $got" ;;
        esac
    done <<<"$kinds"
    [ -z "$bad" ] || flunk "rows not as the injection makes them:$bad"
    run strace -f -qq -o /dev/null -e trace=setsockopt -e inject=setsockopt:error=ENOPROTOOPT "$T"
    assert_status 0
    grep -qE '^TCP_CONGESTION +sockopt +refused ENOPROTOOPT +esxperf -C' <<<"$output" || flunk "$output"
}

@test "selftest: every getsockopt failing EINVAL under strace: the rows that read an option refused EINVAL, every other row as before" {
    command -v strace >/dev/null || skip "strace missing"
    rows_refused getsockopt EINVAL
    local reads='^(getsockopt .*|TCP_INFO|TCP_CONGESTION)	'
    [ "$(grep -cE "$reads" "$D/inj")" -ge 6 ] || flunk "rows that read an option: $(grep -E "$reads" "$D/inj")"
    grep -E "$reads" "$D/inj" | grep -vP '\trefused\tEINVAL$' && flunk "a read row not refused EINVAL"
    diff <(grep -vE "$reads" "$D/plain") <(grep -vE "$reads" "$D/inj") || flunk "other rows changed"
}

@test "selftest -J: valid JSON (python3 and jq), the stable keys, results and errnos of the documented kinds" {
    run "$T" -J
    assert_status 0
    python3 -m json.tool <<<"$output" >/dev/null || flunk "python3 -m json.tool refuses it: $output"
    jq -e '.selftest | (.version | type == "string") and (.host | type == "string") and
        (.arch == "'"$(uname -m)"'") and (.kernel == "'"$(uname -r)"'") and (.root | type == "boolean")' <<<"$output" >/dev/null ||
        flunk "header keys: $(jq -c '.selftest | del(.probes)' <<<"$output")"
    jq -e '[.selftest.probes[] | (keys == ["detail", "errno", "fallback", "kind", "name", "result"])
            and (.kind == "syscall" or .kind == "sockopt")
            and (.result == "works" or .result == "refused" or .result == "not-tried")
            and ((.errno == null) or (.result == "refused" and (.errno | test("^E[A-Z0-9]+$"))))
            and ((.result != "not-tried") or (.detail | type == "string"))
            and (.fallback | length > 0)] | all' <<<"$output" >/dev/null ||
        flunk "probe rows: $(jq -c '.selftest.probes[]' <<<"$output" | head -5)"
    local s; s=$(jq -r '.selftest | [.summary.works, .summary.refused, .summary.not_tried,
        ([.probes[] | select(.result == "works")] | length), ([.probes[] | select(.result == "refused")] | length),
        ([.probes[] | select(.result == "not-tried")] | length)] | map(tostring) | join(" ")' <<<"$output")
    read -r a b c x y z <<<"$s"
    [ "$a $b $c" = "$x $y $z" ] || flunk "summary $a $b $c, rows $x $y $z"
}

@test "selftest: not root, raw sockets and forced buffers are not tried (needs root); the run still exits 0" {
    need_root
    command -v setpriv >/dev/null || skip "setpriv missing"
    run setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$T" -J
    assert_status 0
    [ "$(jq -r .selftest.root <<<"$output")" = false ] || flunk "root: $(jq .selftest.root <<<"$output")"
    local name
    for name in "socket SOCK_RAW ICMP" "socket SOCK_RAW ICMPv6" "socket SOCK_RAW IPPROTO_RAW" \
        "socket SOCK_RAW IPPROTO_RAW IPv6" IP_HDRINCL SO_RCVBUFFORCE SO_SNDBUFFORCE SO_BINDTODEVICE; do
        [ "$(jq -r --arg n "$name" '.selftest.probes[] | select(.name == $n) | "\(.result) \(.detail)"' <<<"$output")" = "not-tried needs root" ] ||
            flunk "$name not root: $(jq -c --arg n "$name" '.selftest.probes[] | select(.name == $n)' <<<"$output")"
    done
    # the unprivileged ones are still tried
    [ "$(jq -r '.selftest.probes[] | select(.name == "TCP_INFO") | .result' <<<"$output")" = works ] || flunk "TCP_INFO not tried"
    run setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$T"
    assert_status 0
    grep -qE '^IP_HDRINCL +sockopt +not tried: needs root +esxmtu' <<<"$output" || flunk "$output"
    assert_contains "not root (raw sockets not tried)"
}

@test "selftest: under a small descriptor limit a probe with no descriptor for its result is not tried (out of descriptors), never refused EMFILE or EBADF" {
    run bash -c 'ulimit -n 5 && exec "$0"' "$T"
    assert_status 0
    ! grep -E '  refused (EMFILE|ENFILE|EBADF)  ' <<<"$output" || flunk "a lack of descriptors read as a refusal: $output"
    grep -qE '^accept4  +syscall  not tried: out of descriptors ' <<<"$output" || flunk "accept4: $(grep '^accept4 ' <<<"$output")"
    grep -qE '^dup3  +syscall  not tried: out of descriptors ' <<<"$output" || flunk "dup3: $(grep '^dup3 ' <<<"$output")"
}

@test "selftest: a bad option or an operand is one line and exit 2; --help and --version exit 0; output that cannot be written exit 2" {
    local a
    for a in -x --bogus --json=1 extra; do
        run "$T" $a
        assert_status 2
        [ "${#lines[@]}" = 1 ] || flunk "$a: more than one line: $output"
        [[ "$output" == "esxdiag-selftest: "* ]] || flunk "$a: $output"
    done
    run "$T" -x
    assert_contains "unknown option -x"
    run "$T" extra
    assert_contains "unexpected argument 'extra'"
    # what is echoed from the command line is escaped
    run "$T" $'--b\e[2Jx'
    assert_status 2
    assert_contains 'unknown option --b\x1b[2Jx'
    run "$T" --json=1
    assert_contains "option --json takes no value"
    run "$T" --help
    assert_status 0
    assert_contains "Exit codes: 0"
    run "$T" --version
    assert_status 0
    assert_contains "esxdiag-selftest (esxdiag "
    run bash -c '"$1" >/dev/full' _ "$T"
    assert_status 2
    [ "$output" = "esxdiag-selftest: cannot write the results to stdout: No space left on device" ] || flunk "$output"
    run bash -c '"$1" --help >/dev/full' _ "$T"
    assert_status 2
    [ "$output" = "esxdiag-selftest: cannot write the help text to stdout: No space left on device" ] || flunk "$output"
    # stdout a pipe whose reader is gone: exit 2 and one line, not death by SIGPIPE
    run python3 -c 'import os, subprocess, sys
r, w = os.pipe()
os.close(r)
rc = subprocess.call(sys.argv[1:], stdout=w)
sys.exit(rc if rc >= 0 else 128 - rc)' "$T" -J
    assert_status 2
    [ "$output" = "esxdiag-selftest: cannot write the results to stdout: Broken pipe" ] || flunk "$output"
}

@test "selftest: syscall audit: within build/syscalls.allow and .optional, text and -J, and exits 0 with each optional one ENOSYS" {
    audit_syscalls "$T"
    [ "$AUDIT_RC" = 0 ] || flunk "exit $AUDIT_RC"
    # the probe makes optional calls on purpose: each must be one of the list
    [ -n "$AUDIT_OPTIONAL" ] || flunk "no optional syscall traced: the probes did not run"
    audit_enosys "$T"
    audit_syscalls "$T" -J
    audit_enosys "$T" -J
}

@test "selftest in the fleet report: a kit without the tool, no JSON, a step not run, refusals without errno (test/unit/fleet_selftest_test.py)" {
    run /usr/bin/python3 "$ESXDIAG_ROOT/test/unit/fleet_selftest_test.py"
    assert_status 0
    assert_contains "OK"
    [[ "$output" =~ Ran\ ([0-9]+)\ tests ]] && [ "${BASH_REMATCH[1]}" -ge 7 ] || flunk "too few tests: $output"
}
