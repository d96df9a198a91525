# esxdiag: one entry point. The targets (`make help` prints them):
#   make              out/bin/*: the tools, static musl (never installs: says what is missing)
#   make deps         as root: apt-get what is missing, build mbedtls and the test shell in .cache/
#   make check T=S    one bats suite, test/integration/S.bats (T may list several; x86_64 only)
#   make check-unit   the unit tests, ASan+UBSan (U=name: those whose name holds it)
#   make test         all CI runs: deps, unit, bats, fuzz smoke, aarch64 too; "N passed, N failed"
#   make demo         deps, then every tool once, on this machine only
#   make install      out/bin/* and docs/*.1 into PREFIX (/usr/local): bin/, share/man/man1/
#   make dist         dist/esxdiag-$(VERSION)-x86_64.tar.gz (reproducible) and the
#                     Ansible collection dist/esxdiag-fleet-$(VERSION).tar.gz
#   make dist-all     one tarball per architecture (build/arch/*.mk)
#   make bench        each tool against its anchor in the same run, as ratios
#   make fuzz         each libFuzzer target for FUZZ_SECONDS (default 60)
#   make unit         build the unit tests (out/test/unit/*) without running them
#   make asan         out/asan/<tool>: each tool with ASan+UBSan (host gcc), for tests
#   make clean        remove out/ and dist/
#   make help         this list
#   ARCH=aarch64      the same for ESXi-Arm: out/aarch64/bin/*, dist/*-aarch64.tar.gz
#   V=1               show the full compiler command lines
# Any folder tools/<name>/ with a main.c becomes out/bin/<name>.
# What differs between architectures lives in build/arch/<arch>.mk (compiler, output
# folder, mbedtls build, dependency stamp), as <arch>_NAME variables; A_NAME below is
# the one of $(ARCH).
# Only `make deps` (and test and demo, which run it) installs or builds dependencies;
# every other target runs `build/deps.sh --check` first, which names what is missing.

