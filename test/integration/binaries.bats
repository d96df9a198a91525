#!/usr/bin/env bats
# Every tool of every architecture's build (x86_64 in out/bin, aarch64 in
# out/aarch64/bin), whatever tools exist when the test runs: a static, stripped ELF of
# that machine without a dynamic section; --version names the toolkit version, the
# commit, the architecture, musl, and exactly the libraries the linker put in (read
# from the link map beside the objects); --help exits 0 with the exit codes; a leading
# ++key=value word (VMkernel launch argument) is skipped. Sizes are printed.
# aarch64 binaries run under qemu-aarch64-static (make test builds them).
load ../lib/common

VERSION=$(sed -n 's/^VERSION *:= *//p' "$ESXDIAG_ROOT/Makefile")
ARCHES="x86_64 aarch64"

bindir() { # ARCH
    case $1 in
        x86_64) echo "$BIN" ;;
        aarch64) echo "${ESXDIAG_BIN_AARCH64:-$ESXDIAG_ROOT/out/aarch64/bin}" ;;
    esac
}
machine() { case $1 in x86_64) echo 'Advanced Micro Devices X86-64' ;; aarch64) echo AArch64 ;; esac; }
# run one binary of ARCH on this machine
on() { # ARCH BIN ARGS...
    if [ "$1" = "$(uname -m)" ]; then "${@:2}"; else "qemu-$1-static" "${@:2}"; fi
}
tools() { # ARCH
    find "$(bindir "$1")" -maxdepth 1 -type f -perm -u+x 2>/dev/null | sort
}
need_tools() {
    [ -n "$(tools x86_64)" ] || skip "no tools in $BIN yet (run make)"
    [ -n "$(tools aarch64)" ] || flunk "no tools in $(bindir aarch64) (run make ARCH=aarch64; make test builds both)"
}

@test "binaries: sizes" {
    need_tools
    local a b size total
    for a in $ARCHES; do
        total=0
        for b in $(tools "$a"); do
            size=$(wc -c < "$b")
            total=$((total + size))
            printf '# %-8s %-10s %8d bytes (%d KiB)\n' "$a" "$(basename "$b")" "$size" $(( (size + 1023) / 1024 )) >&3
            [ "$size" -gt 0 ] && [ "$size" -lt 4194304 ] || flunk "$b: $size bytes (expected under 4 MiB)"
        done
        printf '# %-8s %-10s %8d bytes\n' "$a" total "$total" >&3
    done
}

@test "binaries: static ELF of their architecture, no PT_INTERP, no dynamic section, stripped" {
    need_tools
    local a b t
    for a in $ARCHES; do
        for b in $(tools "$a"); do
            t="$a/$(basename "$b")"
            run readelf -h "$b"
            assert_status 0
            [[ "$output" == *"ELF64"* && "$output" == *"Machine:"*"$(machine "$a")"* ]] ||
                flunk "$t: not an $a ELF64"
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
    done
}

# the part of a link map after the discarded sections: what is in the binary
kept() { sed -n '/^Linker script and memory map/,$p' "$1"; }

@test "binaries: --version names the version, commit, architecture, musl, and only the libraries linked in" {
    need_tools
    local a b t map musl mbed jsmn libs n_mbed=0
    mbed=$(cat "$ESXDIAG_ROOT/.cache/mbedtls/version")
    jsmn=$(sed -n 's/^#define ESXDIAG_JSMN_VERSION "\(.*\)"$/\1/p' "$ESXDIAG_ROOT/.cache/include/jsmn_version.h")
    [ -n "$mbed" ] && [ -n "$jsmn" ] || flunk "no mbedtls/jsmn version in .cache"
    for a in $ARCHES; do
        case $a in
            x86_64) musl=$(cat "$ESXDIAG_ROOT/.cache/musl.version") ;;
            *) musl=$(cat "$ESXDIAG_ROOT/.cache/musl-$a/version") ;;
        esac
        [ -n "$musl" ] || flunk "no musl version for $a in .cache"
        for b in $(tools "$a"); do
            t=$(basename "$b")
            run on "$a" "$b" --version
            assert_status 0
            [[ "${lines[0]}" =~ ^$t\ \(esxdiag\ $VERSION,\ commit\ [0-9a-f]{7,40}(-dirty)?\)$ ]] ||
                flunk "$a/$t --version first line: $output"
            # the libraries the linker kept: mbedtls code, jsmn's parser (in jsonr.o)
            map=$(dirname "$(dirname "$b")")/obj/musl/$t.map
            [ -f "$map" ] || flunk "no link map $map (make writes it beside the objects)"
            libs=''
            kept "$map" | grep -q '^ *\.text\.mbedtls_' && { libs="$libs, mbedtls $mbed"; n_mbed=$((n_mbed + 1)); }
            kept "$map" | grep -q '^ *\.text\.jsmn_parse' && libs="$libs, jsmn $jsmn"
            [ "${lines[1]}" = "built for $a with musl $musl$libs" ] ||
                flunk "$a/$t --version second line: '${lines[1]}', the link map says: 'built for $a with musl $musl$libs'"
            [ "${#lines[@]}" = 2 ] || flunk "$a/$t --version: ${#lines[@]} lines: $output"
        done
    done
    # esxperf's authentication links mbedtls, in each architecture's build
    [ "$n_mbed" -ge 2 ] || flunk "mbedtls found in $n_mbed link maps (esxperf has it)"
}

@test "binaries: --help exits 0, starts with usage and lists the exit codes" {
    need_tools
    local a b t
    for a in $ARCHES; do
        for b in $(tools "$a"); do
            t="$a/$(basename "$b")"
            run on "$a" "$b" --help
            [ "$status" -eq 0 ] || flunk "$t --help exited $status"
            [[ "${lines[0]}" == usage:* ]] || flunk "$t --help does not start with usage: ${lines[0]}"
            [[ "${output,,}" == *"exit codes"* ]] || flunk "$t --help does not mention the exit codes"
            [[ "${output,,}" == *"example"* ]] || flunk "$t --help has no examples"
        done
    done
}

@test "binaries: a leading ++group=host/vim/tmp word is skipped" {
    need_tools
    local a b t want
    for a in $ARCHES; do
        for b in $(tools "$a"); do
            t="$a/$(basename "$b")"
            want=$(on "$a" "$b" --version)
            run on "$a" "$b" ++group=host/vim/tmp --version
            [ "$status" -eq 0 ] || flunk "$t ++group=... --version exited $status: $output"
            [ "$output" = "$want" ] || flunk "$t ++group=... --version printed: $output"
            run on "$a" "$b" ++group=host/vim/tmp ++netstack=defaultTcpipStack --help
            [ "$status" -eq 0 ] || flunk "$t with two ++ words exited $status"
        done
    done
}

@test "binaries: an unknown option is a usage error (exit 2)" {
    need_tools
    local a b
    for a in $ARCHES; do
        for b in $(tools "$a"); do
            run on "$a" "$b" --no-such-option-here
            [ "$status" -eq 2 ] || flunk "$a/$(basename "$b") --no-such-option-here exited $status"
        done
    done
}
