#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# make check (scripts/check, docs/check.md), healed: for every exercise the
# untouched starting point fails its check at the step its spec names
# (a verifier corner program with its refusal explained), and the
# teacher's solution copied in passes; an exercise this kernel cannot
# check is skipped with one line. Then: results, progress, the teacher's
# gather script, watch, an interrupted check. The student's copies, builds and
# results go to this test's temp dir, never to work/.
# The classroom VM has no compiler: there (or with TEST_PREBUILT=1) the
# run step alone is proven, with the programs built on the host
# (CHECK_PREBUILT), in each door of TEST_DOORS: see prebuilt_proof.
. "$(dirname "$0")/lib.sh"
C=$ROOT/scripts/check
need_bin "$BIN/bio_io"

# --- 06.1's judgement (exercises/06.1/run.sh) of outputs made here, as
# arm64 6.1 prints them: one call site, two stacks (do_el0_svc+0x74 or
# +0x2c). paths06 N:C:SYSCALL:OFF...: "Path N: C bios" and a stack from
# SYSCALL through do_el0_svc+OFF each; says what the check reads of
# them, and where a path is split ("~") its verdict
paths06() {
	printf '%s\n' "$@" | awk -F: 'BEGIN { print "Max latency 1000 ns"; print "Busiest submit paths:" }
		{
			print "Path " $1 ": " $2 " bios"
			n = split("el0t_64_sync+0x18c el0t_64_sync_handler+0x90 el0_svc+0x30 do_el0_svc+" $4 \
				" invoke_syscall+0x50 __arm64_sys_" $3 "+0x9c ksys_" $3 "+0x8c submit_bio+0x20", f, " ")
			for (i = 1; i <= n; i++)
				print "=> " f[i]
		}' >"$T_TMP/06.1.out"
	(
		# shellcheck disable=SC1091
		. "$ROOT/exercises/06.1/run.sh"
		got=$(busiest_paths "$T_TMP/06.1.out")
		case $got in
		*"~"*) echo "$got: $(split_verdict "$got")" ;;
		*) echo "$got" ;;
		esac
	)
}
is "$(paths06 1:5:pread64:0x74 2:2:pwrite64:0x74)" " 1:5:read 2:2:write" \
	"06.1's check: stacks that do not split, read exactly"
is "$(paths06 1:4:pread64:0x74 2:2:pwrite64:0x74 3:1:pread64:0x2c)" " 1:4:read 2:2:write 3:1:read~: ok" \
	"06.1's check: arm64 6.1's split reads (4 at +0x74, 1 at +0x2c) pass"
is "$(paths06 1:3:pread64:0x74 2:1:pwrite64:0x74 3:1:pwrite64:0x2c)" " 1:3:read 2:1:write 3:1:write~: ok" \
	"06.1's check: split writes pass"
is "$(paths06 1:4:pread64:0x74 2:2:pwrite64:0x74 3:2:pread64:0x2c)" \
	" 1:4:read 2:2:write 3:2:read~: more bios than issued" \
	"06.1's check: a split path's bios count with its system call's (6 reads of 5 fail)"
is "$(paths06 1:3:pread64:0x74 2:2:pread64:0x74 3:2:pwrite64:0x74)" " 1:3:read 2:2:read= 3:2:write" \
	"06.1's check: a stack printed twice (same offsets) is no split: not the exact answer"
is "$(paths06 1:3:pread64:0x74 2:1:pread64:0x2c 3:1:pread64:0x74)" \
	" 1:3:read 2:1:read~ 3:1:read=: path 3 is an earlier path again" \
	"06.1's check: a stack printed twice fails beside a split"
is "$(paths06 1:4:pread64:0x74 2:1:pread64:0x2c)" " 1:4:read 2:1:read~: 2 paths, not the top three" \
	"06.1's check: where stacks split, three paths are asked for"

# 06.1's judgement where the summary says "Lost: N stacks not captured"
# (a hash collision in the stack map: real, forced by a 1-slot map): the
# exact answer less one system call's path, all its bios counted lost
lost06() {
	printf 'Lost: %s stacks not captured\n' "$2" >"$T_TMP/06.1.out"
	(
		# shellcheck disable=SC1091
		. "$ROOT/exercises/06.1/run.sh"
		lost_path "$1" "$T_TMP/06.1.out" >/dev/null && echo ok || echo no
	)
}
is "$(lost06 ' 1:5:read' 2) $(lost06 ' 1:2:write' 5)" "ok ok" \
	"06.1's check: one path whose bios were all counted as stacks not captured passes"
is "$(lost06 ' 1:5:read' 1) $(lost06 ' 1:4:read' 3) $(lost06 ' 1:5:read 2:2:write' 2) $(lost06 ' 1:5:read' 0)" \
	"no no no no" "06.1's check: stacks not captured that do not make up the missing path fail"

