#!/bin/sh
# Install what the build and the tests need on a Debian 12 machine, then fetch the
# mbedtls source package with `apt-get source` (apt verifies its checksums) and build
# libmbedcrypto twice from it with our config (build/mbedtls_config.h):
#   .cache/mbedtls/musl  musl-gcc, for the shipped static binaries
#   .cache/mbedtls/host  gcc, for unit tests under the sanitizers and fuzz targets
# The result is cached under .cache/ (git-ignored): later builds run offline.
set -eu
cd "$(dirname "$0")/.."
ROOT=$(pwd)
CACHE="$ROOT/.cache"

# package -> what it is for (README "Dependencies" lists the same)
PKGS="musl-tools dpkg-dev libjsmn-dev libcmocka-dev bats clang libclang-rt-14-dev
iperf3 gdisk fdisk dosfstools mtools util-linux iproute2 nftables strace busybox
openssl make gcc jq time shellcheck iputils-ping iputils-tracepath python3"

missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    if [ "$(id -u)" != 0 ]; then
        echo "deps: missing packages:$missing (run make as root, or apt-get install them)" >&2
        exit 2
    fi
    echo "deps: installing$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

mkdir -p "$CACHE/include"
cp -f /usr/include/jsmn.h "$CACHE/include/jsmn.h"

# musl version for --version (musl has no version macro)
dpkg-query -W -f='${Version}' musl-dev | sed 's/-[^-]*$//' > "$CACHE/musl.version"

# rebuild mbedtls only when our config or the way we build it changes
BUILD_REV=1
stamp="$CACHE/mbedtls/built.stamp"
want="rev$BUILD_REV-$(sha256sum build/mbedtls_config.h | cut -c1-16)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    touch "$stamp"
    exit 0
fi

src=$(ls -d "$CACHE"/src/mbedtls-2.28.*/ 2>/dev/null | head -n1 || true)
if [ -z "$src" ]; then
    # without deb-src entries apt prints no download addresses (quoted URIs)
    if ! apt-get source --print-uris mbedtls 2>/dev/null | grep -q "'"; then
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
    ( cd "$CACHE/src" && apt-get source -qq mbedtls >/dev/null 2>&1 ) || {
        echo "deps: apt-get source mbedtls failed (check network access to the Debian mirror)" >&2
        exit 2
    }
    src=$(ls -d "$CACHE"/src/mbedtls-2.28.*/ | head -n1)
fi
src=${src%/}
ver=$(basename "$src" | sed 's/^mbedtls-//')
echo "deps: building mbedtls $ver (libmbedcrypto) with musl-gcc and gcc"

build_one() { # $1 = musl|host, $2 = compiler, $3 = extra cflags
    dst="$CACHE/mbedtls/$1"
    rm -rf "$dst" && mkdir -p "$dst/lib" "$dst/include"
    work="$CACHE/mbedtls/work-$1"
    rm -rf "$work" && cp -r "$src" "$work"
    cp build/mbedtls_config.h "$work/include/esxdiag_mbedtls_config.h"
    make -s -C "$work/library" -j2 CC="$2" AR=ar \
        CFLAGS="-Os $3 -ffunction-sections -fdata-sections -ffile-prefix-map=$work=mbedtls -I../include -DMBEDTLS_CONFIG_FILE='\"esxdiag_mbedtls_config.h\"'" \
        libmbedcrypto.a >/dev/null
    cp "$work/library/libmbedcrypto.a" "$dst/lib/"
    cp -r "$work/include/mbedtls" "$dst/include/"
    cp build/mbedtls_config.h "$dst/include/esxdiag_mbedtls_config.h"
    cp "$work/LICENSE" "$dst/LICENSE" 2>/dev/null || cp "$src/debian/copyright" "$dst/LICENSE"
    rm -rf "$work"
}
build_one musl musl-gcc ""
build_one host gcc "-fPIC -g"
echo "$ver" > "$CACHE/mbedtls/version"
echo "$want" > "$stamp"
