# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The workbook: every stage folder is found by wildcard and built alone.
#   make                 build every stage and tools/ (ctracer, iofollow)
#   make -C stage03_latency_map    build one
#   make demo STAGE=03   run a stage against a built-in workload
#   make demo EX=03.1    the same with your copy of exercise 03.1 (work/03.1)
#   make test            build, then run every test (what CI runs)
#   make check           the next exercise, checked (mk/check.mk, docs/check.md)
#   make tools           the C programs of scripts/ (scripts/heatmap); make does too
#   make ARCH=arm64      a cross build into build/arm64/ (mk/cross.mk)

STAGES := $(sort $(wildcard stage[0-9][0-9]_*))
# The practitioners' programs, built like stages (tools/ctracer/, tools/iofollow/)
TOOL_DIRS := $(patsubst %/Makefile,%,$(sort $(wildcard tools/*/Makefile)))
STAGE ?= 01
include common/arch.mk

.PHONY: all common $(STAGES) $(TOOL_DIRS) clean test demo helpers tools
all: $(STAGES) $(TOOL_DIRS) tools

common:
	@$(MAKE) --no-print-directory -C common common

$(STAGES) $(TOOL_DIRS): common
	@$(MAKE) --no-print-directory -C $@

tools: common
	@$(MAKE) --no-print-directory -C scripts

helpers: common
	@$(MAKE) --no-print-directory -C tests/helpers
	@$(MAKE) --no-print-directory -C tests/unit

demo: all
	@scripts/demo.sh $(if $(EX),- $(EX),$(STAGE))

test: all helpers
	@tests/run.sh

# Optional parts add their own targets here (vm, bench, diff …).
include $(wildcard mk/*.mk)

clean:
	@for s in $(STAGES) $(TOOL_DIRS); do $(MAKE) --no-print-directory -C $$s clean; done
	@$(MAKE) --no-print-directory -C scripts clean
	rm -rf $(if $(CROSS),build/$(ARCH),build tests/bin)