# --- a spec whose NEEDS has a kind the checker does not know (it would
# count as met): an error, one line, exit 2. A copy of the checker over
# a made-up exercise
mkdir -p "$T_TMP/bad/scripts" "$T_TMP/bad/tests" "$T_TMP/bad/exercises/99.1"
cp -R "$C" "$ROOT/scripts/check.d" "$T_TMP/bad/scripts/"
cp "$ROOT/tests/lib.sh" "$T_TMP/bad/tests/"
printf "TITLE='made up'\nSOURCE=x.bpf.c\nNEEDS='biodev fpu:neon'\n" >"$T_TMP/bad/exercises/99.1/spec"
"$T_TMP/bad/scripts/check" --list >/dev/null 2>"$T_TMP/err"
is "$? $(cat "$T_TMP/err")" "2 check: exercise 99.1: unknown NEEDS kind 'fpu' (exercises/99.1/spec)" \
	"a NEEDS kind the checker does not know: one line names the exercise and the kind, exit 2"

# --- 10.3's fdoor under DOOR=auto, where there are no kprobes:
# tools/ctracer's ctracer is asked about fentry, built first when it is
# not (a made-up tools/ctracer here, whose ctracer says what this
# host's does)
if command -v make >/dev/null 2>&1; then
	mkdir -p "$T_TMP/fd/tools/ctracer"
	printf 'ctracer:\n\tprintf %s >$@ && chmod +x $@\n' \
		"'#!/bin/sh\necho \"ctracer: no fentry door on this kernel (refused by this kernel (EPERM))\" >&2\nexit 1\n'" \
		>"$T_TMP/fd/tools/ctracer/Makefile"
	(
		ROOT=$T_TMP/fd DOOR=auto
		# shellcheck disable=SC1091
		. "$C.d/registry.sh"
		have_kprobes() { return 1; }
		id() { echo 0; }	# fentry is asked as root
		fdoor_missing
	) >"$T_TMP/fd.out" 2>"$T_TMP/fd.err"
	is "$(cat "$T_TMP/fd.out")" "-r needs a function door, and this kernel ($(uname -r)) has none: no kprobes, fentry: refused by this kernel (EPERM)" \
		"10.3 in DOOR=auto, no kprobes, ctracer not built: it is built and asked; fentry: why"
	is "$(cat "$T_TMP/fd.err")" "check: building tools/ctracer/ctracer, to ask it about fentry" \
		"10.3 in DOOR=auto, ctracer not built: one line says it is built"
else
	skip "fdoor builds tools/ctracer's ctracer" "needs make (the VM has none; its ctracer is built)"
fi

