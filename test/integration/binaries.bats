#!/usr/bin/env bats
# Every tool in out/bin, whatever tools exist when the test runs: a static,
# stripped x86_64 ELF without a dynamic section; --version names the toolkit
# version, the commit, musl and mbedtls; --help exits 0 with the exit codes; a
# leading ++key=value word (VMkernel launch argument) is skipped. Sizes are printed.
load ../lib/common

VERSION=$(sed -n 's/^VERSION *:= *//p' "$ESXDIAG_ROOT/Makefile")

tools() {
    find "$BIN" -maxdepth 1 -type f -perm -u+x 2>/dev/null | sort
}
need_tools() {
    [ -n "$(tools)" ] || skip "no tools in $BIN yet (run make)"
}

@test "binaries: sizes" {
    need_tools
    total=0
    for b in $(tools); do
        size=$(wc -c < "$b")
        total=$((total + size))
        printf '# %-10s %8d bytes (%d KiB)\n' "$(basename "$b")" "$size" $(( (size + 1023) / 1024 )) >&3
        [ "$size" -gt 0 ] && [ "$size" -lt 4194304 ] || flunk "$b: $size bytes (expected under 4 MiB)"
    done
    printf '# %-10s %8d bytes\n' total "$total" >&3
}

@test "binaries: static x86_64 ELF, no PT_INTERP, no dynamic section, stripped" {
    need_tools
    for b in $(tools); do
        t=$(basename "$b")
        run readelf -h "$b"
        assert_status 0
        [[ "$output" == *"ELF64"* && "$output" == *"Advanced Micro Devices X86-64"* ]] ||
            flunk "$t: not an x86_64 ELF64"
        [[ "$output" == *"EXEC (Executable file)"* ]] || flunk "$t: not ET_EXEC (static-pie or shared?)"
        run readelf -lW "$b"
        assert_status 0
        [[ "$output" != *INTERP* ]] || flunk "$t: has PT_INTERP (dynamically linked)"
        [[ "$output" != *DYNAMIC* ]] || flunk "$t: has PT_DYNAMIC"
        run readelf -d "$b"
        [[ "$output" == *"There is no dynamic section"* ]] || flunk "$t: has a dynamic section: $output"
        run readelf -SW "$b"
        assert_status 0
        [[ "$output" != *.symtab* ]] || flunk "$t: not stripped (.symtab)"
        [[ "$output" != *.debug_* ]] || flunk "$t: has debug sections"
    done
}

@test "binaries: --version names the toolkit version, the commit, musl and mbedtls" {
    need_tools
    musl=$(cat "$ESXDIAG_ROOT/.cache/musl.version")
    mbed=$(cat "$ESXDIAG_ROOT/.cache/mbedtls/version")
    [ -n "$musl" ] && [ -n "$mbed" ] || flunk "no musl/mbedtls version in .cache"
    for b in $(tools); do
        t=$(basename "$b")
        run "$b" --version
        assert_status 0
        [[ "$output" =~ ^$t\ \(esxdiag\ $VERSION,\ commit\ [0-9a-f]{7,40}(-dirty)?\) ]] ||
            flunk "$t --version first line: $output"
        assert_contains "musl $musl"
        assert_contains "mbedtls $mbed"
    done
}

@test "binaries: --help exits 0, starts with usage and lists the exit codes" {
    need_tools
    for b in $(tools); do
        t=$(basename "$b")
        run "$b" --help
        [ "$status" -eq 0 ] || flunk "$t --help exited $status"
        [[ "${lines[0]}" == usage:* ]] || flunk "$t --help does not start with usage: ${lines[0]}"
        [[ "${output,,}" == *"exit codes"* ]] || flunk "$t --help does not mention the exit codes"
        [[ "${output,,}" == *"example"* ]] || flunk "$t --help has no examples"
    done
}

@test "binaries: a leading ++group=host/vim/tmp word is skipped" {
    need_tools
    for b in $(tools); do
        t=$(basename "$b")
        want=$("$b" --version)
        run "$b" ++group=host/vim/tmp --version
        [ "$status" -eq 0 ] || flunk "$t ++group=... --version exited $status: $output"
        [ "$output" = "$want" ] || flunk "$t ++group=... --version printed: $output"
        run "$b" ++group=host/vim/tmp ++netstack=defaultTcpipStack --help
        [ "$status" -eq 0 ] || flunk "$t with two ++ words exited $status"
    done
}

@test "binaries: an unknown option is a usage error (exit 2)" {
    need_tools
    for b in $(tools); do
        run "$b" --no-such-option-here
        [ "$status" -eq 2 ] || flunk "$(basename "$b") --no-such-option-here exited $status"
    done
}
