# esxdiag: one entry point.
#   make          deps (first time: apt-get, mbedtls from Debian source) + out/bin/*
#   make test     unit (ASan+UBSan), integration (bats, real binaries), fuzz smoke,
#                 binary checks, reproducibility; ends with "N passed, N failed"
#   make demo     every tool once, on this machine only
#   make dist     dist/esxdiag-$(VERSION)-x86_64.tar.gz (reproducible)
#   make bench    side-by-side benchmarks against the anchors
#   make fuzz     each libFuzzer target for FUZZ_SECONDS (default 60)
#   V=1           show the full compiler command lines
# Any folder tools/<name>/ with a main.c becomes out/bin/<name>.

VERSION     := 0.1.0
SHELL       := /bin/bash
TOOLS       := $(sort $(patsubst tools/%/main.c,%,$(wildcard tools/*/main.c)))
CACHE       := .cache
MBED_MUSL   := $(CACHE)/mbedtls/musl
MBED_HOST   := $(CACHE)/mbedtls/host
DEPS_STAMP  := $(CACHE)/mbedtls/built.stamp
OUT         := out
FUZZ_SECONDS ?= 60
V           ?= 0
Q           := $(if $(filter 1,$(V)),,@)

COMMON_SRC  := $(sort $(wildcard common/*.c))
WARN        := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
               -Wformat=2 -Wvla
DEFS        := -std=c11 -D_GNU_SOURCE -DMBEDTLS_CONFIG_FILE='"esxdiag_mbedtls_config.h"'
INCS        := -Icommon -I$(CACHE)/include

# shipped binaries: static musl, small, hardened where it costs nothing
MUSL_CC     := musl-gcc
MUSL_CFLAGS := $(DEFS) $(WARN) -Os -ffunction-sections -fdata-sections \
               -fno-asynchronous-unwind-tables -fno-unwind-tables \
               -fstack-protector-strong -ffile-prefix-map=$(CURDIR)=. \
               $(INCS) -I$(MBED_MUSL)/include
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

.PHONY: all deps test unit fuzz-bins demo dist bench fuzz clean FORCE
.DELETE_ON_ERROR:

all: $(addprefix $(OUT)/bin/,$(TOOLS))

deps: $(DEPS_STAMP)
$(DEPS_STAMP): build/deps.sh build/mbedtls_config.h
	./build/deps.sh

# build information, rewritten only when it changes
$(OUT)/gen/buildinfo.h: FORCE | $(DEPS_STAMP)
	@mkdir -p $(@D)
	@musl=$$(cat $(CACHE)/musl.version 2>/dev/null); \
	 [ -n "$$musl" ] || { echo "buildinfo: $(CACHE)/musl.version missing (run ./build/deps.sh)" >&2; exit 1; }; \
	 printf '#define ESXDIAG_VERSION "%s"\n#define ESXDIAG_COMMIT "%s"\n#define ESXDIAG_MUSL "%s"\n' \
	    '$(VERSION)' '$(GIT_COMMIT)$(GIT_DIRTY)' "$$musl" > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
FORCE:

# ---- static musl build
$(OUT)/obj/musl/%.o: %.c $(DEPS_STAMP)
	@mkdir -p $(@D)
	@echo "  CC      $<"
	$(Q)$(MUSL_CC) $(MUSL_CFLAGS) -MMD -MP -c $< -o $@
$(OUT)/obj/musl/common/version.o: $(OUT)/gen/buildinfo.h
$(OUT)/obj/musl/common/version.o: MUSL_CFLAGS += -I$(OUT)/gen

MUSL_COMMON := $(COMMON_SRC:%.c=$(OUT)/obj/musl/%.o)
$(OUT)/obj/musl/libcommon.a: $(MUSL_COMMON)
	@rm -f $@
	$(Q)ar rcsD $@ $^

define TOOL_template
$(OUT)/bin/$(1): $(patsubst %.c,$(OUT)/obj/musl/%.o,$(sort $(wildcard tools/$(1)/*.c))) \
                 $(OUT)/obj/musl/libcommon.a
	@mkdir -p $$(@D)
	@echo "  LINK    $$@"
	$(Q)$(MUSL_CC) $(MUSL_LDFLAGS) -o $$@ $$^ $(MBED_MUSL)/lib/libmbedcrypto.a
endef
$(foreach t,$(TOOLS),$(eval $(call TOOL_template,$(t))))

# ---- host (sanitized) objects for unit tests and fuzz targets
$(OUT)/obj/host/%.o: %.c $(DEPS_STAMP)
	@mkdir -p $(@D)
	@echo "  CC.san  $<"
	$(Q)$(HOST_CC) $(HOST_CFLAGS) -MMD -MP -c $< -o $@
$(OUT)/obj/host/common/version.o: $(OUT)/gen/buildinfo.h
$(OUT)/obj/host/common/version.o: HOST_CFLAGS += -I$(OUT)/gen
$(OUT)/obj/fuzz/%.o: %.c $(DEPS_STAMP)
	@mkdir -p $(@D)
	@echo "  CC.fuzz $<"
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@
$(OUT)/obj/fuzz/common/version.o: $(OUT)/gen/buildinfo.h
$(OUT)/obj/fuzz/common/version.o: FUZZ_CFLAGS += -I$(OUT)/gen

# a test named test/unit/<tool>_*.c (or fuzz) links that tool's modules (not main.c);
# common_*.c links common/ only
tool_of     = $(firstword $(subst _, ,$(notdir $(1))))
tool_mods   = $(if $(filter $(call tool_of,$(1)),$(TOOLS)),$(filter-out tools/$(call tool_of,$(1))/main.c,$(sort $(wildcard tools/$(call tool_of,$(1))/*.c))))

UNIT_SRC    := $(sort $(wildcard test/unit/*_test.c))
UNIT_BINS   := $(UNIT_SRC:test/unit/%.c=$(OUT)/test/unit/%)
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

unit: $(UNIT_BINS)
fuzz-bins: $(FUZZ_BINS)

test: all $(UNIT_BINS) $(FUZZ_BINS)
	@./test/run.sh

demo: all
	@./test/lib/demo.sh

dist: all
	@./build/dist.sh $(VERSION)

bench: all
	@./test/lib/bench.sh

fuzz: $(FUZZ_BINS)
	@./test/lib/fuzz.sh $(FUZZ_SECONDS)

clean:
	rm -rf $(OUT) dist

-include $(shell find $(OUT)/obj -name '*.d' 2>/dev/null)