# --- bpf_obj atomics (06.3's NEEDS) asks the verifier: here it answers
# as the release says (5.12), Debian backporting none
if [ "$(id -u)" -eq 0 ] && [ -x "$BIN/bpf_obj" ]; then
	r=$(uname -r)
	mi=${r#*.}
	want=1
	[ "${r%%.*}" -gt 5 ] || { [ "${r%%.*}" -eq 5 ] && [ "${mi%%[!0-9]*}" -ge 12 ]; } && want=0
	"$BIN/bpf_obj" atomics 2>"$T_TMP/err"
	is "$?" "$want" "bpf_obj atomics on $r: exit $want (0 from 5.12) $(cat "$T_TMP/err")"
	# a real wrong answer on a kernel without atomics: 06.3's answer (a
	# fetch-and-add used as a value), checked though NEEDS would skip it,
	# is refused at load, and the checker explains that refusal only
	t="06.3's answer where the verifier has no atomics"
	if [ "$want" = 0 ]; then
		skip "$t" "this kernel ($r) has BPF atomics (5.12 and later)"
	elif [ ! -x "$ANSWERS/06.3/bio_trace" ]; then
		skip "$t" "the answers are not built (make solutions)"
	else
		CHECK_WORK=$T_TMP/w063 CHECK_BUILD=$T_TMP/b063 CHECK_BPF_OBJ=true \
			CHECK_PREBUILT=$ANSWERS/06.3 "$C" 06.3 >"$T_TMP/c.out" 2>&1
		is "$?" 1 "$t: fails"
		check "$t: at load, the verifier's own words" grep -q 'BPF_STX uses reserved fields' "$T_TMP/c.out"
		is "$(grep -o '^  why \[[a-z]*\]' "$T_TMP/c.out" | tr '\n' ' ')" "  why [atomic] " "$t: one explanation, the atomic one"
		sed 's/^/#   /' "$T_TMP/c.out"
	fi
else
	skip "bpf_obj atomics" "needs root and tests/bin/bpf_obj"
fi

# show_check FILE: a check's output as diagnostics, from its first FAIL
# line first (a failure's first lines are what the list of failures
# keeps), then whole
show_check() {
	grep -m 1 -A 3 ' FAIL' "$1" | sed 's/^/#   /'
	sed 's/^/#   /' "$1"
}

# prebuilt_proof: for each stage exercise, the teacher's solution as built
# passes, and the stage's own program fails at the run step, saying why.
# Every exercise in every door of TEST_DOORS; under TEST_ROTATE (the
# VM: each load takes seconds under TCG) each in one door, the doors
# taken in turn, so each door checks its share. An exercise
# about one door (EX_DOOR) runs in that door only. The verifier corner's
# programs are the student's to build: host only.
prebuilt_proof() {
	need_root
	export CHECK_WORK="$T_TMP/work" CHECK_BUILD="$T_TMP/build"
	"$C" 99.9 >/dev/null 2>&1
	is "$?" 2 "check 99.9 (no such exercise): exit 2"
	i=0 NDOORS=0
	for door in $TEST_DOORS; do NDOORS=$((NDOORS + 1)); done
	for id in $("$C" --list); do
		SOURCE='' EX_DOOR='' STAGE=''
		# shellcheck disable=SC1090
		. "$ROOT/exercises/$id/spec"
		t="check $id ($TITLE)"
		if [ -n "$SOURCE" ]; then
			skip "$t" "a verifier corner program is built by the check (clang): host only"
			continue
		fi
		i=$((i + 1)) d=0
		for door in $TEST_DOORS; do
			d=$((d + 1))
			if [ -n "$EX_DOOR" ]; then
				[ "$door" = "$EX_DOOR" ] || continue
			elif [ "${TEST_ROTATE:-0}" = 1 ] && [ $((i % NDOORS)) -ne $((d % NDOORS)) ]; then
				continue
			fi
			prebuilt_door "$id" "$door" "$t [$door]"
		done
	done
	check "prebuilt checks record nothing by default" test ! -e "$CHECK_WORK/results.jsonl"
}

# prebuilt_door ID DOOR TEST: the solution passes in DOOR, the starting
# point fails at run, saying why. Skipped where this kernel or
# machine lacks what the check needs (the checker's own failure says so).
prebuilt_door() {
	CHECK_DOOR=$2 CHECK_PREBUILT=$ANSWERS/$1 "$C" "$1" >"$T_TMP/c.out" 2>&1
	rc=$?
	_why=$(sed -n "s/^$1: skipped: //p; s/^  run       FAIL: \(the checker needs .*\)/\1/p
		s/^  run       FAIL: \(the checker cannot .*\)/\1/p" "$T_TMP/c.out")
	[ -z "$_why" ] && _why=$(grep -m 1 -o "no $2 door on this kernel.*" "$T_TMP/c.out")
	if [ -n "$_why" ]; then
		skip "$3" "$_why"
		return
	fi
	is "$rc" 0 "$3: the solution passes"
	check "$3: its run step is ok" grep -q '^  run       ok' "$T_TMP/c.out"
	[ "$rc" -eq 0 ] || show_check "$T_TMP/c.out"
	CHECK_DOOR=$2 CHECK_PREBUILT=$ROOT/$STAGE "$C" "$1" >"$T_TMP/c.out" 2>&1
	rc=$?
	is "$rc" 1 "$3: the starting point fails"
	check "$3: at the run step" grep -qx "$1: not yet, at run: make hint EX=$1 for a hint" "$T_TMP/c.out"
	# want against got; or, where the answer is a new option, the stage's
	# refusal of it (04.2's -m, 06.3's -s, 09.1's -c, 10.2's --min-us)
	check "$3: says why (want against got, or the option it lacks)" \
		grep -Eq '^            want .*, got |(invalid|unrecognized) option' "$T_TMP/c.out"
	[ "$rc" -eq 1 ] || show_check "$T_TMP/c.out"
}

if [ "${TEST_PREBUILT:-0}" = 1 ] || ! command -v make >/dev/null 2>&1 ||
	! command -v clang >/dev/null 2>&1; then
	prebuilt_proof
	done_testing
fi
[ -f "$ROOT/build/common/libcommon.a" ] || skip_all "common/ is not built (run make)"
need_root
export CHECK_WORK="$T_TMP/work" CHECK_BUILD="$T_TMP/build" CHECK_RESULTS="$T_TMP/results.jsonl"

# --- usage: one line and exit 2
"$C" 99.9 >/dev/null 2>"$T_TMP/err"
is "$?" 2 "check 99.9 (no such exercise): exit 2"
is "$(cat "$T_TMP/err")" "check: no exercise '99.9' (make progress lists them)" "check 99.9: one line says why"
"$C" --bogus >/dev/null 2>"$T_TMP/err"
is "$?" 2 "check --bogus: exit 2"
is "$(wc -l <"$T_TMP/err")" 1 "check --bogus: one line"
if command -v inotifywait >/dev/null 2>&1; then
	skip "check --watch without inotify-tools" "inotifywait is installed here"
else
	"$C" --watch 01.1 >/dev/null 2>"$T_TMP/err"
	is "$?" 2 "check --watch without inotifywait: exit 2"
	is "$(cat "$T_TMP/err")" "make watch needs inotifywait (Debian: apt-get install inotify-tools)" \
		"check --watch: one line says what to install"
fi
is "$("$C" --next)" "$("$C" --list | head -n 1)" "nothing checked yet: the first exercise is next"
check "make hint EX=01.1 prints the hint" sh -c "make -s -C '$ROOT' hint EX=01.1 | grep -q bpf_get_current_comm"

# --- make check's verdict is its last line: make adds no error line
make -s -C "$ROOT" check EX=99.9 >"$T_TMP/m.out" 2>&1
rc=$?
check "make check EX=99.9: exits non-zero ($rc)" test "$rc" -ne 0
is "$(cat "$T_TMP/m.out")" "check: no exercise '99.9' (make progress lists them)" \
	"make check EX=99.9: its one line and nothing from make"
CHECK_WORK=$T_TMP/mwork CHECK_RESULTS=$T_TMP/m.jsonl make -s -C "$ROOT" check EX=01.1 >"$T_TMP/m.out" 2>&1
rc=$?
check "make check EX=01.1, the starting point: exits non-zero ($rc)" test "$rc" -ne 0
is "$(tail -n 1 "$T_TMP/m.out")" "01.1: not yet, at run: make hint EX=01.1 for a hint" \
	"make check EX=01.1: the verdict is the last line"
check "make check EX=01.1: no line from make under it" sh -c "! grep -q '^make' '$T_TMP/m.out'"

# --- every exercise: the starting point fails where expected, the solution passes
n=0 nskip=0
for id in $("$C" --list); do
	n=$((n + 1))
	SOURCE='' RULE=''
	# shellcheck disable=SC1090
	. "$ROOT/exercises/$id/spec"
	t="check $id ($TITLE)"
	"$C" "$id" >"$T_TMP/c.out" 2>&1
	rc=$?
	if grep -q "^$id: skipped: " "$T_TMP/c.out"; then	# this kernel lacks what it needs
		skip "$t" "$(sed -n "s/^$id: skipped: //p" "$T_TMP/c.out")"
		nskip=$((nskip + 1))
		continue
	fi
	is "$rc" 1 "$t: the starting point fails"
	check "$t: at the $FAILS_AT step" grep -qx "$id: not yet, at $FAILS_AT: make hint EX=$id for a hint" "$T_TMP/c.out"
	if [ -n "$RULE" ]; then
		check "$t: the refusal is explained ($RULE)" grep -q "^  why \[$RULE\]: " "$T_TMP/c.out"
		# its own rule's words only: the explanations do not overlap
		is "$(grep -c '^  why \[' "$T_TMP/c.out")" 1 "$t: one explanation"
	fi
	[ "$rc" -eq 1 ] && [ "$FAILS_AT" != compile ] &&
		check "$t: the steps before $FAILS_AT say ok" grep -q '^  compile   ok$' "$T_TMP/c.out"
	[ "$rc" -eq 1 ] || show_check "$T_TMP/c.out"
	# the teacher's answer, its patch applied to a fresh starting point
	# in the student's place (make solution EX=ID INTO=work)
	rm -rf "${CHECK_WORK:?}/$id"
	"$ROOT/scripts/solution" into "$id" "$CHECK_WORK/$id" >"$T_TMP/s.out" 2>&1
	rc=$?
	ok $rc "$t: its answer, solutions/$id.patch, applies"
	[ "$rc" -eq 0 ] || sed 's/^/#   /' "$T_TMP/s.out"
	"$C" "$id" >"$T_TMP/c.out" 2>&1
	rc=$?
	is "$rc" 0 "$t: the solution copied in passes"
	check "$t: its run step is ok" grep -q '^  run       ok' "$T_TMP/c.out"
	[ "$rc" -eq 0 ] || show_check "$T_TMP/c.out"
	is "$(grep -c "^{\"exercise\":\"$id\",\"step\":\"$FAILS_AT\",\"result\":\"fail\"," "$CHECK_RESULTS") $(grep -c "^{\"exercise\":\"$id\",\"step\":\"run\",\"result\":\"pass\"," "$CHECK_RESULTS")" \
		"1 1" "$t: results hold the fail, then the pass"
done
check "there are exercises ($n)" test "$n" -gt 0

# --- 10.1 tells a tree per request from a tree per bio: the solution with
# its request event turned off keeps the stage's walk of rq->bio, a tree
# per bio with the bio's fields. A read split into requests of one bio
# each cannot tell them apart; the batch merged into requests of several
# bios must. A copy of its own, beside the results above.
t="check 10.1: a tree per bio"
W101=$T_TMP/work101
CHECK_WORK=$W101 CHECK_RESULTS=$T_TMP/r101.jsonl "$C" 10.1 >"$T_TMP/c.out" 2>&1
if grep -q "^10.1: skipped: " "$T_TMP/c.out"; then
	skip "$t fails" "$(sed -n 's/^10.1: skipped: //p' "$T_TMP/c.out")"
else
	rm -rf "$W101/10.1"
	"$ROOT/scripts/solution" into 10.1 "$W101/10.1" >/dev/null
	sed -i 's|^\tif (by_rq)$|\tif (false)\t/* per bio: the stage'"'"'s walk */|' "$W101/10.1/ctracer.bpf.c"
	is "$(grep -c 'if (false)' "$W101/10.1/ctracer.bpf.c")" 1 "$t: made from the solution, one line changed"
	CHECK_WORK=$W101 CHECK_RESULTS=$T_TMP/r101.jsonl "$C" 10.1 >"$T_TMP/c.out" 2>&1
	rc=$?
	is "$rc" 1 "$t fails"
	check "$t: at the run step, the merged batch's trees of 16 KiB against 64 KiB" \
		grep -q "^            want '.* 512:65536 640:65536', got '.* 512:16384 544:16384 " "$T_TMP/c.out"
	[ "$rc" -eq 1 ] || show_check "$T_TMP/c.out"
fi

# --- v1 half fixed: the pointer tested for the add, read after it on
# the NULL path. The verifier says 'scalar'; the check must explain the
# NULL path, not a kprobe's untyped argument. A copy and a build of its own.
t="check v1, half fixed (if (n) the add; then *n)"
WV1=$T_TMP/workv1
CHECK_WORK=$WV1 CHECK_BUILD=$T_TMP/buildv1 CHECK_RESULTS=$T_TMP/rv1.jsonl "$C" v1 >/dev/null 2>&1
sed -i 's|^\t__sync_fetch_and_add(n, 1);$|\tif (n)\n\t\t__sync_fetch_and_add(n, 1);|' "$WV1/v1/vload.bpf.c"
is "$(grep -c 'if (n)' "$WV1/v1/vload.bpf.c")" 1 "$t: made from the starting point, the add guarded"
CHECK_WORK=$WV1 CHECK_BUILD=$T_TMP/buildv1 CHECK_RESULTS=$T_TMP/rv1.jsonl "$C" v1 >"$T_TMP/c.out" 2>&1
is "$?" 1 "$t: fails"
check "$t: at load, on the read through R0 where it is 0" grep -q "invalid mem access 'scalar'" "$T_TMP/c.out"
is "$(grep -o '^  why \[[a-z]*\]' "$T_TMP/c.out" | tr '\n' ' ')" "  why [null] " "$t: one explanation, the NULL one"
check "$t: it names the path where the pointer is NULL" grep -q "path where it is NULL" "$T_TMP/c.out"

# --- results: JSON lines; progress reads them
if command -v python3 >/dev/null 2>&1; then
	python3 -c '
import json, sys
keys = {"exercise", "step", "result", "time", "seconds", "kernel", "door"}
for n, l in enumerate(open(sys.argv[1]), 1):
    o = json.loads(l)
    assert set(o) == keys, "line %d: keys %s" % (n, sorted(o))
    assert o["result"] in ("pass", "fail", "interrupted"), "line %d: result %s" % (n, o["result"])
' "$CHECK_RESULTS" 2>"$T_TMP/json.err"
	ok $? "results: every line is a JSON object with the keys of docs/check.md"
	tail -n 2 "$T_TMP/json.err" | sed 's/^/#   /'
else
	skip "results are JSON" "needs python3 to parse them"
fi
"$C" --progress >"$T_TMP/p.out"
is "$(tail -n 1 "$T_TMP/p.out")" "$((n - nskip)) of $n done (results: $CHECK_RESULTS)" \
	"progress: every exercise done ($nskip skipped: this kernel lacks what they need)"
is "$("$C" --next)" "" "every exercise done: none is next"

# --- a kernel without the tracepoint 07.1 needs (its BTF here without
# btf_trace_block_io_start): one line, exit 0, nothing recorded; make
# check and progress pass it over
printf 'btf_trace_block_rq_issue\0btf_trace_block_io_start_x\0' >"$T_TMP/btf"
grep -v '^{"exercise":"07\.1",' "$CHECK_RESULTS" >"$T_TMP/no071.jsonl"
CHECK_RESULTS=$T_TMP/no071.jsonl CHECK_BTF=$T_TMP/btf "$C" 07.1 >"$T_TMP/s.out" 2>&1
is "$? $(cat "$T_TMP/s.out")" "0 07.1: skipped: this kernel ($(uname -r)) has no block_io_start tracepoint (Linux 6.5 and later)" \
	"07.1 without block_io_start: one line says why, exit 0"
is "$(wc -l <"$T_TMP/no071.jsonl")" "$(grep -vc '^{"exercise":"07\.1",' "$CHECK_RESULTS")" "07.1 skipped: no result recorded"
is "$(CHECK_RESULTS=$T_TMP/no071.jsonl "$C" --next)" "07.1" "07.1 not done: it is next where the kernel has block_io_start"
is "$(CHECK_RESULTS=$T_TMP/no071.jsonl CHECK_BTF=$T_TMP/btf "$C" --next)" "" "and passed over where it has not"
CHECK_RESULTS=$T_TMP/no071.jsonl CHECK_BTF=$T_TMP/btf "$C" --progress >"$T_TMP/p.out"
check "progress: 07.1 skipped where the kernel lacks block_io_start" grep -q '^07\.1 *skipped ' "$T_TMP/p.out"

# --- a kernel whose verifier has no BPF atomics that fetch (5.12), as
# 06.3 needs: the same. bpf_obj atomics asks the verifier (above, what
# it says here); a stand-in says no, as 5.10's does
printf '#!/bin/sh\necho "bpf_obj: the verifier refuses an atomic fetch-and-add: BPF_STX uses reserved fields" >&2\nexit 1\n' >"$T_TMP/no_atomics"
chmod +x "$T_TMP/no_atomics"
CHECK_RESULTS=$T_TMP/no063.jsonl CHECK_BPF_OBJ=$T_TMP/no_atomics "$C" 06.3 >"$T_TMP/s.out" 2>&1
is "$? $(cat "$T_TMP/s.out")" "0 06.3: skipped: this kernel's verifier has no BPF atomics (5.12): $(sed -n "s/^NEEDS_NOTE='\(.*\)'$/\1/p" "$ROOT/exercises/06.3/spec")" \
	"06.3 without BPF atomics: one line says why, exit 0"
check "06.3 without BPF atomics: no result recorded" test ! -s "$T_TMP/no063.jsonl"

# --- 10.3 needs -r, a function door: DOOR=tracepoint has none, on any
# kernel; one line, exit 0, nothing recorded, passed over and shown
# skipped (as where the kernel has only the tracepoint door: the host)
_n0=$(wc -l <"$CHECK_RESULTS")
CHECK_DOOR=tracepoint "$C" 10.3 >"$T_TMP/s.out" 2>&1
is "$? $(cat "$T_TMP/s.out")" "0 10.3: skipped: DOOR=tracepoint has no returns: -r needs a function door (DOOR=fentry or kprobe)" \
	"10.3 in the tracepoint door: one line says why, exit 0"
is "$(wc -l <"$CHECK_RESULTS")" "$_n0" "10.3 skipped: no result recorded"
grep -v '^{"exercise":"10\.3",' "$CHECK_RESULTS" >"$T_TMP/no103.jsonl"
is "$(CHECK_RESULTS=$T_TMP/no103.jsonl CHECK_DOOR=tracepoint "$C" --next)" "" \
	"10.3 not done: passed over in the tracepoint door"
CHECK_RESULTS=$T_TMP/no103.jsonl CHECK_DOOR=tracepoint "$C" --progress >"$T_TMP/p.out"
check "progress: 10.3 skipped in the tracepoint door" grep -q '^10\.3 *skipped ' "$T_TMP/p.out"
# 05.3 in the kprobe door: its starting point would pass (a kprobe reads
# through the helper, rightly): skipped the same way
CHECK_DOOR=kprobe "$C" 05.3 >"$T_TMP/s.out" 2>&1
is "$? $(cat "$T_TMP/s.out")" "0 05.3: skipped: DOOR=kprobe: this exercise is about the fentry and tracepoint doors (the kprobe door reads a bio through the helper, rightly)" \
	"05.3 in the kprobe door: one line says why, exit 0"
# 05.3 where DOOR=auto takes the kprobe door (arm64 5.10 and 6.1: no
# fentry). The host has no kprobes: a stand-in runs the stage's program
# (or the solution's) in the tracepoint door, whose door lines say
# kprobe when asked for auto. The check must check again in the
# tracepoint door, where the starting point fails; and where that door
# is missing too (NO_TP, as arm64 5.10) skip with one line, and go on
# skipping it there without a start.
# standin DIR REAL: DIR/bio_trace, the stand-in of program REAL
standin() {
	mkdir -p "$1"
	cat >"$1/bio_trace" <<EOF
#!/bin/sh
case " \$* " in
*" -a auto "*)
	for a; do
		shift
		[ "\$a" = auto ] && a=tracepoint
		set -- "\$@" "\$a"
	done
	# exec keeps the PID the check signals; sed -u: its lines at once
	f=\$0.\$\$.fifo
	mkfifo "\$f" || exit 1
	{ exec <"\$f"; rm -f "\$f"; exec sed -u 's/^\([a-z_]*\): tracepoint door/\1: kprobe door/' >&2; } &
	exec "$2" "\$@" 2>"\$f"
	;;
*" -a tracepoint "*)
	[ -n "\$NO_TP" ] || exec "$2" "\$@"
	echo "submit_bio: no tracepoint door on this kernel (tracepoint: block_bio_queue passes the request queue first (before 5.11))" >&2
	exit 1
	;;
esac
exec "$2" "\$@"
EOF
	chmod +x "$1/bio_trace"
}
if [ -x "$ANSWERS/05.3/bio_trace" ] && command -v bpftool >/dev/null 2>&1; then
	standin "$T_TMP/kp/start" "$ROOT/stage05_sector/bio_trace"
	standin "$T_TMP/kp/sol" "$ANSWERS/05.3/bio_trace"
	kp() {	# kp WHICH: check 05.3 with the stand-in of WHICH, auto taking kprobe
		CHECK_DOOR=auto CHECK_RESULTS=$T_TMP/kp.jsonl CHECK_BUILD=$T_TMP/kp/build CHECK_PREBUILT=$T_TMP/kp/$1 \
			"$C" 05.3 >"$T_TMP/s.out" 2>&1
	}
	kp start
	is "$?" 1 "05.3, DOOR=auto taking kprobe: the starting point fails"
	check "05.3, DOOR=auto taking kprobe: checked again in the tracepoint door" \
		grep -q '^  attach    again, tracepoint door: DOOR=auto took kprobe' "$T_TMP/s.out"
	check "05.3, DOOR=auto taking kprobe: the starting point's helper calls counted" \
		grep -q '^            want 0, got [1-9]' "$T_TMP/s.out"
	kp sol
	rc=$?
	is "$rc" 0 "05.3, DOOR=auto taking kprobe: the solution passes"
	[ "$rc" -eq 0 ] || sed 's/^/#   /' "$T_TMP/s.out"
	: >"$T_TMP/kp.jsonl"	# 05.3 not done, so progress may say skipped
	NO_TP=1 kp sol
	is "$? $(tail -n 1 "$T_TMP/s.out")" "0 05.3: skipped: DOOR=auto took the kprobe door (no fentry here), and there is no tracepoint door either (tracepoint: block_bio_queue passes the request queue first (before 5.11)): this exercise is about the fentry and tracepoint doors (the kprobe door reads a bio through the helper, rightly)" \
		"05.3, DOOR=auto taking kprobe, no tracepoint door: skipped with one line, exit 0"
	NO_TP=1 kp sol
	is "$? $(wc -l <"$T_TMP/s.out")" "0 1" "05.3 skipped so: next time the line only, without a start"
	check "05.3 skipped so: no result recorded" test ! -s "$T_TMP/kp.jsonl"
	CHECK_RESULTS=$T_TMP/kp.jsonl CHECK_BUILD=$T_TMP/kp/build "$C" --progress >"$T_TMP/p.out"
	check "05.3 skipped so: progress shows it skipped" grep -q '^05\.3 *skipped ' "$T_TMP/p.out"
