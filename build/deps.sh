#!/bin/sh
# What the build and the tests need on a Debian 12 machine: the Debian packages, and
# the builds cached under .cache/ (git-ignored; later builds run offline):
#   .cache/mbedtls/musl  libmbedcrypto built with musl-gcc, for the shipped static binaries
#   .cache/mbedtls/host  the same with gcc, for unit tests under the sanitizers and fuzz
#   .cache/esxi-shell    the ESXi-shaped shell the host-script tests run under
#                        (build_esxi_shell below)
#   .cache/musl-aarch64, .cache/mbedtls/musl-aarch64  the aarch64 kit's musl and mbedtls
# Both mbedtls and musl come from Debian source packages (`apt-get source`: apt verifies
# their checksums), built with our config (build/mbedtls_config.h).
#
# Installing (`make deps`, `make test`, `make demo`; as root, it runs apt-get):
#   build/deps.sh [x86_64]   every package for building and testing, mbedtls, the shell
#   build/deps.sh aarch64    the cross packages, musl and mbedtls for aarch64
#   build/deps.sh esxi-shell the ESXi-shaped shell only
#   build/deps.sh vcsim      the fleet tests' vCenter (build_vcsim below), which the fleet
#                            tests ask for themselves: govmomi's simulator from Debian's
#                            golang-github-vmware-govmomi-dev with test/lib/vcsim-fleet.go
#                            as its main, in .cache/vcsim (Go is not needed for the kit)
# Checking (every other make target; never installs, never writes):
#   build/deps.sh --check build|test|aarch64
#     build: what `make` needs; test: what the tests need besides; aarch64: ARCH=aarch64.
#     Exit 0, or 2 with one line naming what is missing and saying to run make deps.
# ESXDIAG_DEPS_EXTRA="pkg ...": packages this machine must have besides the lists
# (both modes; a site's own need, or a test of the check itself).
set -eu
cd "$(dirname "$0")/.."
ROOT=$(pwd)
CACHE="$ROOT/.cache"
CHECK=""
if [ "${1:-}" = --check ]; then
    CHECK=${2:-}
    case $CHECK in
        build | test | aarch64) ;;
        *) echo "deps: --check '$CHECK': not one of build, test, aarch64" >&2; exit 2 ;;
    esac
    ARCH=$CHECK
else
    ARCH=${1:-x86_64}
    case $ARCH in
        x86_64 | aarch64 | esxi-shell | vcsim) ;;
        *) echo "deps: unknown target '$ARCH' (x86_64, aarch64, esxi-shell or vcsim)" >&2; exit 2 ;;
    esac
fi

# package -> what it is for (HACKING.md, "Dependencies and what each is for", lists the same)
# building the kit: musl-gcc, the JSON tokenizer header, and `apt-get source` plus a
# compiler for mbedtls and musl
PKGS_BUILD="musl-tools libjsmn-dev dpkg-dev make gcc"
# the tests: unit (cmocka), integration (bats), fuzz (clang libFuzzer), real peers
# and disk tools, namespaces, the syscall audit
PKGS_TEST="libcmocka-dev bats clang libclang-rt-14-dev iperf3 gdisk fdisk dosfstools
mtools util-linux iproute2 nftables strace busybox openssl jq time shellcheck
iputils-ping iputils-tracepath python3"
# iperf3 3.18/3.22 test peers: apt checks the trixie and sid signatures with this keyring
# (test/lib/iperf3-peers.sh fetches them from the bats files and the bench, cached)
PKGS_TEST="$PKGS_TEST debian-archive-keyring"
# fleet (esxi/fleet, test/integration/fleet.bats): Ansible drives the hosts over ssh;
# the test bench runs an sshd in each namespace host; chromium renders report.html
PKGS_TEST="$PKGS_TEST ansible-core openssh-server openssh-client chromium"
# the man pages' test renders docs/*.1 with man and groff, warnings on
PKGS_TEST="$PKGS_TEST man-db groff-base"
# fleet from vCenter: pyVmomi for the collection's inventory plugin (esxdiag.fleet.vcenter)
PKGS_TEST="$PKGS_TEST python3-pyvmomi"
# the fleet's collection is linted (test/integration/fleet_collection.bats)
PKGS_TEST="$PKGS_TEST ansible-lint"
# esxperf --rr's benchmark (test/lib/bench-rr.sh): the latency tools it is set beside
PKGS_TEST="$PKGS_TEST sockperf iperf qperf"
# the fleet tests' vCenter: govmomi's simulator (its Go source package), built with golang-go
PKGS_VCSIM="golang-go golang-github-vmware-govmomi-dev"
# aarch64 kit: the cross compiler (and its binutils), qemu-user to run its binaries in tests
PKGS_AARCH64="gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu qemu-user-static"

