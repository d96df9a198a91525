#!/bin/bash
# The test runner: unit tests (cmocka under ASan+UBSan), integration tests (bats on the
# real static binaries), fuzz smoke runs (each libFuzzer target briefly on its corpus).
# Ends with one line "N passed, N failed, N skipped" and exits non-zero on any failure.
#   test/run.sh                 make test: every unit test, every suite, the fuzz runs
#   test/run.sh unit NAME...    make check-unit: those unit tests (out/test/unit/NAME)
#   test/run.sh bats SUITE...   make check T=...: those suites (test/integration/SUITE.bats)
set -u
cd "$(dirname "$0")/.." || exit 2
ROOT=$(pwd)
export ESXDIAG_ROOT=$ROOT ESXDIAG_BIN=$ROOT/out/bin
# the aarch64 build (make test builds it too): aarch64.bats, binaries.bats and dist.bats
# run it under qemu-aarch64-static
export ESXDIAG_BIN_AARCH64=$ROOT/out/aarch64/bin
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:strict_string_checks=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
LOG=$ROOT/out/test-log
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
        while IFS= read -r l; do failures+=("$1: ${l#not ok }"); done < <(grep -E '^not ok ' "$3")
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

# run_bats FILE...: each bats suite, one line each with its seconds
run_bats() {
    local f name start rc
    echo "== integration tests (bats)"
    for f in "$@"; do
        [ -f "$f" ] || continue
        name=$(basename "$f" .bats)
        start=$(date +%s)
        timeout 1800 bats --tap "$f" > "$LOG/$name.tap" 2>&1
        rc=$?
        tap_count "$name" "$rc" "$LOG/$name.tap"
        printf '   %-32s %s (%ss)\n' "$name" "$(grep -cE '^ok ' "$LOG/$name.tap") ok ($(grep -ciE '^ok .* # skip' "$LOG/$name.tap") skipped), $(grep -cE '^not ok ' "$LOG/$name.tap") failed" "$(( $(date +%s) - start ))"
    done
}

run_fuzz() {
    local fuzzroot name execs cov res
    echo "== fuzz smoke runs (libFuzzer, corpus + 20 s each)"
    fuzzroot=$(mktemp -d)
    test/lib/fuzz.sh 20 "$fuzzroot" > "$LOG/fuzz.txt"
    while read -r name execs cov _ res _; do
        [ "$name" = target ] && continue
        cp "$fuzzroot/$name/last.log" "$LOG/$name.log" 2>/dev/null
        if [ "$res" = ok ]; then
            passed=$((passed + 1)); printf '   %-32s ok (%s execs, cov: %s)\n' "$name" "$execs" "$cov"
        else
            failed=$((failed + 1)); failures+=("$name: libFuzzer failed (see $LOG/$name.log)")
            printf '   %-32s FAILED\n' "$name"
        fi
    done < "$LOG/fuzz.txt"
    rm -rf "$fuzzroot"
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
    run_bats test/integration/*.bats
    run_fuzz
    ;;
unit | bats)
    kind=$1; shift
    [ $# -gt 0 ] || { echo "run.sh: $kind: name at least one (see make help)" >&2; exit 2; }
    paths=()
    for n in "$@"; do
        if [ "$kind" = unit ]; then p=out/test/unit/$n; else p=test/integration/$n.bats; fi
        need "$p" "$n" && paths+=("$p")
    done
    if [ "$kind" = unit ]; then run_unit "${paths[@]}"; else run_bats "${paths[@]}"; fi
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
