#!/usr/bin/env bats
# make dist: the kit tarball. Built twice from the committed HEAD, each time in a
# fresh `git clone` of this repository: the second clone has every file's mtime
# moved to another date, another TMPDIR, umask and TZ. Both tarballs must be the
# same bytes. The checks on contents, binaries and SHA256SUMS use the first.
# (Uncommitted work in this tree is not in the tarball: that is the point.)
load ../lib/common

VERSION=$(sed -n 's/^VERSION *:= *//p' "$ESXDIAG_ROOT/Makefile")
TOP=esxdiag-$VERSION

# clone_build DIR UMASK TZ [DATE]: clone HEAD into DIR, make dist there
clone_build() {
    local dir=$1 um=$2 tz=$3 date=${4:-}
    git clone -q "$ESXDIAG_ROOT" "$dir" || return 1
    # dependency cache: copies (deps.sh may rewrite them), the mbedtls source read-only
    mkdir -p "$dir/.cache" "$dir.tmp"
    cp -a "$ESXDIAG_ROOT/.cache/mbedtls" "$ESXDIAG_ROOT/.cache/include" \
        "$ESXDIAG_ROOT/.cache/musl.version" "$dir/.cache/"
    [ -d "$ESXDIAG_ROOT/.cache/src" ] && ln -s "$ESXDIAG_ROOT/.cache/src" "$dir/.cache/src"
    # a tree without any tool yet gets a throwaway one, in the clone only
    if ! ls "$dir"/tools/*/main.c >/dev/null 2>&1; then
        mkdir -p "$dir/tools/esxdisttest"
        printf '%s\n' '#include "args.h"' '#include "version.h"' \
            'const char tool_name[] = "esxdisttest";' \
            'int main(int argc, char **argv) { argc = args_strip_vmk(argc, &argv); (void)argc; version_print(); return 0; }' \
            > "$dir/tools/esxdisttest/main.c"
        echo "# note: HEAD has no tools: using a throwaway test tool in the clone" >> "$W/notes"
    fi
    if [ ! -f "$dir/README.md" ]; then
        echo "stand-in: README.md is not committed yet" > "$dir/README.md"
        echo "# note: README.md is not committed: a stand-in was used in the clone" >> "$W/notes"
    fi
    (
        cd "$dir" || exit 1
        umask "$um"
        export TZ=$tz TMPDIR=$dir.tmp
        unset SOURCE_DATE_EPOCH MAKEFLAGS MAKELEVEL MFLAGS
        if [ -n "$date" ]; then
            find . -path ./.git -prune -o -exec touch -h -d "$date" {} +
        fi
        make -j2 dist
    ) > "$dir.log" 2>&1 || { tail -n 30 "$dir.log" >&2; return 1; }
}

setup_file() {
    export W; W=$(mktemp -d)
    : > "$W/notes"
    local t0 t1 t2
    t0=$(date +%s%N)
    clone_build "$W/a" 022 UTC
    t1=$(date +%s%N)
    clone_build "$W/b" 077 Asia/Tokyo "2031-07-04 12:34:56"
    t2=$(date +%s%N)
    export DIST_A=$W/a/dist/$TOP-x86_64.tar.gz DIST_B=$W/b/dist/$TOP-x86_64.tar.gz
    printf '# dist: clone + make dist: first %d ms, second (other mtimes/umask/TMPDIR/TZ) %d ms\n' \
        $(( (t1 - t0) / 1000000 )) $(( (t2 - t1) / 1000000 )) >> "$W/notes"
    mkdir -p "$W/x"
    tar -xzf "$DIST_A" -C "$W/x"
}

teardown_file() {
    rm -rf "$W"
}

@test "dist: the commit holds what the tarball ships (README.md, NOTICE, LICENSE, esxi/)" {
    for f in README.md NOTICE LICENSE esxi/README esxi/prepare.sh esxi/cleanup.sh esxi/hostcli.sh build/dist.sh; do
        git -C "$ESXDIAG_ROOT" cat-file -e "HEAD:$f" 2>/dev/null || flunk "$f is not committed"
    done
}

@test "dist: one top folder $TOP/ holding bin/, esxi/, docs, licenses and SHA256SUMS" {
    [ -f "$DIST_A" ] || flunk "no $DIST_A"
    run tar -tzf "$DIST_A"
    assert_status 0
    bad=$(printf '%s\n' "$output" | grep -v "^$TOP/" || true)
    [ -z "$bad" ] || flunk "entries outside $TOP/: $bad"
    for f in bin/ esxi/ licenses/ esxi/prepare.sh esxi/cleanup.sh esxi/hostcli.sh esxi/README \
             README.md NOTICE LICENSE SHA256SUMS \
             licenses/musl.copyright licenses/mbedtls.LICENSE licenses/jsmn.copyright; do
        printf '%s\n' "$output" | grep -qxF "$TOP/$f" || flunk "missing $TOP/$f"
    done
    # every tool of the commit is in bin/, and nothing else
    want=$(cd "$W/a/tools" && ls -d */main.c | sed 's|/main.c$||' | sort)
    have=$(ls "$W/x/$TOP/bin" | sort)
    [ "$want" = "$have" ] || flunk "bin/ has '$have', tools/ has '$want'"
    grep -q 'Apache License' "$W/x/$TOP/licenses/mbedtls.LICENSE" || flunk "mbedtls license text"
    grep -q 'License: MIT' "$W/x/$TOP/licenses/musl.copyright" || flunk "musl license text"
    grep -q 'License: MIT' "$W/x/$TOP/licenses/jsmn.copyright" || flunk "jsmn license text"
}

