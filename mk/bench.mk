# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The overhead lab (docs/overhead.md), opt-in: make test never runs it.
#   make bench                          every stage, the floor, the fast
#                                       stage 03, biolatency, bpftrace
#   make bench BENCH_ARGS='-r 5 -t 10'  more rounds, longer runs (scripts/bench --help)
# Its programs (bench/*/) are built by make test too, which tests them.

BENCH_DIRS := $(patsubst %/Makefile,%,$(wildcard bench/*/Makefile))

.PHONY: bench bench-build clean-bench
bench-build: common
	@for d in $(BENCH_DIRS); do $(MAKE) --no-print-directory -C $$d || exit 1; done

bench: all bench-build solutions
	@scripts/bench $(BENCH_ARGS)

test: bench-build

clean-bench:
	@for d in $(BENCH_DIRS); do $(MAKE) --no-print-directory -C $$d clean; done

clean: clean-bench
