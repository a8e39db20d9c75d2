# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# The target architecture, for common.mk and for the Makefiles that do not
# include it (tests/helpers, tests/unit, scripts). ARCH is the kernel's
# name for it (x86, arm64): the host's by default, so a native arm64 host
# builds arm64 with no option. Another ARCH is a cross build:
#
#   make ARCH=arm64   on an x86 host: Debian's aarch64-linux-gnu-gcc and
#                     the :arm64 libraries (scripts/install-deps.sh
#                     --cross-arm64); every output under build/arm64/,
#                     programs too, so no x86 file is overwritten
#
# UNAME_M stands in for `uname -m` (make UNAME_M=aarch64: this logic as an
# arm64 host would run it). Sets HOST_ARCH, ARCH, CROSS (1 or empty),
# BUILD_DIR, and CC and AR for a cross build unless given.

ARCH_MK_ROOT := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/..)
UNAME_M ?= $(shell uname -m)
arch_name = $(patsubst amd64,x86,$(patsubst x86_64,x86,$(patsubst aarch64,arm64,$(1))))
HOST_ARCH := $(call arch_name,$(UNAME_M))

# Only the command line picks ARCH: an ARCH in the environment (a kernel
# developer's shell) must not turn this into a cross build.
ifeq ($(origin ARCH),command line)
override ARCH := $(call arch_name,$(ARCH))
else
ARCH := $(HOST_ARCH)
endif

CROSS :=
BUILD_DIR := $(ARCH_MK_ROOT)/build
ifneq ($(ARCH),$(HOST_ARCH))
CROSS := 1
BUILD_DIR := $(ARCH_MK_ROOT)/build/$(ARCH)
TRIPLET_x86 := x86_64-linux-gnu
TRIPLET_arm64 := aarch64-linux-gnu
ifeq ($(TRIPLET_$(ARCH))$(CROSS_COMPILE),)
$(error ARCH=$(ARCH): no cross compiler known for it (x86, arm64); set CROSS_COMPILE=<triplet>-)
endif
CROSS_COMPILE ?= $(TRIPLET_$(ARCH))-
# a CC or AR in the environment is the host's: only the command line's win
ifneq ($(filter default environment,$(origin CC)),)
CC := $(CROSS_COMPILE)gcc
endif
ifneq ($(filter default environment,$(origin AR)),)
AR := $(CROSS_COMPILE)ar
endif
endif
