#!/usr/bin/env bats
# make dist-all: the kit tarballs, x86_64 and aarch64 (ESXi-Arm), and the fleet's Ansible
# collection (esxdiag-fleet-VERSION.tar.gz, build/dist-fleet.sh). Built twice from the
# committed HEAD, each time in a fresh `git clone` of this repository: the second
# clone has every file's mtime moved to another date, another TMPDIR, umask and TZ.
# Each architecture's two tarballs, and the two collections, must be the same bytes. The checks on contents,
# binaries and SHA256SUMS use the first, for each architecture (aarch64 binaries run
# under qemu-aarch64-static). (Uncommitted work in this tree is not in the tarballs:
# that is the point.)
load ../lib/common

VERSION=$(sed -n 's/^VERSION *:= *//p' "$ESXDIAG_ROOT/Makefile")
TOP=esxdiag-$VERSION
ARCHES="x86_64 aarch64"
machine() { case $1 in x86_64) echo 'Advanced Micro Devices X86-64' ;; aarch64) echo AArch64 ;; esac; }
on() { # ARCH BIN ARGS...: run one binary of ARCH here
    if [ "$1" = "$(uname -m)" ]; then "${@:2}"; else "qemu-$1-static" "${@:2}"; fi
}

# clone_build DIR UMASK TZ [DATE]: clone HEAD into DIR, make dist there
clone_build() {
    local dir=$1 um=$2 tz=$3 date=${4:-}
    git clone -q "$ESXDIAG_ROOT" "$dir" || return 1
    # dependency cache: copies (deps.sh may rewrite them), the mbedtls source read-only
    mkdir -p "$dir/.cache" "$dir.tmp"
    cp -a "$ESXDIAG_ROOT/.cache/mbedtls" "$ESXDIAG_ROOT/.cache/include" \
        "$ESXDIAG_ROOT/.cache/musl.version" "$ESXDIAG_ROOT/.cache/musl-aarch64" "$dir/.cache/"
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
        make -j2 dist-all
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
    printf '# dist: clone + make dist-all: first %d ms, second (other mtimes/umask/TMPDIR/TZ) %d ms\n' \
        $(( (t1 - t0) / 1000000 )) $(( (t2 - t1) / 1000000 )) >> "$W/notes"
    local a
    for a in $ARCHES; do
        mkdir -p "$W/x/$a"
        tar -xzf "$(dist_a "$a")" -C "$W/x/$a"
    done
}
# the tarball of ARCH from the first and the second clone
dist_a() { echo "$W/a/dist/$TOP-$1.tar.gz"; }
dist_b() { echo "$W/b/dist/$TOP-$1.tar.gz"; }

teardown_file() {
    rm -rf "$W"
}

@test "dist: the commit holds what the tarball ships (README.md, NOTICE, LICENSE, esxi/)" {
    for f in README.md NOTICE LICENSE esxi/README esxi/prepare.sh esxi/cleanup.sh esxi/hostcli.sh build/dist.sh \
             docs/esxperf.md docs/esxmtu.md docs/esxpart.md docs/esxi.md; do
        git -C "$ESXDIAG_ROOT" cat-file -e "HEAD:$f" 2>/dev/null || flunk "$f is not committed"
    done
}

