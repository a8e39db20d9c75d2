# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The overhead lab (docs/overhead.md), opt-in: make test never runs it.
#   make bench                          every stage, the floor, biolatency, bpftrace
#   make bench BENCH_ARGS='-r 5 -t 10'  more rounds, longer runs (scripts/bench --help)

.PHONY: bench bench-floor clean-bench
bench-floor: common
	@$(MAKE) --no-print-directory -C bench/floor

bench: all bench-floor solutions
	@scripts/bench $(BENCH_ARGS)

clean-bench:
	@$(MAKE) --no-print-directory -C bench/floor clean

clean: clean-bench