# missing_pkgs PKG...: those of the packages that are not installed, on one line
missing_pkgs() {
    dpkg-query -W -f='${Package} ${Status}\n' "$@" 2>/dev/null |
        awk -v want="$*" '$NF == "installed" { ok[$1] = 1 }
            END { n = split(want, w, " "); s = ""
                  for (i = 1; i <= n; i++) if (!(w[i] in ok)) s = s " " w[i]
                  print substr(s, 2) }'
}

# install_pkgs PKG...: apt-get install those that are missing (as root)
install_pkgs() {
    missing=$(missing_pkgs "$@")
    [ -n "$missing" ] || return 0
    if [ "$(id -u)" != 0 ]; then
        echo "deps: missing packages: $missing (run make deps as root, or apt-get install them)" >&2
        exit 2
    fi
    echo "deps: installing $missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get -o DPkg::Lock::Timeout=600 update -qq
    # shellcheck disable=SC2086
    apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $missing >/dev/null
}
# write_new DST < CONTENT: replace DST only when it changes, in one rename (a make job
# of the other architecture may be compiling against it right now)
write_new() {
    cat > "$1.new.$$"
    if cmp -s "$1.new.$$" "$1"; then rm -f "$1.new.$$"; else mv -f "$1.new.$$" "$1"; fi
}
# the jsmn header and the versions --version reports, in .cache/
cache_headers() {
    mkdir -p "$CACHE/include"
    write_new "$CACHE/include/jsmn.h" < /usr/include/jsmn.h
    # and its Debian version, for --version of the tools that compile it in (jsmn has none)
    printf '#define ESXDIAG_JSMN_VERSION "%s"\n' \
        "$(dpkg-query -W -f='${Version}' libjsmn-dev | sed 's/-[^-]*$//')" |
        write_new "$CACHE/include/jsmn_version.h"
    # musl version for --version (musl has no version macro)
    dpkg-query -W -f='${Version}' musl-dev | sed 's/-[^-]*$//' | write_new "$CACHE/musl.version"
}
CACHE_HEADERS="include/jsmn.h include/jsmn_version.h musl.version"

# rebuild only when our config or the way we build changes
BUILD_REV=1

# source_pkg NAME[=VERSION] GLOB: the unpacked source folder .cache/src/GLOB, fetched
# with `apt-get source` (checksums verified by apt) if it is not there yet
source_pkg() {
    src=$(ls -d "$CACHE"/src/$2/ 2>/dev/null | head -n1 || true)
    if [ -z "$src" ]; then
        # without deb-src entries apt prints no download addresses (quoted URIs)
        if ! apt-get source --print-uris "$1" 2>/dev/null | grep -q "'"; then
            [ "$(id -u)" = 0 ] || { echo "deps: no deb-src entries: run make as root once" >&2; exit 2; }
            # enable source packages from the machine's own configured mirrors
            echo "deps: enabling deb-src for apt"
            out=/etc/apt/sources.list.d/esxdiag-deb-src.sources
            : > "$out.tmp"
            for f in /etc/apt/sources.list.d/*.sources; do
                [ -f "$f" ] && [ "$f" != "$out" ] || continue
                sed -n 's/^Types:.*\bdeb\b.*/Types: deb-src/; /^#/d; p' "$f" >> "$out.tmp"
                echo >> "$out.tmp"
            done
            if [ -f /etc/apt/sources.list ]; then
                grep -E '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' \
                    > /etc/apt/sources.list.d/esxdiag-deb-src.list || true
            fi
            mv "$out.tmp" "$out"
            apt-get update -qq
        fi
        mkdir -p "$CACHE/src"
        ( cd "$CACHE/src" && apt-get source -qq "$1" >/dev/null 2>&1 ) || {
            echo "deps: apt-get source $1 failed (check network access to the Debian mirror)" >&2
            exit 2
        }
        src=$(ls -d "$CACHE"/src/$2/ | head -n1)
    fi
    src=${src%/}
}