else
	skip "05.3 where DOOR=auto takes the kprobe door" "needs bpftool and the solutions built (make solutions)"
fi

# --- the teacher's gather script: two students' results files (alice:
# 03.1 failed then passed, 03.2 interrupted at build; bob: 03.1 failed at
# compile, v1 passed), and carol's read over ssh (a stand-in ssh on PATH
# that serves her file as her machine would)
G=$ROOT/scripts/gather-results
mkdir -p "$T_TMP/class" "$T_TMP/bin"
line() {	# line ID STEP RESULT: a results line as make check writes it
	printf '{"exercise":"%s","step":"%s","result":"%s","time":"2026-11-26T09:22:21Z","seconds":1,"kernel":"6.18.0","door":"tracepoint"}\n' "$@"
}
{ line 03.1 run fail; line 03.1 run pass; line 03.2 build interrupted; } >"$T_TMP/class/alice.jsonl"
{ line 03.1 compile fail; line v1 load fail; line v1 run pass; } >"$T_TMP/class/bob.jsonl"
line 03.2 run fail >"$T_TMP/carol.jsonl"
"$G" "$T_TMP/class/alice.jsonl" "$T_TMP/class/bob.jsonl" >"$T_TMP/g.out" 2>&1
is "$?" 0 "gather-results FILES: exit 0"
is "$(cat "$T_TMP/g.out")" "student      03.1      03.2      v1
alice        done      build^C   -
bob          compile   -         done
done by      1 of 2    0 of 2    1 of 2
done: passed once; STEP: not yet, its last check failed at STEP;
STEP^C: its last check was interrupted at STEP; -: not tried" "gather-results: the class table, student by exercise"
cat >"$T_TMP/bin/ssh" <<'EOF'
#!/bin/sh
# ssh [OPTIONS] HOST cat FILE: carol's machine only
case " $* " in
*" carol cat bpf-workbook/work/results.jsonl ") cat "$CAROL" ;;
*) echo "ssh: Could not resolve hostname: Name or service not known" >&2; exit 255 ;;
esac
EOF
chmod +x "$T_TMP/bin/ssh"
PATH=$T_TMP/bin:$PATH CAROL=$T_TMP/carol.jsonl "$G" -d "$T_TMP/got" carol "$T_TMP/class/bob.jsonl" >"$T_TMP/g.out" 2>&1
is "$?" 0 "gather-results HOST FILE: exit 0"
check "gather-results HOST: kept as DIR/HOST.jsonl" cmp -s "$T_TMP/carol.jsonl" "$T_TMP/got/carol.jsonl"
is "$(sed -n 2,3p "$T_TMP/g.out")" "carol        -         run       -
bob          compile   -         done" "gather-results HOST FILE: a row each, in order"
PATH=$T_TMP/bin:$PATH "$G" -d "$T_TMP/got" student9 "$T_TMP/class/bob.jsonl" >"$T_TMP/g.out" 2>"$T_TMP/g.err"
is "$?" 1 "gather-results: a host not read: exit 1"
is "$(cat "$T_TMP/g.err")" "gather-results: student9: cannot read bpf-workbook/work/results.jsonl: ssh: Could not resolve hostname: Name or service not known" \
	"gather-results: a host not read: one line says why"
