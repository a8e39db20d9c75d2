# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Exercises that check themselves (docs/check.md, scripts/check):
#   make check               the first exercise not done yet
#   make check EX=03.1       one exercise; EX=all every one
#   make hint EX=03.1        its hint
#   make progress            done / not yet / not tried, per exercise
#   make watch EX=03.1       check again on every save (inotify-tools)
# DOOR=fentry|kprobe|tracepoint runs the stages' programs in that door.

.PHONY: check hint progress watch check-deps
check-deps: common
	@$(MAKE) --no-print-directory -C tests/helpers >/dev/null

check: check-deps
	@$(if $(DOOR),CHECK_DOOR=$(DOOR) )scripts/check $(EX)

hint:
	@scripts/check --hint $(EX)

progress:
	@scripts/check --progress

watch: check-deps
	@$(if $(DOOR),CHECK_DOOR=$(DOOR) )scripts/check --watch $(EX)