@test "dist: both tarballs are there, -x86_64 and -aarch64 in their names, and the collection; nothing else" {
    run ls "$W/a/dist"
    assert_status 0
    [ "$output" = "$TOP-aarch64.tar.gz
$TOP-x86_64.tar.gz
esxdiag-fleet-$VERSION.tar.gz" ] || flunk "dist/ holds: $output"
}

@test "dist: one top folder $TOP/ holding bin/, esxi/, docs, licenses and SHA256SUMS (each architecture)" {
    local a d want have bad
    for a in $ARCHES; do
        d=$(dist_a "$a")
        [ -f "$d" ] || flunk "no $d"
        run tar -tzf "$d"
        assert_status 0
        bad=$(printf '%s\n' "$output" | grep -v "^$TOP/" || true)
        [ -z "$bad" ] || flunk "$a: entries outside $TOP/: $bad"
        for f in bin/ esxi/ licenses/ esxi/prepare.sh esxi/cleanup.sh esxi/hostcli.sh esxi/README \
                 README.md NOTICE LICENSE SHA256SUMS docs/ docs/esxperf.md docs/esxmtu.md \
                 docs/esxpart.md docs/esxi.md \
                 licenses/musl.copyright licenses/mbedtls.LICENSE licenses/jsmn.copyright; do
            printf '%s\n' "$output" | grep -qxF "$TOP/$f" || flunk "$a: missing $TOP/$f"
        done
        # every tool of the commit is in bin/, and nothing else
        want=$(cd "$W/a/tools" && ls -d */main.c | sed 's|/main.c$||' | sort)
        have=$(ls "$W/x/$a/$TOP/bin" | sort)
        [ "$want" = "$have" ] || flunk "$a: bin/ has '$have', tools/ has '$want'"
        grep -q 'Apache License' "$W/x/$a/$TOP/licenses/mbedtls.LICENSE" || flunk "$a: mbedtls license text"
        grep -q 'License: MIT' "$W/x/$a/$TOP/licenses/musl.copyright" || flunk "$a: musl license text"
        grep -q 'License: MIT' "$W/x/$a/$TOP/licenses/jsmn.copyright" || flunk "$a: jsmn license text"
    done
    # the kits differ only in bin/ (and the sums of bin/)
    run diff -r -x bin -x SHA256SUMS "$W/x/x86_64/$TOP" "$W/x/aarch64/$TOP"
    assert_status 0
}

@test "dist: owner 0:0, fixed modes, every mtime the commit time, gzip without name or time" {
    local a d epoch stamp hdr
    epoch=$(git -C "$W/a" log -1 --format=%ct)
    stamp=$(TZ=UTC date -d "@$epoch" '+%Y-%m-%d %H:%M:%S')
    for a in $ARCHES; do
        d=$(dist_a "$a")
        while read -r mode owner _size day time name; do
            [ "$owner" = 0/0 ] || flunk "$a: $name: owner $owner"
            [ "$day $time" = "$stamp" ] || flunk "$a: $name: mtime $day $time, want $stamp"
            case $name in
                */ | */bin/* | */esxi/prepare.sh | */esxi/cleanup.sh) want=rwxr-xr-x ;;
                *) want=rw-r--r-- ;;
            esac
            [ "${mode:1}" = "$want" ] || flunk "$a: $name: mode $mode, want $want"
        done < <(TZ=UTC tar --numeric-owner --full-time -tvzf "$d")
        # gzip header: FLG (byte 3) without FNAME, MTIME (bytes 4-7) zero
        hdr=$(od -An -tx1 -N8 "$d" | tr -d ' \n')
        [ "${hdr:0:6}" = 1f8b08 ] || flunk "$a: not gzip: $hdr"
        [ "${hdr:6:2}" = 00 ] || flunk "$a: gzip flags ${hdr:6:2} (a file name is stored?)"
        [ "${hdr:8:8}" = 00000000 ] || flunk "$a: gzip mtime ${hdr:8:8}"
    done
}