check "gather-results: the others are shown" grep -q '^bob  ' "$T_TMP/g.out"
"$G" >/dev/null 2>"$T_TMP/g.err"
is "$? $(wc -l <"$T_TMP/g.err")" "2 1" "gather-results with nothing: one line, exit 2"
"$G" "$T_TMP/class/nobody.jsonl" >/dev/null 2>"$T_TMP/g.err"
is "$? $(cat "$T_TMP/g.err")" "2 gather-results: no such file: $T_TMP/class/nobody.jsonl" \
	"gather-results with a missing file: one line, exit 2"

# --- watch: a saved file checks again; a signal ends it, exit 0
if command -v inotifywait >/dev/null 2>&1; then
	"$ROOT/scripts/solution" into v1 "$T_TMP/v1" >/dev/null
	"$C" --watch v1 >"$T_TMP/w.out" 2>&1 &
	wpid=$!
	watching() { [ "$(grep -c '^watching ' "$T_TMP/w.out")" -ge "$1" ] || ! kill -0 "$wpid" 2>/dev/null; }
	wait_for 120 watching 1
	cp "$T_TMP/v1/vload.bpf.c" "$CHECK_WORK/v1/vload.bpf.c"	# a save
	wait_for 120 watching 2
	is "$(grep -c '^v1: done' "$T_TMP/w.out")" 2 "watch: checks, then again on a save"
	kill -TERM $wpid
	wait $wpid
	is "$?" 0 "watch: a signal ends it, exit 0"
