#!/usr/bin/env bats
# The Makefile's promises about itself: a plain make installs nothing (a missing
# package is named, with make deps to run, and no apt-get or dpkg runs), make help
# lists the targets the Makefile declares public, and make check refuses a suite
# that does not exist. Each make runs in this tree and stops before building. And
# what it built: esxperf's stream/ files call each other in no circle
# (test/lib/stream-cycles.py over their objects). And make test's runner
# (test/run.sh): suites run two at a time, reported in order.
load ../lib/common

setup() {
    W=$(mktemp -d)
    # this make is not a sub-make of the one running the tests, nor does it take the
    # suite names of a make check that runs this suite
    unset MAKEFLAGS MAKELEVEL MFLAGS T U
}
teardown() { rm -rf "$W"; }

@test "make: a plain make with a package missing names it, says make deps, exits 2, and runs no apt-get or dpkg" {
    command -v strace >/dev/null || flunk "strace missing (make deps installs it)"
    local fake="esxdiag-no-such-package-$$"
    dpkg-query -W "$fake" >/dev/null 2>&1 && flunk "$fake is installed: pick another name"
    # the check passes on this machine as it is: the failure below is the fake package's
    run "$ESXDIAG_ROOT/build/deps.sh" --check build
    assert_status 0
    local stamp="$ESXDIAG_ROOT/.cache/mbedtls/built.stamp" before
    before=$(stat -c %Y.%s "$stamp")
    ESXDIAG_DEPS_EXTRA=$fake run strace -f -qq -e trace=execve -o "$W/exec" \
        make -C "$ESXDIAG_ROOT" --no-print-directory
    assert_status 2
    assert_contains "deps: cannot build with make: missing packages $fake (run 'make deps' as root"
    # what ran: the check's dpkg-query, and nothing that installs or downloads
    grep -q 'execve("[^"]*/dpkg-query"' "$W/exec" || flunk "the check did not run dpkg-query: $(cat "$W/exec")"
    if grep -E 'execve\("[^"]*/(apt-get|apt|dpkg|aptitude)"' "$W/exec"; then
        flunk "a plain make ran the package tools above"
    fi
    [ "$(stat -c %Y.%s "$stamp")" = "$before" ] || flunk "the failed check changed or removed $stamp"
}

@test "make help: one line for each public target (the first .PHONY line), each one make knows" {
    run make -C "$ESXDIAG_ROOT" --no-print-directory help
    assert_status 0
    local help=$output public targets t db
    public=$(sed -n 's/^\.PHONY: *//p' "$ESXDIAG_ROOT/Makefile" | head -n 1)
    [ -n "$public" ] || flunk "no .PHONY line in the Makefile"
    # the target column: "make", or "make TARGET [ARGS]", then two spaces or more
    targets=$(awk -F '  +' '$2 ~ /^make( |$)/ { split($2, w, " "); print (w[2] == "" ? "all" : w[2]) }' <<< "$help")
    for t in $public; do
        grep -qx "$t" <<< "$targets" || flunk "make help has no line for '$t' (first .PHONY line of the Makefile)"
    done
    # the reverse: every target the list names is public and one make has a rule for
    # (-q makes nothing; it exits 1, as help is never up to date)
    db=$(make -C "$ESXDIAG_ROOT" -pRrq --no-print-directory help 2>/dev/null || true)
    for t in $targets; do
        grep -qE "^$t:" <<< "$db" || flunk "make help lists '$t', which the Makefile has no rule for"
        [[ " $public " == *" $t "* ]] || flunk "make help lists '$t', which is not on the first .PHONY line"
    done
    # one line each, within 100 columns
    awk 'length > 100 { print "too long: " $0; bad = 1 } END { exit bad }' <<< "$help"
}

@test "make check: no T, or a T that is no suite, is refused with the list of suites (exit 2)" {
    run make -C "$ESXDIAG_ROOT" --no-print-directory check T=
    assert_status 2
    assert_contains "make check: no suite named (give T=NAME, one of: "
    assert_contains " esxmtu "
    run make -C "$ESXDIAG_ROOT" --no-print-directory check T="esxmtu nosuch$$"
    assert_status 2
    assert_contains "make check: T=nosuch$$: no such suite in test/integration"
    run make -C "$ESXDIAG_ROOT" --no-print-directory check-unit U="nosuch$$"
    assert_status 2
    assert_contains "make check-unit: U=nosuch$$: no unit test's name holds it"
}

@test "make: esxperf's stream/ files call each other in no circle (nm over the objects make built)" {
    local obj="$ESXDIAG_ROOT/out/obj/musl/tools/esxperf/stream"
    [ -f "$obj/stream.o" ] || flunk "$obj/stream.o missing: make builds it (make check does)"
    run python3 "$ESXDIAG_ROOT/test/lib/stream-cycles.py" "$ESXDIAG_ROOT/tools/esxperf/stream" "$obj"
    assert_status 0
}

