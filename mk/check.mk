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

# The checker's verdict is the last line a student sees: make would add
# "*** [check] Error 1" under it, so a check that does not pass ends make
# quietly instead (SIGPIPE: no message from make or the shell, status 141).
# scripts/check itself exits 0, 1, 2 or 130 (docs/check.md).
quiet_fail = || kill -PIPE $$PPID

check: check-deps
	@$(if $(DOOR),CHECK_DOOR=$(DOOR) )scripts/check $(EX) $(quiet_fail)

hint:
	@scripts/check --hint $(EX) $(quiet_fail)

progress:
	@scripts/check --progress $(quiet_fail)

watch: check-deps
	@$(if $(DOOR),CHECK_DOOR=$(DOOR) )scripts/check --watch $(EX) $(quiet_fail)
