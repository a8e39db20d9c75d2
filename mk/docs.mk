# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The workbook's text around the stages:
#   make diff STAGE=05   what stage 05 adds to its base (scripts/stage-diff.sh)
#   make solutions       build the teachers' answers (make test does too)

.PHONY: diff solutions solution solution-diff clean-solutions
diff:
	@scripts/stage-diff.sh $(STAGE)

# The answers (solutions/ID.patch, scripts/solution): each applied to a
# fresh copy of its starting point and built, in $(BUILD_DIR)/solutions/ID/.
#   make solution EX=03.1           one answer, built
#   make solution EX=03.1 INTO=work the answer in work/03.1, a teacher's demo
#   make solution-diff EX=03.1 DIR=work/03.1   a worked copy as the patch
solutions: common
	+@BUILD_DIR=$(BUILD_DIR) scripts/solution build -- ARCH=$(ARCH)

solution: common
	@$(if $(EX),,echo "make solution EX=ID [INTO=work]" >&2; exit 2;) \
	$(if $(INTO),scripts/solution into $(EX) $(INTO)/$(EX), \
		BUILD_DIR=$(BUILD_DIR) scripts/solution build $(EX) -- ARCH=$(ARCH))

solution-diff:
	@$(if $(and $(EX),$(DIR)),scripts/solution diff $(EX) $(DIR) >solutions/$(EX).patch.new && \
		mv solutions/$(EX).patch.new solutions/$(EX).patch, \
		echo "make solution-diff EX=ID DIR=FOLDER" >&2; exit 2)

# make test runs tests/solutions.t: build them first.
test: solutions

clean-solutions:
	rm -rf $(BUILD_DIR)/solutions

clean: clean-solutions
