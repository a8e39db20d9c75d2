# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The workbook's text around the stages:
#   make diff STAGE=05   what stage 05 adds to its base (scripts/stage-diff.sh)
#   make solutions       build the teachers' solutions (make test does too)

SOLUTIONS := $(patsubst %/Makefile,%,$(wildcard solutions/*/Makefile))

.PHONY: diff solutions clean-solutions
diff:
	@scripts/stage-diff.sh $(STAGE)

solutions: common
	@for s in $(SOLUTIONS); do $(MAKE) --no-print-directory -C $$s || exit 1; done

# make test runs tests/solutions.t: build them first.
test: solutions

clean-solutions:
	@for s in $(SOLUTIONS); do $(MAKE) --no-print-directory -C $$s clean; done

clean: clean-solutions
