# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Cross builds (common/arch.mk), for a VM or board of another architecture:
#   make ARCH=arm64        on an x86 host: every stage, solution, bench
#                          program, test helper, unit test and scripts/
#                          tool, static aarch64, under build/arm64/
#                          (scripts/install-deps.sh --cross-arm64 first)
#   make ARCH=arm64 clean  removes build/arm64/; make clean removes it too
# Its programs cannot run here: test, demo, bench and the vm targets stop.

ifneq ($(CROSS),)
all: helpers bench-build solutions

CROSS_RUN := $(filter test demo bench vm vm-%,$(MAKECMDGOALS))
ifneq ($(CROSS_RUN),)
$(error make $(CROSS_RUN) ARCH=$(ARCH): runs the programs, which are $(ARCH), on this $(HOST_ARCH) host; make ARCH=$(ARCH) builds them, make $(CROSS_RUN) VM_ARCH=$(ARCH) runs them in the $(ARCH) classroom VM)
endif
endif