# build_mbedtls DEST COMPILER AR EXTRA_CFLAGS: libmbedcrypto.a and headers into
# .cache/mbedtls/DEST, from the source folder $src
build_mbedtls() {
    dst="$CACHE/mbedtls/$1"
    rm -rf "$dst" && mkdir -p "$dst/lib" "$dst/include"
    work="$CACHE/mbedtls/work-$1"
    rm -rf "$work" && cp -r "$src" "$work"
    cp build/mbedtls_config.h "$work/include/esxdiag_mbedtls_config.h"
    make -s -C "$work/library" -j2 CC="$2" AR="$3" \
        CFLAGS="-Os $4 -ffunction-sections -fdata-sections -ffile-prefix-map=$work=mbedtls -I../include -DMBEDTLS_CONFIG_FILE='\"esxdiag_mbedtls_config.h\"'" \
        libmbedcrypto.a >/dev/null
    cp "$work/library/libmbedcrypto.a" "$dst/lib/"
    cp -r "$work/include/mbedtls" "$dst/include/"
    cp build/mbedtls_config.h "$dst/include/esxdiag_mbedtls_config.h"
    cp "$work/LICENSE" "$dst/LICENSE" 2>/dev/null || cp "$src/debian/copyright" "$dst/LICENSE"
    rm -rf "$work"
}

# build_musl_cross ARCH DEBIAN_ARCH TRIPLE: Debian's musl source package, the version
# of the installed (x86_64) musl-dev, built as a static library for ARCH into
# .cache/musl-ARCH with the compiler flags Debian's own build of musl-dev:DEBIAN_ARCH
# gets (dpkg-buildflags, hardening=+all, as debian/rules asks). Debian also adds fts
# to its libc.a; the tools do not use it. Writes version (upstream part), COPYRIGHT
# (debian/copyright) and musl-gcc.specs (build/arch/ARCH.specs with this path; the
# Makefile writes its own copy under out/, for the checkout it runs in).
build_musl_cross() {
    dst="$CACHE/musl-$1"
    sver=$(dpkg-query -W -f='${source:Version}' musl-dev)
    want_musl=$(want_musl_cross "$1")
    stamp_is "$dst/built.stamp" "$want_musl" && return 0
    source_pkg "musl=$sver" "musl-${sver%-*}"
    echo "deps: building musl $sver for $1 (static, Debian's $2 flags)"
    work="$CACHE/musl-$1.work"
    rm -rf "$dst" "$work" && cp -r "$src" "$work"
    (
        cd "$work"
        CFLAGS=$(DEB_HOST_ARCH=$2 DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get CFLAGS)
        export CFLAGS
        ./configure --target="$3" CROSS_COMPILE="$3-" --prefix="$dst" \
            --disable-shared --disable-wrapper >/dev/null
        make -s -j2 >/dev/null 2>&1 || { echo "deps: musl build for $1 failed (in $work)" >&2; exit 2; }
        make -s install >/dev/null
    )
    cp "$src/debian/copyright" "$dst/COPYRIGHT"
    echo "${sver%-*}" > "$dst/version"
    sed "s|@MUSL@|$dst|g" "build/arch/$1.specs" > "$dst/musl-gcc.specs"
    rm -rf "$work"
    echo "$want_musl" > "$dst/built.stamp"
}

# stamp_is STAMP WANT: the stamp says this build is done. Never touched when it is:
# the objects that depend on a stamp rebuild only when the build behind it changed.
stamp_is() {
    [ -f "$1" ] && [ "$(cat "$1")" = "$2" ]
}

