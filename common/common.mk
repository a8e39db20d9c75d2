# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The one rule set of the workbook. A stage Makefile sets APP (the program
# name: bio_trace, pagecache_trace, tracex3) and includes this file:
#
#   APP := bio_trace
#   include ../common/common.mk
#
# Output: the program in the stage folder; everything else under build/.
# A cross build (make ARCH=arm64, arch.mk) puts the program with the rest,
# under build/arm64/<stage>/. V=1 shows the full commands.

COMMON_DIR := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
ROOT_DIR := $(abspath $(COMMON_DIR)/..)
include $(COMMON_DIR)/arch.mk
COMMON_OUT := $(BUILD_DIR)/common
OUTPUT := $(BUILD_DIR)/$(notdir $(CURDIR))

CLANG ?= clang
CC ?= gcc
LLVM_STRIP ?= llvm-strip
BPFTOOL ?= $(shell command -v bpftool 2>/dev/null || echo /usr/sbin/bpftool)
# The committed vmlinux.h (common/vmlinux/<arch>/: x86 from Linux 6.18,
# arm64 from 6.1; its README says how) makes the build the same on every
# host: CO-RE fixes each field access up at load time. Set
# VMLINUX_BTF=/sys/kernel/btf/vmlinux to use the running kernel's instead
# (the only choice on an architecture without a committed one).
VMLINUX_COMMITTED := $(wildcard $(COMMON_DIR)/vmlinux/$(ARCH)/vmlinux.h)
ifeq ($(VMLINUX_COMMITTED)$(VMLINUX_BTF),)
ifneq ($(CROSS),)
$(error ARCH=$(ARCH): no common/vmlinux/$(ARCH)/vmlinux.h; set VMLINUX_BTF to that architecture's BTF)
endif
VMLINUX_BTF := /sys/kernel/btf/vmlinux
endif

VMLINUX := $(BUILD_DIR)/vmlinux.h
LIBCOMMON := $(COMMON_OUT)/libcommon.a
COMMON_SRCS := $(wildcard $(COMMON_DIR)/*.c)
COMMON_OBJS := $(patsubst $(COMMON_DIR)/%.c,$(COMMON_OUT)/%.o,$(COMMON_SRCS))
COMMON_HDRS := $(wildcard $(COMMON_DIR)/*.h)
DEPS_STAMP := $(BUILD_DIR)/.deps-ok

CFLAGS ?= -g -O2
CFLAGS += -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
	-I$(COMMON_DIR) -I$(OUTPUT)
# -mcpu=v3: atomic instructions (the overhead lab's start map claims slots
# with compare-and-swap) and 32-bit jumps.
BPF_CFLAGS := -g -O2 -Wall -Wno-unused-function -target bpf -mcpu=v3 \
	-D__TARGET_ARCH_$(ARCH) -I$(BUILD_DIR) -I$(COMMON_DIR)
# Static, so a built stage can be copied into the classroom VM and run there.
LDFLAGS += -static
LDLIBS += -lbpf -lelf -lz

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(patsubst $(ROOT_DIR)/%,%,$(2))";
endif

.DELETE_ON_ERROR:
.SECONDARY:

ifeq ($(COMMON_ONLY),)
APP_BIN := $(if $(CROSS),$(OUTPUT)/$(APP),$(APP))

.PHONY: all clean
all: $(APP_BIN)

# The folder's other C files (an exercise's own copy of common/btf_scan.c)
# link before libcommon.a: the linker then takes none of common's copy.
OWN_OBJS := $(patsubst %.c,$(OUTPUT)/%.o,$(filter-out $(APP).c %.bpf.c,$(wildcard *.c)))
# and its own headers, which any of its C files may include, and the
# files a page is made of (tools/ctracer's .css and .js, which
# tree_page.c builds in with .incbin)
OWN_HDRS := $(wildcard *.h *.css *.js)

# A test build (TEST_HOOKS=1, tests/helpers/Makefile) links the test
# hooks of tests/hooks/ too; a stage's own program has none.
HOOKS_DIR := $(ROOT_DIR)/tests/hooks
HOOK_OBJS := $(if $(TEST_HOOKS),$(patsubst $(HOOKS_DIR)/%.c,$(OUTPUT)/%.o,$(wildcard $(HOOKS_DIR)/*.c)))

$(APP_BIN): $(OUTPUT)/$(APP).o $(OWN_OBJS) $(HOOK_OBJS) $(LIBCOMMON)
	$(call msg,BINARY,$(abspath $@))
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(OUTPUT)/$(APP).o: $(APP).c $(OUTPUT)/$(APP).skel.h $(COMMON_HDRS) $(OWN_HDRS) | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(OWN_OBJS): $(OUTPUT)/%.o: %.c $(COMMON_HDRS) $(OWN_HDRS) | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(HOOK_OBJS): $(OUTPUT)/%.o: $(HOOKS_DIR)/%.c $(COMMON_HDRS) | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -DBWB_TEST_HOOKS -c $< -o $@

$(OUTPUT)/$(APP).skel.h: $(OUTPUT)/$(APP).bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $(APP)_bpf > $@

# $(APP).h: types a stage's two sides share (rebuilds the skeleton, so both).
$(OUTPUT)/$(APP).bpf.o: $(APP).bpf.c $(VMLINUX) $(wildcard $(COMMON_DIR)/*.bpf.h) \
		$(COMMON_DIR)/stats.h $(COMMON_DIR)/bio_covered.h $(wildcard $(APP).h) \
		$(wildcard *.bpf.h) | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@.tmp
	$(Q)$(BPFTOOL) gen object $@ $@.tmp && rm -f $@.tmp

# The shared pieces are built by common/Makefile, once, even under make -j.
$(LIBCOMMON) $(VMLINUX): FORCE
	$(Q)$(MAKE) --no-print-directory -C $(COMMON_DIR) common

clean:
	$(call msg,CLEAN,$(CURDIR))
	$(Q)rm -rf $(OUTPUT) $(APP_BIN)

.PHONY: FORCE
FORCE:
else
.PHONY: common
common: $(LIBCOMMON) $(VMLINUX)
	@:

# Made anew, not updated: a file gone from common/ leaves no member behind.
$(LIBCOMMON): $(COMMON_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@.tmp && $(AR) rcs $@.tmp $^ && mv $@.tmp $@

$(COMMON_OUT)/%.o: $(COMMON_DIR)/%.c $(COMMON_HDRS) | $(COMMON_OUT) $(DEPS_STAMP)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

# CO-RE relocates every field access to the kernel that loads the program.
ifeq ($(VMLINUX_BTF),)
$(VMLINUX): $(VMLINUX_COMMITTED) | $(DEPS_STAMP) $(BUILD_DIR)
	$(call msg,COPY,$@)
	$(Q)cp $< $@
else
$(VMLINUX): | $(DEPS_STAMP) $(BUILD_DIR)
	$(call msg,GEN,$@)
	$(Q)$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@.tmp && mv $@.tmp $@
endif

# A fresh machine: install the toolchain first (scripts/install-deps.sh).
# A cross toolchain is not installed behind the user's back: it adds a
# foreign architecture to dpkg.
$(DEPS_STAMP): | $(BUILD_DIR)
ifeq ($(CROSS),)
	$(Q)$(ROOT_DIR)/scripts/install-deps.sh --check >/dev/null 2>&1 || \
		$(ROOT_DIR)/scripts/install-deps.sh
else
	$(Q)$(ROOT_DIR)/scripts/install-deps.sh --check --cross-$(ARCH) >/dev/null 2>&1 || \
		{ echo "make ARCH=$(ARCH): no cross toolchain; as root: scripts/install-deps.sh --cross-$(ARCH)" >&2; exit 1; }
endif
	$(Q)touch $@
endif

$(sort $(BUILD_DIR) $(COMMON_OUT) $(OUTPUT)):
	$(Q)mkdir -p $@