VERSION     := 0.1.0
SHELL       := /bin/bash
TOOLS       := $(sort $(patsubst tools/%/main.c,%,$(wildcard tools/*/main.c)))
CACHE       := .cache
MBED_HOST   := $(CACHE)/mbedtls/host
DEPS_STAMP  := $(CACHE)/mbedtls/built.stamp
OUT         := out
FUZZ_SECONDS ?= 60
PREFIX      ?= /usr/local
DESTDIR     ?=
V           ?= 0
Q           := $(if $(filter 1,$(V)),,@)

DEFAULT_ARCH := x86_64
ARCH        ?= $(DEFAULT_ARCH)
ARCHES      := $(patsubst build/arch/%.mk,%,$(sort $(wildcard build/arch/*.mk)))
.DEFAULT_GOAL := all
include $(ARCHES:%=build/arch/%.mk)
$(if $(filter $(ARCH),$(ARCHES)),,$(error ARCH=$(ARCH): not one of $(ARCHES) (see build/arch/)))
A_OUT       := $($(ARCH)_OUT)
A_BIN       := $(A_OUT)/bin
A_OBJ       := $(A_OUT)/obj/musl
A_GEN       := $(A_OUT)/gen
A_CC        := $($(ARCH)_CC)
A_AR        := $($(ARCH)_AR)
A_DEPS      := $($(ARCH)_DEPS)
A_CC_DEPS   := $($(ARCH)_CC_DEPS)
A_MBEDTLS   := $($(ARCH)_MBEDTLS)
A_LABEL     := $(if $(filter $(ARCH),$(DEFAULT_ARCH)),, ($(ARCH)))

COMMON_SRC  := $(sort $(wildcard common/*.c))
# a tool's sources: tools/<tool>/main.c and the folders one level below it (esxperf's
# cli/, client/, server/, ...); a tool's files, its unit tests and fuzz targets
# include its headers by bare name, from its own folder and every one below it
tool_srcs   = $(sort $(wildcard tools/$(1)/*.c tools/$(1)/*/*.c))
tool_incs   = $(addprefix -I,$(patsubst %/,%,$(sort $(dir $(wildcard tools/$(1)/*.h tools/$(1)/*/*.h)))))
WARN        := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
               -Wformat=2 -Wvla
DEFS        := -std=c11 -D_GNU_SOURCE -DMBEDTLS_CONFIG_FILE='"esxdiag_mbedtls_config.h"'
INCS        := -Icommon -I$(CACHE)/include

# shipped binaries: static musl, small, hardened where it costs nothing (every ARCH)
MUSL_CFLAGS := $(DEFS) $(WARN) -Os -ffunction-sections -fdata-sections \
               -fno-asynchronous-unwind-tables -fno-unwind-tables \
               -fstack-protector-strong -ffile-prefix-map=$(CURDIR)=. \
               $(INCS) -I$(A_MBEDTLS)/include
MUSL_LDFLAGS:= -static -s -Wl,--gc-sections -Wl,--build-id=none -Wl,-z,noseparate-code

# unit tests: host gcc with the sanitizers
HOST_CC     := gcc
HOST_CFLAGS := $(DEFS) $(WARN) -Wno-missing-prototypes -O1 -g -fno-omit-frame-pointer \
               -fsanitize=address,undefined -fno-sanitize-recover=all \
               $(INCS) -I$(MBED_HOST)/include -Itest/unit
# fuzz targets: clang libFuzzer + ASan + UBSan
FUZZ_CC     := clang
FUZZ_CFLAGS := $(DEFS) -Wall -Wextra -Werror -Wno-unused-command-line-argument -O1 -g \
               -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
               $(INCS) -I$(MBED_HOST)/include

GIT_COMMIT  := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
GIT_DIRTY   := $(shell git diff --quiet HEAD -- 2>/dev/null || echo -dirty)

# the targets `make help` lists (test/integration/make.bats holds the two in step), then
# the steps they are made of
.PHONY: all deps check check-unit test demo install dist dist-all bench fuzz unit asan clean help
.PHONY: all-arches deps-all deps-test fuzz-bins FORCE
.DELETE_ON_ERROR:

all: $(addprefix $(A_BIN)/,$(TOOLS))
# every architecture's binaries, one make per ARCH
all-arches:
	$(Q)set -e; for a in $(ARCHES); do $(MAKE) --no-print-directory ARCH=$$a all; done

help:
	@awk -v v=$(VERSION) 'NR == 1 { next } /^[^#]/ { exit } \
	    /^#   / { s = substr($$0, 2); sub(/\$$\(VERSION\)/, v, s); print s }' Makefile

# ---- dependencies: installed and built by `make deps` alone (build/deps.sh);
# everything else checks them (build/deps.sh --check, which never writes, so a
# stamp changes only when the build behind it does and only then are objects rebuilt)
deps:
	./build/deps.sh $(ARCH)
deps-all:
	$(Q)set -e; for a in $(ARCHES); do ./build/deps.sh $$a; done
$(DEPS_STAMP): FORCE
	@./build/deps.sh --check build
deps-test:
	@./build/deps.sh --check test

# build information of ARCH $(1), rewritten only when it changes (host objects take
# the default ARCH's, in $(OUT)/gen)
write_buildinfo = mkdir -p $(@D); \
	musl=$$(cat $($(1)_MUSL_VERSION) 2>/dev/null); \
	[ -n "$$musl" ] || { echo "buildinfo: $($(1)_MUSL_VERSION) missing (run make deps ARCH=$(1))" >&2; exit 1; }; \
	printf '\#define ESXDIAG_VERSION "%s"\n\#define ESXDIAG_COMMIT "%s"\n\#define ESXDIAG_ARCH "%s"\n\#define ESXDIAG_MUSL "%s"\n' \
	    '$(VERSION)' '$(GIT_COMMIT)$(GIT_DIRTY)' '$(1)' "$$musl" > $@.tmp; \
	cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
$(OUT)/gen/buildinfo.h: FORCE | $(DEPS_STAMP)
	@$(call write_buildinfo,$(DEFAULT_ARCH))
ifneq ($(A_GEN),$(OUT)/gen)
$(A_GEN)/buildinfo.h: FORCE | $(A_DEPS)
	@$(call write_buildinfo,$(ARCH))
endif
FORCE:

# ---- static musl build for $(ARCH)
$(A_OBJ)/%.o: %.c $(A_DEPS) $(A_CC_DEPS)
	@mkdir -p $(@D)
	@echo "  CC      $<$(A_LABEL)"
	$(Q)$(A_CC) $(MUSL_CFLAGS) -MMD -MP -c $< -o $@
$(A_OBJ)/common/version.o: $(A_GEN)/buildinfo.h
$(A_OBJ)/common/version.o: MUSL_CFLAGS += -I$(A_GEN)

MUSL_COMMON := $(COMMON_SRC:%.c=$(A_OBJ)/%.o)
$(A_OBJ)/libcommon.a: $(MUSL_COMMON)
	@rm -f $@
	$(Q)$(A_AR) rcsD $@ $^

# the link map beside the objects records what went in (binaries.bats reads it)
define TOOL_template
$(A_BIN)/$(1): $(patsubst %.c,$(A_OBJ)/%.o,$(call tool_srcs,$(1))) \
                 $(A_OBJ)/libcommon.a
	@mkdir -p $$(@D)
	@echo "  LINK    $$@"
	$(Q)$(A_CC) $(MUSL_LDFLAGS) -Wl,-Map=$(A_OBJ)/$(1).map -o $$@ $$^ $(A_MBEDTLS)/lib/libmbedcrypto.a
endef
$(foreach t,$(TOOLS),$(eval $(call TOOL_template,$(t))))
define TOOL_INCS_template
$(A_OBJ)/tools/$(1)/%.o:             MUSL_CFLAGS += $(call tool_incs,$(1))
$(OUT)/obj/host/tools/$(1)/%.o:      HOST_CFLAGS += $(call tool_incs,$(1))
$(OUT)/obj/fuzz/tools/$(1)/%.o:      FUZZ_CFLAGS += $(call tool_incs,$(1))
$(OUT)/obj/host/test/unit/$(1)_%.o:  HOST_CFLAGS += $(call tool_incs,$(1))
$(OUT)/obj/fuzz/test/fuzz/$(1)_%.o:  FUZZ_CFLAGS += $(call tool_incs,$(1))
endef
$(foreach t,$(TOOLS),$(eval $(call TOOL_INCS_template,$(t))))

# ---- host (sanitized) objects for unit tests and fuzz targets
$(OUT)/obj/host/%.o: %.c $(DEPS_STAMP) | deps-test
	@mkdir -p $(@D)
	@echo "  CC.san  $<"
	$(Q)$(HOST_CC) $(HOST_CFLAGS) -MMD -MP -c $< -o $@
$(OUT)/obj/host/common/version.o: $(OUT)/gen/buildinfo.h
$(OUT)/obj/host/common/version.o: HOST_CFLAGS += -I$(OUT)/gen
$(OUT)/obj/fuzz/%.o: %.c $(DEPS_STAMP) | deps-test
	@mkdir -p $(@D)
	@echo "  CC.fuzz $<"
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@
$(OUT)/obj/fuzz/common/version.o: $(OUT)/gen/buildinfo.h
$(OUT)/obj/fuzz/common/version.o: FUZZ_CFLAGS += -I$(OUT)/gen

# a test named test/unit/<tool>_*.c (or fuzz) links that tool's modules (not main.c);
# common_*.c links common/ only
tool_of     = $(firstword $(subst _, ,$(notdir $(1))))
tool_mods   = $(if $(filter $(call tool_of,$(1)),$(TOOLS)),$(filter-out tools/$(call tool_of,$(1))/main.c,$(call tool_srcs,$(call tool_of,$(1)))))

UNIT_SRC    := $(sort $(wildcard test/unit/*_test.c))
UNIT_NAMES  := $(UNIT_SRC:test/unit/%.c=%)
UNIT_BINS   := $(UNIT_NAMES:%=$(OUT)/test/unit/%)
define UNIT_template
$(OUT)/test/unit/$(1): $(OUT)/obj/host/test/unit/$(1).o \
        $(patsubst %.c,$(OUT)/obj/host/%.o,$(call tool_mods,$(1)) $(COMMON_SRC))
	@mkdir -p $$(@D)
	@echo "  LINK    $$@"
	$(Q)$(HOST_CC) $(HOST_CFLAGS) -o $$@ $$^ $(MBED_HOST)/lib/libmbedcrypto.a -lcmocka
endef
$(foreach u,$(UNIT_SRC:test/unit/%.c=%),$(eval $(call UNIT_template,$(u))))

FUZZ_SRC    := $(sort $(wildcard test/fuzz/*_fuzz.c))
FUZZ_BINS   := $(FUZZ_SRC:test/fuzz/%.c=$(OUT)/test/fuzz/%)
define FUZZ_template
$(OUT)/test/fuzz/$(1): $(OUT)/obj/fuzz/test/fuzz/$(1).o \
        $(patsubst %.c,$(OUT)/obj/fuzz/%.o,$(call tool_mods,$(1)) $(COMMON_SRC))
	@mkdir -p $$(@D)
	@echo "  LINK    $$@"
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -o $$@ $$^ $(MBED_HOST)/lib/libmbedcrypto.a
endef
$(foreach f,$(FUZZ_SRC:test/fuzz/%.c=%),$(eval $(call FUZZ_template,$(f))))

# a tool built from the same sources with the sanitizers (host gcc, ASan+UBSan):
# out/asan/<tool>, for integration tests that run it against hostile peers
define ASAN_template
$(OUT)/asan/$(1): $(patsubst %.c,$(OUT)/obj/host/%.o,$(call tool_srcs,$(1)) $(COMMON_SRC))
	@mkdir -p $$(@D)
	@echo "  LINK    $$@"
	$(Q)$(HOST_CC) $(HOST_CFLAGS) -o $$@ $$^ $(MBED_HOST)/lib/libmbedcrypto.a -lpthread
endef
$(foreach t,$(TOOLS),$(eval $(call ASAN_template,$(t))))

unit: $(UNIT_BINS)
fuzz-bins: $(FUZZ_BINS)
asan: $(addprefix $(OUT)/asan/,$(TOOLS))

# ---- running the tests (test/run.sh prints the results and the "N passed" line)
# make check T=S...: those suites (S, S.bats or its path), with what they run: the
# sanitized esxperf for a suite that names out/asan, the aarch64 build for one that
# reads ESXDIAG_BIN_AARCH64
SUITES      := $(patsubst test/integration/%.bats,%,$(sort $(wildcard test/integration/*.bats)))
# T and U are for this make only: a suite that runs make itself must not inherit them
# (make.bats runs make check: with T=make in its environment it would run itself)
unexport T U
ifneq ($(filter check,$(MAKECMDGOALS)),)
CHECK_T     := $(basename $(notdir $(T)))
$(if $(CHECK_T),,$(error make check: no suite named (give T=NAME, one of: $(SUITES))))
$(if $(filter-out $(SUITES),$(CHECK_T)),$(error make check: T=$(filter-out $(SUITES),$(CHECK_T)): no such suite in test/integration (one of: $(SUITES))))
CHECK_FILES := $(CHECK_T:%=test/integration/%.bats)
CHECK_NEEDS := $(if $(shell grep -l 'out/asan' $(CHECK_FILES)),$(OUT)/asan/esxperf) \
               $(if $(shell grep -l 'ESXDIAG_BIN_AARCH64' $(CHECK_FILES)),all-arches)
endif
check: all deps-test $(CHECK_NEEDS)
	@./test/run.sh bats $(CHECK_T)

# make check-unit [U=name]: the unit tests whose name holds name (all without U)
CHECK_UNITS := $(strip $(if $(U),$(foreach u,$(UNIT_NAMES),$(if $(findstring $(U),$(u)),$(u))),$(UNIT_NAMES)))
ifneq ($(filter check-unit,$(MAKECMDGOALS)),)
$(if $(CHECK_UNITS),,$(error make check-unit: U=$(U): no unit test's name holds it (test/unit/*_test.c)))
endif
check-unit: $(CHECK_UNITS:%=$(OUT)/test/unit/%)
	@./test/run.sh unit $(CHECK_UNITS)

# make test: the dependencies of every architecture first (installed when missing),
# then everything built, then every test; aarch64 too (binaries, qemu runs)
test:
	$(Q)$(MAKE) --no-print-directory deps-all
	$(Q)$(MAKE) --no-print-directory all-arches unit fuzz-bins $(OUT)/asan/esxperf
	@./test/run.sh

demo:
	$(Q)$(MAKE) --no-print-directory deps
	$(Q)$(MAKE) --no-print-directory all
	@./test/lib/demo.sh

# make install PREFIX=DIR: the x86_64 tools (static: they run on any x86_64 Linux,
# e.g. the machine that drives the fleet) and their man pages
MAN_PAGES   := $(sort $(wildcard docs/*.1))
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0755 $(addprefix $(A_BIN)/,$(TOOLS)) $(DESTDIR)$(PREFIX)/bin/
	$(if $(MAN_PAGES),install -m 0644 $(MAN_PAGES) $(DESTDIR)$(PREFIX)/share/man/man1/)

dist: all
	@./build/dist.sh $(VERSION) $(ARCH)
	@./build/dist-fleet.sh $(VERSION)
dist-all:
	$(Q)set -e; for a in $(ARCHES); do $(MAKE) --no-print-directory ARCH=$$a dist; done

bench: all deps-test
	@./test/lib/bench.sh

fuzz: $(FUZZ_BINS) deps-test
	@./test/lib/fuzz.sh $(FUZZ_SECONDS)

clean:
	rm -rf $(OUT) dist

-include $(shell find $(sort $(OUT)/obj $(A_OBJ)) -name '*.d' 2>/dev/null)