# build_esxi_shell: busybox from Debian's source package (the version installed), built
# as ESXi's /bin/sh is described publicly (test/lib/esxi-shell.list has the sources):
# ash without the `command` builtin (ESXI_SH_OFF) and without `type` (not a config
# option in 1.35: its line in ash's builtin table is deleted), and without the tr and
# od applets. defconfig leaves FEATURE_SH_STANDALONE and FEATURE_PREFER_APPLETS off, so
# the shell finds every other applet through PATH only: the tests give it a folder of
# links to the applets the list allows and nothing else (test/lib/esxi-shell.bash).
ESXI_SH_OFF="ASH_CMDCMD TR OD"
build_esxi_shell() {
    dst="$CACHE/esxi-shell"
    sver=$(dpkg-query -W -f='${source:Version}' busybox | sed 's/^[0-9]*://')
    want_sh=$(want_esxi_shell)
    stamp_is "$dst/built.stamp" "$want_sh" && return 0
    source_pkg "busybox=$(dpkg-query -W -f='${source:Version}' busybox)" "busybox-${sver%%-*}"
    echo "deps: building the ESXi-shaped shell (busybox $sver: no command, type, tr, od)"
    work="$CACHE/esxi-shell.work"
    rm -rf "$dst" "$work" && cp -r "$src" "$work"
    (
        cd "$work"
        grep -q '^	{ BUILTIN_REGULAR *"type" *, typecmd *},$' shell/ash.c ||
            { echo "deps: busybox's ash has no 'type' table line to remove (in $work)" >&2; exit 2; }
        sed -i '/^	{ BUILTIN_REGULAR *"type" *, typecmd *},$/d' shell/ash.c
        make -s defconfig >/dev/null
        for o in $ESXI_SH_OFF; do
            sed -i "s/^CONFIG_$o=y\$/# CONFIG_$o is not set/" .config
        done
        make -s oldconfig < /dev/null > /dev/null
        for o in $ESXI_SH_OFF FEATURE_SH_STANDALONE FEATURE_PREFER_APPLETS; do
            ! grep -q "^CONFIG_$o=y" .config || { echo "deps: busybox CONFIG_$o is still on (in $work)" >&2; exit 2; }
        done
        make -s -j2 busybox > build.log 2>&1 || { echo "deps: busybox build failed (see $work/build.log)" >&2; exit 2; }
    ) || exit 2
    mkdir -p "$dst"
    cp "$work/busybox" "$dst/busybox"
    cp "$src/LICENSE" "$dst/LICENSE"
    echo "$sver" > "$dst/version"
    rm -rf "$work"
    echo "$want_sh" > "$dst/built.stamp"
}

# build_vcsim: test/lib/vcsim-fleet.go against Debian's govmomi (GOPATH mode: the
# package installs its source under /usr/share/gocode), rebuilt when the main, govmomi
# or Go change. Its Go build cache lives in a work folder removed afterwards.
build_vcsim() {
    dst="$CACHE/vcsim"
    want_vc="rev$BUILD_REV-$(dpkg-query -W -f='${Version}' golang-github-vmware-govmomi-dev)-$(go env GOVERSION)-$(sha256sum test/lib/vcsim-fleet.go | cut -c1-16)"
    stamp_is "$dst/built.stamp" "$want_vc" && return 0
    echo "deps: building the fleet tests' vCenter (govmomi $(dpkg-query -W -f='${Version}' golang-github-vmware-govmomi-dev) simulator)"
    work="$CACHE/vcsim.work"
    rm -rf "$dst" "$work" && mkdir -p "$dst" "$work"
    GOPATH=/usr/share/gocode GO111MODULE=off GOCACHE="$work/go-build" GOFLAGS='' \
        go build -o "$dst/vcsim-fleet" test/lib/vcsim-fleet.go > "$work/build.log" 2>&1 ||
        { echo "deps: vcsim build failed: $(tail -n 5 "$work/build.log")" >&2; exit 2; }
    rm -rf "$work"
    echo "$want_vc" > "$dst/built.stamp"
}

# what each stamp must say for the build behind it to be current (the check and the
# builds above compare the same strings)
config_sum=$(sha256sum build/mbedtls_config.h | cut -c1-16)
MBED_STAMP="$CACHE/mbedtls/built.stamp"
MBED_A64_STAMP="$CACHE/mbedtls/built-aarch64.stamp"
want_mbedtls() { echo "rev$BUILD_REV-$config_sum"; }
want_mbedtls_aarch64() { echo "rev$BUILD_REV-$config_sum-$(cat "$CACHE/musl-aarch64/built.stamp" 2>/dev/null)"; }
want_musl_cross() {
    echo "rev$BUILD_REV-$(dpkg-query -W -f='${source:Version}' musl-dev)-$(sha256sum "build/arch/$1.specs" | cut -c1-16)"
}
want_esxi_shell() {
    echo "rev$BUILD_REV-$(dpkg-query -W -f='${source:Version}' busybox | sed 's/^[0-9]*://')-$(printf '%s type' "$ESXI_SH_OFF" | sha256sum | cut -c1-16)"
}