@test "dist: the binaries inside are static, stripped ELF of their architecture without PT_INTERP or a dynamic section" {
    local a b t n
    for a in $ARCHES; do
        n=0
        for b in "$W/x/$a/$TOP"/bin/*; do
            n=$((n + 1))
            t="$a/$(basename "$b")"
            run readelf -h "$b"
            assert_status 0
            [[ "$output" == *"Class:"*"ELF64"* ]] || flunk "$t: not ELF64"
            [[ "$output" == *"Machine:"*"$(machine "$a")"* ]] || flunk "$t: e_machine is not $a: $output"
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
            # it names the commit it was built from (clean: no -dirty), its architecture
            # and a real musl version
            run on "$a" "$b" --version
            assert_status 0
            assert_contains "(esxdiag $VERSION, commit $(git -C "$W/a" rev-parse --short=12 HEAD))"
            [[ "$output" =~ built\ for\ $a\ with\ musl\ [0-9]+\.[0-9]+ ]] || flunk "$t --version: $output"
        done
        [ "$n" -gt 0 ] || flunk "$a: no binaries in bin/"
    done
}

@test "dist: the kit's bin/esxdiag-selftest runs from the unpacked kit and prints its table, text and -J (each architecture)" {
    local a b
    for a in $ARCHES; do
        b=$W/x/$a/$TOP/bin/esxdiag-selftest
        [ -x "$b" ] || flunk "$a: no bin/esxdiag-selftest in the kit"
        run on "$a" "$b"
        assert_status 0
        grep -qE '^accept4 +syscall +(works|refused|not tried)' <<<"$output" || flunk "$a: no accept4 row: $output"
        grep -qE '^summary: [0-9]+ works, [0-9]+ refused, [0-9]+ not tried$' <<<"$output" || flunk "$a: no summary: $output"
        run on "$a" "$b" -J
        assert_status 0
        jq -e '.selftest.probes | length > 50' <<<"$output" >/dev/null || flunk "$a -J: $output"
    done
}

@test "dist: SHA256SUMS verifies with busybox sha256sum -c, and catches a changed file (each architecture)" {
    local a listed present
    for a in $ARCHES; do
        cp -a "$W/x/$a/$TOP" "$W/check-$a"
        cd "$W/check-$a"
        run busybox sha256sum -c SHA256SUMS
        assert_status 0
        # every file except SHA256SUMS is listed, with a relative path
        listed=$(sed 's/^[0-9a-f]\{64\}  //' SHA256SUMS | sort)
        present=$(find . -type f ! -name SHA256SUMS | sed 's|^\./||' | sort)
        [ "$listed" = "$present" ] || flunk "$a: SHA256SUMS lists '$listed', folder has '$present'"
        echo tampered >> NOTICE
        run busybox sha256sum -c SHA256SUMS
        [ "$status" -ne 0 ] || flunk "$a: a changed NOTICE still verified"
        assert_contains "NOTICE: FAILED"
    done
}

@test "dist: the collection: ansible-galaxy's entries (no ./), owner 0:0, 0755 folders, 0644 files, the commit time, gzip without name or time; its MANIFEST.json says esxdiag.fleet VERSION" {
    local d=$W/a/dist/esxdiag-fleet-$VERSION.tar.gz epoch stamp n=0 hdr
    epoch=$(git -C "$W/a" log -1 --format=%ct)
    stamp=$(TZ=UTC date -d "@$epoch" '+%Y-%m-%d %H:%M:%S')
    while read -r mode owner _size day time name; do
        n=$((n + 1))
        [ "$owner" = 0/0 ] || flunk "$name: owner $owner"
        [ "$day $time" = "$stamp" ] || flunk "$name: mtime $day $time, want $stamp"
        case $name in ./* | /*) flunk "entry $name: ansible-galaxy reads them without ./" ;; esac
        case $name in */) want=drwxr-xr-x ;; *) want=-rw-r--r-- ;; esac
        [ "$mode" = "$want" ] || flunk "$name: mode $mode, want $want"
    done < <(TZ=UTC tar --numeric-owner --full-time -tvzf "$d")
    [ "$n" -gt 20 ] || flunk "only $n entries"
    hdr=$(od -An -tx1 -N8 "$d" | tr -d ' \n')
    [ "${hdr:6:2}" = 00 ] && [ "${hdr:8:8}" = 00000000 ] || flunk "gzip header $hdr"
    local man
    man=$(tar -xzOf "$d" MANIFEST.json | jq -r '.collection_info | "\(.namespace).\(.name) \(.version)"')
    [ "$man" = "esxdiag.fleet $VERSION" ] || flunk "MANIFEST.json: $man"
}

@test "dist: two builds of the same commit (other date, umask, TMPDIR, TZ) give the same bytes, each architecture and the collection" {
    local a
    for a in $ARCHES; do
        [ -f "$(dist_b "$a")" ] || flunk "no second $a tarball"
        run cmp "$(dist_a "$a")" "$(dist_b "$a")"
        if [ "$status" -ne 0 ]; then
            # show where they differ, file by file
            mkdir -p "$W/y/$a"; tar -xzf "$(dist_b "$a")" -C "$W/y/$a"
            flunk "$a tarballs differ: $output; $(diff -r "$W/x/$a" "$W/y/$a" 2>&1 | head -5)"
        fi
    done
    run cmp "$W/a/dist/esxdiag-fleet-$VERSION.tar.gz" "$W/b/dist/esxdiag-fleet-$VERSION.tar.gz"
    [ "$status" = 0 ] || flunk "the collections differ: $output"
    sort -u "$W/notes" >&3
    for a in $ARCHES; do
        printf '# dist: %s: %s bytes, sha256 %s (both builds)\n' "$a" "$(wc -c < "$(dist_a "$a")")" \
            "$(sha256sum "$(dist_a "$a")" | cut -c1-16)" >&3
    done
}