else
	skip "watch checks again on a save" "needs inotifywait (inotify-tools)"
fi

# --- a check interrupted in its run step by Ctrl-C: SIGINT to its process
# group, as a terminal sends it (setsid gives it a group of its own, env
# gives SIGINT back: a background job ignores it). The gate holds the
# check's I/O until then. 00.1 makes a second loop device besides its
# first. It ends with 130, records the step it reached as interrupted,
# and leaves nothing loaded and no loop device of its own.
progs() { bpftool prog list 2>/dev/null | sed -n 's/^\([0-9]*\): .*/\1/p' | sort; }
# mine PID: the loop devices check PID made (its scratch_dev's file, and
# a second device's, dev2_make's)
mine() {
	losetup -a 2>/dev/null | grep -c -e "bwb-test\.$1\.img" -e "/disk2\.$1\.img"
}
progs >"$T_TMP/progs.0"
CHECK_RESULTS=$T_TMP/int.jsonl CHECK_GATE=$T_TMP/gate \
	setsid env --default-signal=INT "$C" 00.1 >"$T_TMP/int.out" 2>&1 &
cpid=$!
running() { grep -q '^  attach    ok' "$T_TMP/int.out" || ! kill -0 "$cpid" 2>/dev/null; }
wait_for 120 running
progs >"$T_TMP/progs.1"
comm -13 "$T_TMP/progs.0" "$T_TMP/progs.1" >"$T_TMP/progs.new"
check "Ctrl-C: the run step was reached, programs loaded" test -s "$T_TMP/progs.new"
is "$(mine $cpid)" 2 "Ctrl-C: the check made its two loop devices"
kill -INT -$cpid
touch "$T_TMP/gate"
wait $cpid
is "$?" 130 "Ctrl-C: the check ends with 130"
is "$(grep -c '^{"exercise":"00.1","step":"run","result":"interrupted",.*"door":"[a-z+]*"}$' "$T_TMP/int.jsonl") $(wc -l <"$T_TMP/int.jsonl")" \
	"1 1" "Ctrl-C: one JSON line, step run, result interrupted"
