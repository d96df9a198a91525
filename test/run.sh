#!/bin/bash
# The test runner: unit tests (cmocka under ASan+UBSan), integration tests (bats on the
# real static binaries), fuzz smoke runs (each libFuzzer target briefly on its corpus).
# Ends with one line "N passed, N failed, N skipped" and exits non-zero on any failure.
#   test/run.sh                 make test: every unit test, then every suite, two at a
#                               time (TEST_JOBS=N), beside them the fuzz runs
#   test/run.sh unit NAME...    make check-unit: those unit tests (out/test/unit/NAME)
#   test/run.sh bats SUITE...   make check T=...: those suites (test/integration/SUITE.bats),
#                               one at a time (TEST_JOBS=N: N at a time)
set -u
cd "$(dirname "$0")/.." || exit 2
ROOT=$(pwd)
export ESXDIAG_ROOT=$ROOT ESXDIAG_BIN=$ROOT/out/bin
# the aarch64 build (make test builds it too): aarch64.bats, binaries.bats and dist.bats
# run it under qemu-aarch64-static
export ESXDIAG_BIN_AARCH64=$ROOT/out/aarch64/bin
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:strict_string_checks=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# where the TAP and the .done files go, and where `bats SUITE` finds SUITE.bats
# (TEST_LOG, TEST_DIR: for make.bats, which runs this runner on suites of its own)
LOG=${TEST_LOG:-$ROOT/out/test-log}
SUITE_DIR=${TEST_DIR:-test/integration}
mkdir -p "$LOG"
passed=0 failed=0 skipped=0
failures=()

# count TAP lines of one run; a crash with no "not ok" still counts as a failure
tap_count() { # $1 = name, $2 = exit code, $3 = tap file
    local ok nok skip
    ok=$(grep -cE '^ok ' "$3")
    nok=$(grep -cE '^not ok ' "$3")
    # a skipped test (bats "ok N name # skip reason") is counted apart, never as passed
    skip=$(grep -ciE '^ok .* # skip' "$3")
    skipped=$((skipped + skip))
    passed=$((passed + ok - skip))
    failed=$((failed + nok))
    if [ "$nok" -gt 0 ]; then
        while IFS= read -r l; do failures+=("$1: ${l#not ok }"); done < <(grep -E '^not ok ' "$3" | sed -E 's/ in [0-9]+ms$//')
    elif [ "$2" -ne 0 ] || [ "$ok" -eq 0 ]; then
        failed=$((failed + 1))
        failures+=("$1: exited $2 (see $3)")
    fi
}

# run_unit PATH...: each unit test binary, one line each
run_unit() {
    local t name rc
    echo "== unit tests (ASan + UBSan)"
    for t in "$@"; do
        [ -x "$t" ] || continue
        name=$(basename "$t")
        CMOCKA_MESSAGE_OUTPUT=TAP timeout 300 "$t" > "$LOG/$name.tap" 2>&1
        rc=$?
        tap_count "$name" "$rc" "$LOG/$name.tap"
        printf '   %-32s %s\n' "$name" "$(grep -cE '^ok ' "$LOG/$name.tap") ok, $(grep -cE '^not ok ' "$LOG/$name.tap") failed"
    done
}

# bats_one FILE: one suite; its TAP into $LOG/NAME.tap, then "EXIT SECONDS" into
# $LOG/NAME.done (written last: a suite is finished when its .done exists)
bats_one() {
    local name start rc
    name=$(basename "$1" .bats)
    start=$(date +%s)
    # the suite gets no copy of the pipe: a tool under test sees only its own files
    # -T: each row's milliseconds at the end of its line (slowest_rows reads them)
    timeout 1800 bats --tap -T "$1" > "$LOG/$name.tap" 2>&1 {DONE_FD}>&-
    rc=$?
    echo "$rc $(( $(date +%s) - start ))" > "$LOG/$name.done"
    echo "$name" >&"$DONE_FD"
}