@test "dist: owner 0:0, fixed modes, every mtime the commit time, gzip without name or time" {
    run tar --numeric-owner --full-time -tvzf "$DIST_A"
    assert_status 0
    epoch=$(git -C "$W/a" log -1 --format=%ct)
    stamp=$(TZ=UTC date -d "@$epoch" '+%Y-%m-%d %H:%M:%S')
    while read -r mode owner _size day time name; do
        [ "$owner" = 0/0 ] || flunk "$name: owner $owner"
        [ "$day $time" = "$stamp" ] || flunk "$name: mtime $day $time, want $stamp"
        case $name in
            */ | */bin/* | */esxi/prepare.sh | */esxi/cleanup.sh) want=rwxr-xr-x ;;
            *) want=rw-r--r-- ;;
        esac
        [ "${mode:1}" = "$want" ] || flunk "$name: mode $mode, want $want"
    done < <(TZ=UTC tar --numeric-owner --full-time -tvzf "$DIST_A")
    # gzip header: FLG (byte 3) without FNAME, MTIME (bytes 4-7) zero
    hdr=$(od -An -tx1 -N8 "$DIST_A" | tr -d ' \n')
    [ "${hdr:0:6}" = 1f8b08 ] || flunk "not gzip: $hdr"
    [ "${hdr:6:2}" = 00 ] || flunk "gzip flags ${hdr:6:2} (a file name is stored?)"
    [ "${hdr:8:8}" = 00000000 ] || flunk "gzip mtime ${hdr:8:8}"
}

@test "dist: the binaries inside are static, stripped x86_64 ELF without a dynamic section" {
    n=0
    for b in "$W/x/$TOP"/bin/*; do
        n=$((n + 1))
        t=$(basename "$b")
        run readelf -h "$b"
        assert_status 0
        [[ "$output" == *"Class:"*"ELF64"* ]] || flunk "$t: not ELF64"
        [[ "$output" == *"Machine:"*"Advanced Micro Devices X86-64"* ]] || flunk "$t: not x86_64"
        run readelf -lW "$b"
        assert_status 0
        assert_not_contains "INTERP"
        assert_not_contains "DYNAMIC"
        run readelf -d "$b"
        assert_contains "There is no dynamic section"
        run readelf -SW "$b"
        assert_status 0
        assert_not_contains ".symtab"
        assert_not_contains ".debug_"
        # it names the commit it was built from (clean: no -dirty) and real versions
        run "$b" --version
        assert_status 0
        assert_contains "(esxdiag $VERSION, commit $(git -C "$W/a" rev-parse --short=12 HEAD))"
        [[ "$output" =~ musl\ [0-9]+\.[0-9]+.*mbedtls\ [0-9]+\.[0-9]+ ]] || flunk "$t --version: $output"
    done
    [ "$n" -gt 0 ] || flunk "no binaries in bin/"
}

@test "dist: SHA256SUMS verifies with busybox sha256sum -c, and catches a changed file" {
    cp -a "$W/x/$TOP" "$W/check"
    cd "$W/check"
    run busybox sha256sum -c SHA256SUMS
    assert_status 0
    # every file except SHA256SUMS is listed, with a relative path
    listed=$(sed 's/^[0-9a-f]\{64\}  //' SHA256SUMS | sort)
    present=$(find . -type f ! -name SHA256SUMS | sed 's|^\./||' | sort)
    [ "$listed" = "$present" ] || flunk "SHA256SUMS lists '$listed', folder has '$present'"
    echo tampered >> NOTICE
    run busybox sha256sum -c SHA256SUMS
    [ "$status" -ne 0 ] || flunk "a changed NOTICE still verified"
    assert_contains "NOTICE: FAILED"
}

@test "dist: two builds of the same commit (other date, umask, TMPDIR, TZ) give the same bytes" {
    [ -f "$DIST_B" ] || flunk "no second tarball"
    run cmp "$DIST_A" "$DIST_B"
    if [ "$status" -ne 0 ]; then
        # show where they differ, file by file
        mkdir -p "$W/y"; tar -xzf "$DIST_B" -C "$W/y"
        flunk "tarballs differ: $output; $(diff -r "$W/x" "$W/y" 2>&1 | head -5)"
    fi
    sort -u "$W/notes" >&3
    printf '# dist: %s bytes, sha256 %s (both builds)\n' "$(wc -c < "$DIST_A")" \
        "$(sha256sum "$DIST_A" | cut -c1-16)" >&3
}