check "Ctrl-C: it says so" grep -qx '00.1: interrupted at run' "$T_TMP/int.out"
unloaded() {
	while read -r _id; do
		bpftool prog show id "$_id" >/dev/null 2>&1 && return 1
	done <"$T_TMP/progs.new"
	return 0
}
check "Ctrl-C: none of its programs stays loaded ($(wc -l <"$T_TMP/progs.new") were)" wait_for 30 unloaded
is "$(mine $cpid)" 0 "Ctrl-C: neither of its loop devices is left"
CHECK_RESULTS=$T_TMP/int.jsonl "$C" --progress >"$T_TMP/p.out"
check "Ctrl-C: progress shows 00.1 not done, interrupted at run" \
	grep -q '^00\.1 *not yet *run (interrupted) ' "$T_TMP/p.out"
# --- SIGTERM (a kill, a closed VM): the same. The output file is emptied
# first: running() must not find the Ctrl-C run's "attach ok" in it
# before the new check has started (under load, it did: 143, the shell's
# own death, for a TERM sent before the check's traps were set)
: >"$T_TMP/int.out"
CHECK_RESULTS=$T_TMP/term.jsonl CHECK_GATE=$T_TMP/gate2 "$C" v1 >"$T_TMP/int.out" 2>&1 &
cpid=$!
wait_for 120 running
kill -TERM $cpid
touch "$T_TMP/gate2"
wait $cpid
is "$?" 130 "SIGTERM: the check ends with 130"
check "SIGTERM: recorded as interrupted at run" \
	grep -q '^{"exercise":"v1","step":"run","result":"interrupted",' "$T_TMP/term.jsonl"
gone() { ! pgrep -f "^$CHECK_BUILD/v1/vload " >/dev/null; }
check "SIGTERM: its program is gone" wait_for 30 gone
is "$(mine $cpid)" 0 "SIGTERM: no loop device left"
# --- a reader that goes early (| head): the same
loops() { losetup -a 2>/dev/null | grep -c 'bwb-test\.'; }
before=$(loops)
"$C" v4 2>/dev/null | head -n 3 >/dev/null
is "$(loops)" "$before" "| head: no loop device left behind"
done_testing