# build_mbedtls_for ARCH: mbedtls for the x86_64 kit and the host, or for aarch64
build_mbedtls_for() {
    source_pkg mbedtls 'mbedtls-2.28.*'
    ver=$(basename "$src" | sed 's/^mbedtls-//')
    if [ "$1" = aarch64 ]; then
        echo "deps: building mbedtls $ver (libmbedcrypto) for aarch64"
        build_mbedtls musl-aarch64 "aarch64-linux-gnu-gcc -specs=$CACHE/musl-aarch64/musl-gcc.specs" \
            aarch64-linux-gnu-ar ""
    else
        echo "deps: building mbedtls $ver (libmbedcrypto) with musl-gcc and gcc"
        build_mbedtls musl musl-gcc ar ""
        build_mbedtls host gcc ar "-fPIC -g"
    fi
    echo "$ver" > "$CACHE/mbedtls/version"
}

# check LEVEL: what that level needs and lacks, as one line; exit 2 when anything does
# (the package lists split into words on purpose, here and below)
# shellcheck disable=SC2086
check() {
    case $1 in
    build)
        pkgs=$(missing_pkgs $PKGS_BUILD ${ESXDIAG_DEPS_EXTRA:-})
        builds=""
        for f in $CACHE_HEADERS; do [ -f "$CACHE/$f" ] || builds="$builds .cache/$f"; done
        stamp_is "$MBED_STAMP" "$(want_mbedtls)" || builds="$builds .cache/mbedtls"
        what="build with make" fix="make deps" ;;
    test)
        pkgs=$(missing_pkgs $PKGS_TEST ${ESXDIAG_DEPS_EXTRA:-})
        builds=""
        stamp_is "$CACHE/esxi-shell/built.stamp" "$(want_esxi_shell 2>/dev/null)" ||
            builds=" .cache/esxi-shell"
        what="run the tests" fix="make deps" ;;
    aarch64)
        pkgs=$(missing_pkgs $PKGS_BUILD $PKGS_AARCH64 ${ESXDIAG_DEPS_EXTRA:-})
        builds=""
        for f in $CACHE_HEADERS; do [ -f "$CACHE/$f" ] || builds="$builds .cache/$f"; done
        stamp_is "$CACHE/musl-aarch64/built.stamp" "$(want_musl_cross aarch64 2>/dev/null)" ||
            builds=" .cache/musl-aarch64"
        stamp_is "$MBED_A64_STAMP" "$(want_mbedtls_aarch64)" || builds="$builds .cache/mbedtls/musl-aarch64"
        what="build ARCH=aarch64" fix="make deps ARCH=aarch64" ;;
    esac
    [ -n "$pkgs$builds" ] || exit 0
    msg=""
    [ -z "$pkgs" ] || msg="missing packages $pkgs"
    [ -z "$builds" ] || msg="$msg${msg:+; }not built or out of date:$builds"
    echo "deps: cannot $what: $msg (run '$fix' as root: it installs and builds what is missing)" >&2
    exit 2
}

[ -z "$CHECK" ] || check "$CHECK"
# shellcheck disable=SC2086
case $ARCH in
esxi-shell)
    install_pkgs $PKGS_BUILD busybox ${ESXDIAG_DEPS_EXTRA:-}
    build_esxi_shell
    ;;
vcsim)
    install_pkgs $PKGS_VCSIM ${ESXDIAG_DEPS_EXTRA:-}
    build_vcsim
    ;;
x86_64)
    install_pkgs $PKGS_BUILD $PKGS_TEST ${ESXDIAG_DEPS_EXTRA:-}
    cache_headers
    build_esxi_shell
    stamp_is "$MBED_STAMP" "$(want_mbedtls)" && exit 0
    build_mbedtls_for x86_64
    want_mbedtls > "$MBED_STAMP"
    ;;
aarch64)
    install_pkgs $PKGS_BUILD $PKGS_AARCH64 ${ESXDIAG_DEPS_EXTRA:-}
    cache_headers
    build_musl_cross aarch64 arm64 aarch64-linux-gnu
    stamp_is "$MBED_A64_STAMP" "$(want_mbedtls_aarch64)" && exit 0
    build_mbedtls_for aarch64
    want_mbedtls_aarch64 > "$MBED_A64_STAMP"
    ;;
esac
