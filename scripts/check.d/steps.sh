# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# One check: the student's copy, then its steps in order; the first that
# fails ends the check. Sets STEP (the step reached) and RUN_DOOR.

say() {	# say STEP TEXT: one step's line
	printf '  %-9s %s\n' "$1" "$2"
}

# starting_point ID: make the student's copy on the first check
# (check.d/copy.sh): diff -ru STAGE work/ID shows the answer. Later
# checks say which copy they check.
starting_point() {
	if [ -d "$W" ]; then
		# made earlier: by this student, or by whoever shares the checkout
		echo "your copy: ${W#"$ROOT"/}/, made earlier (rm -rf ${W#"$ROOT"/} and check again for a fresh one)"
		return 0
	fi
	ex_copy "$W" || return 1
	if [ -n "$SOURCE" ]; then
		echo "your copy: ${W#"$ROOT"/}/vload.bpf.c, from $SOURCE (edit it, then check again)"
		return
	fi
	echo "your copy: ${W#"$ROOT"/}/, from $STAGE (diff -ru $STAGE ${W#"$ROOT"/} shows your answer)"
	for _f in $ALSO; do
		echo "  and ${W#"$ROOT"/}/${_f##*/}, from $_f (used in place of it)"
	done
}

# build TARGET: make one target of the copy, into $B; the copy's own
# Makefile is not used (the copy may live anywhere: the tests put it in
# a temp dir), common.mk is.
build() {
	set -- "$1" OUTPUT="$B" APP_BIN="$B/$APP" APP="$APP"
	[ -n "$SOURCE" ] && set -- "$@" VPATH="$ROOT/exercises/verifier"	# vload.c
	make --no-print-directory -f "$ROOT/common/common.mk" -C "$W" "$@"
}

# build_step STEP TARGET: one build step; on failure the tool's own
# messages (clang's, bpftool's, gcc's) as they are, then what they mean.
build_step() {
	STEP=$1
	if build "$2" >"$B/$1.log" 2>&1; then
		say "$1" ok
		return 0
	fi
	say "$1" "FAIL (${B#"$ROOT"/}/$1.log):"
	grep -Ev '^  [A-Z-]+ +/|^make(\[[0-9]+\])?: ' "$B/$1.log"
	explain "$B/$1.log"
	return 1
}

# check_steps ID: the steps after the copy; 0 if every one passed. A
# prebuilt program (CHECK_PREBUILT) goes straight to load.
check_steps() {
	if [ -n "$CHECK_PREBUILT" ]; then
		STEP=build
		[ -x "$PROG" ] || { say build "FAIL: no program $PROG (CHECK_PREBUILT)"; return 1; }
		say build "prebuilt: $PROG"
	else
		build_step compile "$B/$APP.bpf.o" || return 1
		build_step skeleton "$B/$APP.skel.h" || return 1
		build_step build "$B/$APP" || return 1
	fi
	STEP=load
	if [ "$(id -u)" -ne 0 ]; then
		say load "FAIL: loading BPF needs root (sudo make check)"
		return 1
	fi
	if [ -z "$DEV" ]; then
		scratch_dev || { say load "FAIL: cannot make a loop device for the check"; return 1; }
	fi
	if [ -n "$SOURCE" ]; then
		ex_run_vload
	else
		# shellcheck disable=SC1091
		. "$EX_DIR/run.sh"
		ex_run
	fi
}

# check_one ID: check one exercise, say and record the outcome; 0 pass,
# 1 fail, 3 skipped (this kernel lacks what it needs: one line, nothing
# recorded). A run step that finds so only by running (05.3: which door
# DOOR=auto takes) sets RUN_SKIP to why and returns 1; that is kept in
# the build folder (ex_unmet reads it), so make check passes it over
# next time. CHECK_ID and CHECK_T0 say, to an interrupt, which check it
# ended.
check_one() {
	CHECK_T0=$(date +%s)
	ex_load "$1"
	_why=$(ex_unmet)
	if [ -n "$_why" ]; then
		echo "$1: skipped: $_why"
		return 3
	fi
	W=$WORK/$1
	B=$BUILDS/$1
	PROG=$B/$APP
	[ -n "$CHECK_PREBUILT" ] && PROG=$CHECK_PREBUILT/$APP W=	# no copy
	STEP=copy
	RUN_DOOR= RUN_SKIP=
	echo "check $1: $TITLE"
	CHECK_ID=$1
	if ! mkdir -p "$B" || { [ -n "$W" ] && ! starting_point "$1"; }; then
		CHECK_ID=
		say copy "FAIL: cannot make ${W#"$ROOT"/}"
		return 1
	fi
	if check_steps "$1"; then
		_res=pass
	else
		_res=fail
	fi
	stop_prog_quiet	# a run step that failed half-way
	scratch_cleanup
	CHECK_ID=
	if [ "$_res" = fail ] && [ -n "$RUN_SKIP" ]; then
		skip_note >"$B/skipped"
		echo "$1: skipped: $RUN_SKIP"
		return 3
	fi
	_s=$(($(date +%s) - CHECK_T0))
	result_add "$1" "$STEP" "$_res" "$_s" "$RUN_DOOR"
	if [ "$_res" = pass ]; then
		echo "$1: done ($_s s)"
		return 0
	fi
	echo "$1: not yet, at $STEP: make hint EX=$1 for a hint"
	return 1
}

# check_all: every exercise, on one loop device; a line of totals
check_all() {
	_pass=0 _n=0 _skip=0
	for _id in $(ex_ids); do
		check_one "$_id"
		case $? in
		0) _pass=$((_pass + 1)) ;;
		3) _skip=$((_skip + 1)) ;;
		esac
		_n=$((_n + 1))
		echo
	done
	_s=
	[ "$_skip" -gt 0 ] && _s=", $_skip skipped (this kernel lacks what they need)"
	echo "$_pass of $_n exercises pass$_s"
	[ $((_pass + _skip)) -eq "$_n" ]
}

# Ctrl-C, a kill, a closed terminal or pipe: stop the program under test
# (it detaches on SIGINT), undo what the check made, record the check as
# interrupted at the step it reached, then go. Said on stderr: stdout may
# be the pipe that closed.
check_abort() {
	trap - INT TERM HUP PIPE
	stop_prog_quiet
	scratch_cleanup
	if [ -n "$CHECK_ID" ]; then
		result_add "$CHECK_ID" "$STEP" interrupted $(($(date +%s) - CHECK_T0)) "$RUN_DOOR"
		echo "$CHECK_ID: interrupted at $STEP" >&2
	fi
	cleanup
	exit 130
}
