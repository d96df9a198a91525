# aarch64 (ESXi-Arm): Debian's gcc-aarch64-linux-gnu over musl and mbedtls, both
# cross-built from Debian source packages by `build/deps.sh aarch64` (make deps
# ARCH=aarch64) into .cache/.
# build/arch/aarch64.specs points the cross gcc at that musl; the Makefile fills in
# this checkout's path (so a copied .cache works in another clone).
aarch64_OUT     := $(OUT)/aarch64
aarch64_SPECS   := $(aarch64_OUT)/musl-gcc.specs
aarch64_CC      := aarch64-linux-gnu-gcc -specs=$(aarch64_SPECS)
aarch64_AR      := aarch64-linux-gnu-ar
aarch64_CC_DEPS := $(aarch64_SPECS)
aarch64_MBEDTLS := $(CACHE)/mbedtls/musl-aarch64
aarch64_MUSL_VERSION := $(CACHE)/musl-aarch64/version
aarch64_DEPS    := $(CACHE)/mbedtls/built-aarch64.stamp

# gcc specs for static links against that musl only (no glibc headers, start files or
# libraries): its headers first, its crt1/crti/crtn around gcc's crtbeginT/crtend,
# libgcc after libc. -static always (the kit has no dynamic binaries); the Cortex-A53
# erratum 843419 workaround that gcc's own aarch64 link line adds is kept.
$(aarch64_SPECS): build/arch/aarch64.specs
	@mkdir -p $(@D)
	$(Q)sed 's|@MUSL@|$(CURDIR)/$(CACHE)/musl-aarch64|g' $< > $@

# checked, never built here: `make deps ARCH=aarch64` builds it
$(aarch64_DEPS): FORCE
	@./build/deps.sh --check aarch64