@test "make: stream-cycles.py names a circle of two files and exits 1" {
    mkdir "$W/src" "$W/obj"
    printf 'int b(int);\nint a(int n) { return n ? b(n - 1) : 0; }\n' >"$W/src/a.c"
    printf 'int a(int);\nint b(int n) { return n ? a(n - 1) : 1; }\n' >"$W/src/b.c"
    printf 'int a(int);\nint c(int n) { return a(n); }\n' >"$W/src/c.c"
    for f in a b c; do gcc -c -o "$W/obj/$f.o" "$W/src/$f.c" || flunk "gcc -c $f.c"; done
    run python3 "$ESXDIAG_ROOT/test/lib/stream-cycles.py" "$W/src" "$W/obj"
    assert_status 1
    assert_contains "circle: a.c b.c (a -> b; b -> a)"
    [[ "$output" != *c.c* ]] || flunk "c.c calls into the circle but is not in it: $output"
}

# two suites of the test's own, each row of one waiting (bounded, 10 s) for the other's:
# they pass only when the runner runs them at the same time; b ends first and its line
# still comes second, after a's
@test "make test's runner: TEST_JOBS=2 runs two suites at once, prints them in the order given with their seconds, counts a failure" {
    # (@test spelled through a variable: bats would rewrite it here, in a here-document)
    local d=$W/suites v at=@test
    mkdir -p "$d" "$W/log"
    cat > "$d/a_waits.bats" <<BATS
$at "a meets b, then waits for b's suite to end" {
    touch "$W/a"
    for i in \$(seq 1 100); do [ -e "$W/b" ] && break; sleep 0.1; done
    [ -e "$W/b" ]
    for i in \$(seq 1 100); do [ -e "$W/log/b_meets.done" ] && return 0; sleep 0.1; done
    false
}
BATS
    cat > "$d/b_meets.bats" <<BATS
$at "b meets a" {
    touch "$W/b"
    for i in \$(seq 1 100); do [ -e "$W/a" ] && return 0; sleep 0.1; done
    false
}
$at "b fails" { false; }
BATS
    # the runner as make runs it: none of this bats run's variables
    local -a unset=()
    for v in $(compgen -e | grep '^BATS_'); do unset+=(-u "$v"); done
    run env "${unset[@]}" TEST_DIR="$d" TEST_LOG="$W/log" TEST_JOBS=2 "$ESXDIAG_ROOT/test/run.sh" bats a_waits b_meets
    assert_status 1
    [ "${lines[0]}" = "== integration tests (bats, 2 suites at a time)" ] || flunk "$output"
    [[ "${lines[1]}" =~ ^\ +a_waits\ +1\ ok\ \(0\ skipped\),\ 0\ failed\ \([0-9]+s\)$ ]] || flunk "$output"
    [[ "${lines[2]}" =~ ^\ +b_meets\ +1\ ok\ \(0\ skipped\),\ 1\ failed\ \([0-9]+s\)$ ]] || flunk "$output"
    [ "${lines[3]}" = "== failures" ] || flunk "$output"
    [ "${lines[4]}" = "   b_meets: 2 b fails" ] || flunk "$output"
    [ "${lines[5]}" = "2 passed, 1 failed, 0 skipped" ] || flunk "$output"
}

@test "make test from a clone in a private folder (mode 700, as mktemp -d or /root): the unprivileged audit step still runs" {
    [ "$(id -u)" = 0 ] || skip "needs root (the step runs as nobody)"
    command -v setpriv >/dev/null || flunk "setpriv missing"
    command -v strace >/dev/null || flunk "strace missing (make deps installs it)"
    local priv; priv=$(mktemp -d)
    [ "$(stat -c %a "$priv")" = 700 ] || flunk "mktemp -d made mode $(stat -c %a "$priv")"
    git clone -q --depth 1 "file://$ESXDIAG_ROOT" "$priv/clone" || flunk "git clone failed"
    # this tree's versions of what the step reads, as a commit of it would have them
    cp "$ESXDIAG_ROOT/test/lib/audit.bash" "$priv/clone/test/lib/"
    cp "$ESXDIAG_ROOT"/build/syscalls.allow "$ESXDIAG_ROOT"/build/syscalls.optional "$priv/clone/build/"
    mkdir -p "$priv/clone/out/bin" && cp "$BIN/esxpart" "$priv/clone/out/bin/"
    truncate -s 1M "$W/disk.img"; chmod 755 "$W"; chmod 644 "$W/disk.img"
    # what the step did before: nobody cannot read the clone
    run setpriv --reuid=nobody --regid=nogroup --clear-groups bash -c \
        'source "$1/test/lib/audit.bash"' _ "$priv/clone"
    [ "$status" -ne 0 ] && [[ "$output" == *"Permission denied"* ]] || { rm -rf "$priv"; flunk "nobody read the private clone: $status $output"; }
    # the step as the suites run it: from a readable copy
    run bash -c 'ESXDIAG_ROOT=$1; source "$1/test/lib/audit.bash";
        audit_as_nobody -- "$1/out/bin/esxpart" -u "$2"' _ "$priv/clone" "$W/disk.img"
    rm -rf "$priv"
    assert_status 0
    assert_not_contains "Permission denied"
}
