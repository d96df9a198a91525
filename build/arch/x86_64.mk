# x86_64, the default ARCH (ESXi on Intel and AMD): Debian's musl-gcc (musl-tools) and
# mbedtls built with it by build/deps.sh (no argument: with the host build, one stamp);
# the kit's binaries go to out/bin as always.
x86_64_OUT      := $(OUT)
x86_64_CC       := musl-gcc
x86_64_AR       := ar
x86_64_CC_DEPS  :=
x86_64_MBEDTLS  := $(CACHE)/mbedtls/musl
x86_64_MUSL_VERSION := $(CACHE)/musl.version
x86_64_DEPS     := $(DEPS_STAMP)