# fuzz_one: the fuzz smoke (test/lib/fuzz.sh, 20 s a target on a fresh copy of each
# corpus) into $LOG/fuzz.txt and $LOG/<target>.log; $LOG/fuzz.done when finished
fuzz_one() {
    local fuzzroot name
    fuzzroot=$(mktemp -d)
    test/lib/fuzz.sh 20 "$fuzzroot" > "$LOG/fuzz.txt" {DONE_FD}>&-
    for name in "$fuzzroot"/*/; do
        name=$(basename "$name")
        cp "$fuzzroot/$name/last.log" "$LOG/$name.log" 2>/dev/null
    done
    rm -rf "$fuzzroot"
    echo 0 > "$LOG/fuzz.done"
    echo fuzz >&"$DONE_FD"
}

# done_pipe: DONE_FD, a pipe (a FIFO opened read-write, then unlinked) on which each
# finished suite and the fuzz smoke write their name: the runner reads it to start
# the next suite at once, without polling
done_pipe() {
    local fifo
    fifo=$(mktemp -u "${TMPDIR:-/tmp}/esxdiag-run.XXXXXX")
    mkfifo -m 600 "$fifo" || exit 2
    exec {DONE_FD}<>"$fifo"
    rm -f "$fifo"
}

# run_bats JOBS FILE...: the suites, JOBS of them at a time (and the fuzz smoke in
# one of those places while it runs, when started before), one line each with its
# seconds, printed in the order given as soon as it and those before it are done.
# Suites that run together share nothing by name: namespaces, links and files carry
# the suite's pid ($$) or a mktemp name, test ports come from free_port.
run_bats() {
    local jobs=$1 f name rc secs n started=0 shown=0 running
    shift
    local names=() files=()
    [ -n "${DONE_FD:-}" ] || done_pipe
    for f in "$@"; do
        [ -f "$f" ] || continue
        name=$(basename "$f" .bats)
        rm -f "$LOG/$name.done"
        names+=("$name") files+=("$f")
    done
    if [ "$jobs" -gt 1 ]; then
        echo "== integration tests (bats, $jobs suites at a time)"
    else
        echo "== integration tests (bats)"
    fi
    n=${#files[@]}
    while [ "$shown" -lt "$n" ]; do
        # what runs now: the suites started and not done, and the fuzz smoke
        running=0
        for ((f = 0; f < started; f++)); do
            [ -f "$LOG/${names[f]}.done" ] || running=$((running + 1))
        done
        [ -n "${FUZZ_PID:-}" ] && [ ! -f "$LOG/fuzz.done" ] && running=$((running + 1))
        if [ "$started" -lt "$n" ] && [ "$running" -lt "$jobs" ]; then
            bats_one "${files[started]}" &
            started=$((started + 1))
            continue
        fi
        # print every finished suite at the head of the list, in order
        while [ "$shown" -lt "$started" ] && [ -f "$LOG/${names[shown]}.done" ]; do
            name=${names[shown]}
            read -r rc secs < "$LOG/$name.done"
            tap_count "$name" "$rc" "$LOG/$name.tap"
            printf '   %-32s %s (%ss)\n' "$name" "$(grep -cE '^ok ' "$LOG/$name.tap") ok ($(grep -ciE '^ok .* # skip' "$LOG/$name.tap") skipped), $(grep -cE '^not ok ' "$LOG/$name.tap") failed" "$secs"
            shown=$((shown + 1))
        done
        [ "$shown" -lt "$n" ] || break
        # until a suite or the fuzz smoke says it is done (the pipe keeps what was
        # said before this read); 60 s bounds the wait should one die unheard
        read -r -t 60 -u "$DONE_FD" _
    done
}

# slowest_rows SUITE...: the ten slowest rows of these suites' last runs, from the
# milliseconds bats -T wrote at the end of each TAP line
slowest_rows() {
    local n
    echo "== the ten slowest rows"
    for n in "$@"; do
        [ -f "$LOG/$n.tap" ] || continue
        sed -nE "s/^(not )?ok [0-9]+ (.*) in ([0-9]+)ms( # skip.*)?$/\3 $n: \2/p" "$LOG/$n.tap"
    done | sort -rn | head -n 10 | awk '{ ms = $1; $1 = ""; printf "   %6.1fs %s\n", ms / 1000, substr($0, 2) }'
}

# fuzz_report: the fuzz smoke's rows (fuzz_one has finished), one line a target
fuzz_report() {
    local name execs cov res
    echo "== fuzz smoke runs (libFuzzer, corpus + 20 s each)"
    while read -r name execs cov _ res _; do
        [ "$name" = target ] && continue
        if [ "$res" = ok ]; then
            passed=$((passed + 1)); printf '   %-32s ok (%s execs, cov: %s)\n' "$name" "$execs" "$cov"
        else
            failed=$((failed + 1)); failures+=("$name: libFuzzer failed (see $LOG/$name.log)")
            printf '   %-32s FAILED\n' "$name"
        fi
    done < "$LOG/fuzz.txt"
}

# a name asked for that is not there is a failure, not a silent pass
need() { # PATH NAME
    [ -e "$1" ] && return 0
    failed=$((failed + 1)); failures+=("$2: not found ($1)")
    return 1
}

case ${1:-} in
"")
    run_unit out/test/unit/*_test
    # two suites at a time (TEST_JOBS=N for another count): most of a suite's time is
    # waiting on peers, timeouts and namespaces, not CPU; the fuzz smoke takes one of
    # the two places while it runs
    rm -f "$LOG/fuzz.done"
    done_pipe
    fuzz_one &
    FUZZ_PID=$!
    run_bats "${TEST_JOBS:-2}" "$SUITE_DIR"/*.bats
    wait "$FUZZ_PID"
    fuzz_report
    suites=("$SUITE_DIR"/*.bats)
    suites=("${suites[@]##*/}")
    slowest_rows "${suites[@]%.bats}"
    ;;
unit | bats)
    kind=$1; shift
    [ $# -gt 0 ] || { echo "run.sh: $kind: name at least one (see make help)" >&2; exit 2; }
    paths=()
    for n in "$@"; do
        if [ "$kind" = unit ]; then p=out/test/unit/$n; else p=$SUITE_DIR/$n.bats; fi
        need "$p" "$n" && paths+=("$p")
    done
    # suites one at a time unless TEST_JOBS says otherwise
    if [ "$kind" = unit ]; then run_unit "${paths[@]}"; else run_bats "${TEST_JOBS:-1}" "${paths[@]}"; fi
    ;;
*)
    echo "run.sh: '$1': not unit or bats (test/run.sh [unit NAME... | bats SUITE...])" >&2
    exit 2
    ;;
esac

if [ ${#failures[@]} -gt 0 ]; then
    echo "== failures"
    printf '   %s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
