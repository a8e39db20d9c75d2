#!/bin/sh
# What every stage shares: options, usage errors, preflight, --duration.
. "$(dirname "$0")/lib.sh"

for s in "$ROOT"/stage*/bio_trace "$ROOT"/stage*/pagecache_trace "$ROOT"/stage*/tracex3 \
	"$ROOT"/stage*/full_stack; do
	[ -x "$s" ] || continue
	name=$(basename "$(dirname "$s")")
	"$s" --bogus >/dev/null 2>"$T_TMP/err"
	is "$?" 2 "$name: unknown option exits 2"
	check "$name: unknown option: one line, then a --help hint" \
		grep -q "Try .*--help" "$T_TMP/err"
	"$s" -a sideways >/dev/null 2>"$T_TMP/err"
	is "$?" 2 "$name: unknown door exits 2"
	check "$name: unknown door is named" grep -q "unknown door 'sideways'" "$T_TMP/err"
	"$s" --duration abc >/dev/null 2>"$T_TMP/err"
	is "$?" 2 "$name: --duration abc exits 2"
	"$s" --duration 0 >/dev/null 2>"$T_TMP/err"
	is "$?" 2 "$name: --duration 0 exits 2"
	"$s" -d no_such_disk >/dev/null 2>"$T_TMP/err"
	is "$?" 2 "$name: unknown disk exits 2"
	check "$name: unknown disk is named" grep -q "no such disk 'no_such_disk'" "$T_TMP/err"
	"$s" -d >/dev/null 2>"$T_TMP/err"
	is "$?" 2 "$name: -d without a disk exits 2"
	"$s" -h >"$T_TMP/out" 2>&1
	is "$?" 0 "$name: -h exits 0"
	check "$name: -h shows usage" grep -q "^Usage:" "$T_TMP/out"
	if [ "$(id -u)" -eq 0 ] && as_nobody true; then
		as_nobody "$s" --duration 1 \
			>/dev/null 2>"$T_TMP/err"
		is "$?" 1 "$name: not root exits 1"
		check "$name: not root says so" grep -q "must be run as root" "$T_TMP/err"
	else
		skip "$name: not root" "needs root and setpriv to drop it"
	fi
done

# ctracer's own options: -s takes plain decimal sectors only (strtoull
# took " -5", "+5", "1- 2" and 0x, read 010 as octal), -p a process
# that exists. Each refusal: exit 2, one line, then a --help hint.
C=$ROOT/tools/ctracer/ctracer
if [ -x "$C" ]; then
	for arg in ' -5' '+5' '-5' '1- 2' '1 -2' '0x10' '5-3' '5-' '-' '' '18446744073709551616' \
		'1-2-3' '1e3'; do
		"$C" -s "$arg" --list >/dev/null 2>"$T_TMP/err"
		is "$?" 2 "ctracer -s '$arg' exits 2"
		is "$(head -n 1 "$T_TMP/err")" \
			"ctracer: -s needs decimal sectors START or START-END (END >= START), not '$arg'" \
			"ctracer -s '$arg': says why in one line"
		check "ctracer -s '$arg': then a --help hint, nothing else" \
			sh -c "[ \$(wc -l <'$T_TMP/err') -eq 2 ] && sed -n 2p '$T_TMP/err' | grep -q 'Try .*--help'"
	done
	for arg in 2048 010 2048-4096 7-7 0-18446744073709551615; do
		"$C" -s "$arg" --list >/dev/null 2>"$T_TMP/err"
		is "$?" 0 "ctracer -s $arg is accepted"
	done
	# a PID no process has: below pid_max, no /proc entry
	nopid=$(( $(cat /proc/sys/kernel/pid_max) - 1 ))
	while [ -d "/proc/$nopid" ]; do
		nopid=$((nopid - 1))
	done
	"$C" -p "$nopid" --list >/dev/null 2>"$T_TMP/err"
	is "$?" 2 "ctracer -p $nopid (no such process) exits 2"
	is "$(head -n 1 "$T_TMP/err")" "ctracer: no process with PID $nopid is running" \
		"ctracer -p $nopid: says so in one line"
	check "ctracer -p $nopid: then a --help hint, nothing else" \
		sh -c "[ \$(wc -l <'$T_TMP/err') -eq 2 ] && sed -n 2p '$T_TMP/err' | grep -q 'Try .*--help'"
	"$C" -p $$ --list >/dev/null 2>"$T_TMP/err"
	is "$?" 0 "ctracer -p \$\$ (this shell) is accepted"
	# a thread's ID is taken for its process: the BPF side compares the
	# TGID. Ground truth: a thread of a process we start, from /proc/PID/task
	if command -v python3 >/dev/null 2>&1; then
		python3 -c 'import os, threading, time
threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
print(os.getpid(), flush=True)
time.sleep(60)' >"$T_TMP/py.out" &
		wait_for 30 test -s "$T_TMP/py.out"
		py=$(cat "$T_TMP/py.out")
		wait_for 30 sh -c "[ \$(ls /proc/$py/task | wc -l) -ge 2 ]"
		tid=$(ls "/proc/$py/task" | grep -vx "$py" | head -n 1)
		"$C" -p "$tid" --list >/dev/null 2>"$T_TMP/err"
		is "$?" 0 "ctracer -p $tid (a thread of process $py) is accepted"
		is "$(head -n 1 "$T_TMP/err")" \
			"ctracer: PID $tid is a thread of process $py: following the process" \
			"ctracer -p $tid: says it follows process $py, in one line"
		kill "$py" 2>/dev/null
	else
		skip "ctracer -p THREAD" "needs python3 to start a process with a thread"
	fi
	if [ "$(id -u)" -eq 0 ] && as_nobody true; then
		as_nobody "$C" -p 1 --list >/dev/null 2>"$T_TMP/err"
		is "$?" 0 "ctracer -p 1 as nobody (EPERM, but it exists) is accepted"
	else
		skip "ctracer -p 1 as nobody" "needs root and setpriv to drop it"
	fi
else
	skip "ctracer's -s and -p" "tools/ctracer/ctracer is not built"
fi

# make demo: the hint names every stage, 00 to 11 (the classroom VM
# has no scripts/demo.sh: its own is scripts/vm/guest/demo.sh)
DEMO=$ROOT/scripts/demo.sh
if [ -f "$DEMO" ]; then
	"$DEMO" 99 >/dev/null 2>"$T_TMP/err"
	is "$?" 2 "demo.sh 99 (no such stage) exits 2"
	is "$(cat "$T_TMP/err")" "demo: no stage '99' (try 00 … 11)" "demo.sh 99: the hint names 00 … 11"
else
	skip "demo.sh 99" "no scripts/demo.sh here (the classroom VM)"
fi

[ "$(id -u)" -eq 0 ] || { done_testing; }
need_root
S=$ROOT/stage03_latency_map/bio_trace
if [ -x "$S" ]; then
	# --duration: stops by itself on time and prints the summary
	t0=$(date +%s)
	"$S" -q --duration 2 >"$T_TMP/out" 2>"$T_TMP/err"
	rc=$?
	t1=$(date +%s)
	is "$rc" 0 "--duration 2 exits 0"
	# at least the 2 s; the upper bound only catches a timer that never
	# fires (start-up takes a while on a busy machine, and is counted here)
	check "--duration 2 takes 2 s, not forever ($((t1 - t0)) s)" \
		test $((t1 - t0)) -ge 2 -a $((t1 - t0)) -le 30
	check "--duration prints the summary" grep -q "^Events: submit_bio" "$T_TMP/out"
	# a forced door this kernel lacks: one clear line, exit 1
	for door in kprobe fentry; do
		if "$S" -a $door -q --duration 0.1 >/dev/null 2>"$T_TMP/err"; then
			skip "-a $door refused" "this kernel has $door"
		else
			is "$?" 1 "-a $door on a kernel without it exits 1"
			check "-a $door: says why in one line" \
				grep -q "^submit_bio: no $door door on this kernel ($door: " "$T_TMP/err"
			diag "$(cat "$T_TMP/err")"
		fi
	done
	# -d takes a name or a /dev path
	disk=$(ls /sys/block | head -n 1)
	check "-d /dev/$disk is accepted" sh -c "'$S' -q --duration 0.1 -d /dev/$disk >/dev/null 2>&1"
fi

# -a auto when a door's test load passes but the stage's programs do not
# load there: the next door is taken, and the door line says why. The
# test hook BWB_TEST_BREAK_LOAD (tests/hooks/break_load.c, linked only
# into stage 03's test build tests/bin/bio_trace_hooked) makes the kernel
# refuse the programs of the doors it names, as a verifier would.
H=$BIN/bio_trace_hooked
# left_over BEFORE: BPF objects that are new since BEFORE and held by no process
left_over() {
	"$BIN/bpf_obj" ids all | sort -u >"$T_TMP/held"
	"$BIN/bpf_obj" list | grep -vxF -f "$1" | grep -vxF -f "$T_TMP/held"
}
# first_door FILE: the flavour of submit_bio's door line, as the hook names it
first_door() {
	sed -n 's/^submit_bio: [a-z_]* door, \([a-z_]*\)\/.*/\1/p' "$1" | sed 's/^kretprobe$/kprobe/'
}
if [ ! -x "$S" ] || [ ! -x "$H" ] || [ ! -x "$BIN/bio_io" ] || [ ! -x "$BIN/bpf_obj" ]; then
	skip "-a auto falls back" "stage03, tests/bin/bio_trace_hooked, bio_io or bpf_obj is not built"
elif ! "$S" -q --duration 0.1 >/dev/null 2>"$T_TMP/err"; then
	skip "-a auto falls back" "stage03 does not start here: $(head -n 1 "$T_TMP/err")"
elif ! scratch_dev; then
	skip "-a auto falls back" "cannot make a scratch block device"
else
	first=$(first_door "$T_TMP/err")
	"$BIN/bpf_obj" list >"$T_TMP/before"
	t="-a auto, $first's programs refused"
	# a door after the first that starts here (arm64 5.10: kprobe only)
	next=
	for d in fentry kprobe tracepoint; do
		case $first:$d in
		fentry:fentry | kprobe:fentry | kprobe:kprobe | tp_btf:*) continue ;;
		esac
		"$S" -a $d -q --duration 0.1 >/dev/null 2>&1 && { next=$d; break; }
	done
	if [ -z "$next" ]; then
		skip "$t" "no door after $first starts on this kernel: none to fall back to"
	elif start env BWB_TEST_BREAK_LOAD="$first" "$H" -d "$DEV"; then
		held=$("$BIN/bpf_obj" ids $TPID | sort -u | grep -c '^prog ')
		io "/dev/$DEV" 0 8 16
		stop
		is "$TRC" 0 "$t: traces, exit 0"
		line=$(grep '^submit_bio: ' "$T_TMP/err")
		now=$(first_door "$T_TMP/err")
		check "$t: took the next door ($now)" test -n "$now" -a "$now" != "$first"
		case $line in
		*"(passed over: "*"$first: failed to load (Invalid argument))") ok 0 "$t: the door line says why" ;;
		*) ok 1 "$t: the door line says why"; diag "$line" ;;
		esac
		is "$(grep -c 'door, ' "$T_TMP/err")" 2 "$t: one door line per point, no other message"
		check "$t: the 3 reads issued are traced" \
			grep -qx "Events: submit_bio 3, bio_endio 3" "$T_TMP/out"
		is "$(grep -c 'time duration: [0-9]* ns$' "$T_TMP/out")" 3 "$t: 3 latencies"
		# the refused object left nothing: the process held only the programs it attached
		is "$held" "$(grep 'door, ' "$T_TMP/err" | grep -oE '[a-z_]+/[a-z_0-9]+' | wc -l)" \
			"$t: held only the programs its door lines name"
	else
		ok 1 "$t: starts"
	fi
	case $first in
	tp_btf) forced=tracepoint ;;
	*) forced=$first ;;
	esac
	env BWB_TEST_BREAK_LOAD="$first" "$H" -a "$forced" -q --duration 0.1 >/dev/null 2>"$T_TMP/err"
	is "$?" 1 "-a $forced, its programs refused: no fallback, exit 1"
	is "$(cat "$T_TMP/err")" "bio_trace: cannot load BPF object: Invalid argument (try -v)" \
		"-a $forced, its programs refused: one line says so"
	env BWB_TEST_BREAK_LOAD="fentry kprobe tp_btf" "$H" -q --duration 0.1 \
		>/dev/null 2>"$T_TMP/err"
	is "$?" 1 "-a auto, every door refused: exit 1"
	case $first in
	tp_btf) tried="tp_btf" ;;
	*) tried="$first, .*tp_btf" ;;
	esac
	if tp_why=$(door_ok "$S" tracepoint); then
		check "-a auto, every door refused: one line, naming the doors tried from $first to tp_btf" \
			grep -qx "bio_trace: cannot load BPF object in any door (tried $tried): Invalid argument (try -v)" "$T_TMP/err"
	else	# (5.10) refused before load: each door's reason in one line
		check "-a auto, every door refused: one line, each door's reason" \
			grep -qx "submit_bio: no working door on this kernel (.*failed to load (Invalid argument); tracepoint: ${tp_why##*tracepoint: }" "$T_TMP/err"
	fi
	is "$(wc -l <"$T_TMP/err")" 1 "-a auto, every door refused: nothing else on stderr"
	env BWB_TEST_BREAK_LOAD="fentry kprobe tp_btf" "$S" -q --duration 0.1 >/dev/null 2>&1
	is "$?" 0 "the stage's own build has no test hook: BWB_TEST_BREAK_LOAD does nothing"
	# the kernel frees a closed map from a work queue, a moment after exit
	none_left() { [ -z "$(left_over "$T_TMP/before")" ]; }
	wait_for 30 none_left
	is "$(left_over "$T_TMP/before")" "" "refused loads leave no program or map behind"
fi

# The root tests below on a scratch device of their own (or the one above)
if [ -z "${DEV:-}" ] && ! scratch_dev; then
	skip "-d through a symlink, ctracer -s 016, make demo STAGE=ctracer" \
		"cannot make a scratch block device"
	done_testing
fi

# -d through a symlink to the disk (/dev/disk/by-id/..., a link of one's
# own): the disk it points to, traced; a link to no block device refused
if [ -x "$S" ] && [ -x "$BIN/bio_io" ]; then
	ln -s "/dev/$DEV" "$T_TMP/disk-link"
	if start "$S" -d "$T_TMP/disk-link"; then
		io "/dev/$DEV" 0 8 16
		stop
		is "$TRC" 0 "-d LINK to /dev/$DEV: traces, exit 0"
		check "-d LINK to /dev/$DEV: the 3 reads issued are traced" \
			grep -qx "Events: submit_bio 3, bio_endio 3" "$T_TMP/out"
	else
		ok 1 "-d LINK to /dev/$DEV: starts"
	fi
	ln -s /dev/null "$T_TMP/null-link"
	: >"$T_TMP/file"
	ln -s "$T_TMP/file" "$T_TMP/file-link"
	ln -s "$T_TMP/nowhere" "$T_TMP/dangling-link"
	for d in /dev/null "$T_TMP/null-link" "$T_TMP/file-link" "$T_TMP/dangling-link" \
		"$T_TMP"; do
		"$S" -q --duration 0.1 -d "$d" >/dev/null 2>"$T_TMP/err"
		is "$?" 2 "-d $d (no block device) exits 2"
		check "-d $d: says so" grep -q "no such disk '$d'" "$T_TMP/err"
	done
else
	skip "-d through a symlink" "stage03 or tests/bin/bio_io is not built"
fi

# ctracer -s 016 is sector 16, not octal 14: of 4 KiB reads at sectors
# 8 (8-15) and 16 (16-23), only the one at 16 meets it
if [ -x "$C" ] && [ -x "$BIN/bio_io" ] && ! c_why=$(door_ok "$C" auto); then
	skip "ctracer -s 016" "$c_why"
elif [ -x "$C" ] && [ -x "$BIN/bio_io" ]; then
	if start "$C" -d "$DEV" -s 016; then
		io "/dev/$DEV" 8 16
		stop
		is "$TRC" 0 "ctracer -s 016: traces, exit 0"
		check "ctracer -s 016: the bio at sector 16 shown" \
			grep -Eq ' sector=16  size=4096  READ' "$T_TMP/out"
		check "ctracer -s 016: the bio at sector 8 not shown" \
			sh -c "! grep -Eq ' sector=8  ' '$T_TMP/out'"
	else
		ok 1 "ctracer -s 016: starts"
	fi
else
	skip "ctracer -s 016" "ctracer or tests/bin/bio_io is not built"
fi

# make demo STAGE=ctracer: tools/ctracer is found, traces the demo's reads
if [ ! -f "$DEMO" ]; then
	skip "demo.sh ctracer" "no scripts/demo.sh here (the classroom VM)"
elif [ -x "$C" ]; then
	"$DEMO" ctracer >"$T_TMP/out" 2>"$T_TMP/err"
	is "$?" 0 "demo.sh ctracer exits 0"
	check "demo.sh ctracer: does not say ctracer is not built" \
		sh -c "! grep -q 'not built' '$T_TMP/err'"
	check "demo.sh ctracer: ctracer attached" grep -q '^Tracing loop[0-9]*\.\.\.' "$T_TMP/err"
	# the demo reads 4 KiB at sectors 0, 800, ... 5600
	is "$(grep -Ec ' sector=(0|800|1600|2400|3200|4000|4800|5600)  size=4096  READ' \
		"$T_TMP/out")" 8 "demo.sh ctracer: its 8 reads, a tree each"
else
	skip "demo.sh ctracer" "ctracer is not built"
fi

# make demo STAGE=10: a screenful on the terminal (the first trees, how
# many more and where, the summary); the file holds every tree, the
# demo's 8 reads (sectors 0, 800, ... 5600) among them
L=$ROOT/stage10_class_trace/class_trace
if [ ! -f "$DEMO" ]; then
	skip "demo.sh 10" "no scripts/demo.sh here (the classroom VM)"
elif [ -x "$L" ]; then
	"$DEMO" 10 >"$T_TMP/out" 2>"$T_TMP/err"
	is "$?" 0 "demo.sh 10 exits 0"
	n=$(wc -l <"$T_TMP/out")
	check "demo.sh 10: a screenful ($n lines, at most 40)" test "$n" -le 40
	f=$(sed -n 's/^\.\.\. [0-9]* more trees in \([^:]*\): .*/\1/p' "$T_TMP/out")
	check "demo.sh 10: says how many more trees and where ($f)" test -f "$f"
	trees=$(sed -n 's/^Trees: \([0-9]*\) bios.*/\1/p' "$T_TMP/out")
	is "$(grep -c '^bio ' "${f:-/dev/null}")" "${trees:-none}" "demo.sh 10: the file holds every tree the summary counts"
	shown=$(grep -c '^bio ' "$T_TMP/out")
	more=$(sed -n 's/^\.\.\. \([0-9]*\) more trees.*/\1/p' "$T_TMP/out")
	is "$((shown + ${more:-0}))" "${trees:-none}" "demo.sh 10: shown and more add up to the summary's trees"
	is "$(grep -Ec '^bio .*: READ sector=(0|800|1600|2400|3200|4000|4800|5600) size=4096,' \
		"${f:-/dev/null}")" 8 "demo.sh 10: the file has its 8 reads, a tree each"
	check "demo.sh 10: ends with the summary" sh -c "tail -n 1 '$T_TMP/out' | grep -q '^Lost: '"
else
	skip "demo.sh 10" "stage 10 is not built"
fi

# make demo STAGE=00 >FILE 2>&1: every line reaches the file, the demo's
# own first (the stage's output does not overwrite it)
if [ ! -f "$DEMO" ]; then
	skip "demo.sh 00 into a file" "no scripts/demo.sh here (the classroom VM)"
elif [ -x "$ROOT/stage00_tracex3/tracex3" ]; then
	"$DEMO" 00 >"$T_TMP/out" 2>&1
	is "$?" 0 "demo.sh 00 into a file exits 0"
	check "demo.sh 00 into a file: its first line is the demo's" \
		sh -c "head -n 1 '$T_TMP/out' | grep -q '^demo: stage00_tracex3 on /dev/loop'"
	check "demo.sh 00 into a file: the stage's Tracing line and summary follow" \
		sh -c "grep -q '^Tracing loop' '$T_TMP/out' && grep -q '^Lost: ' '$T_TMP/out'"
else
	skip "demo.sh 00 into a file" "stage 00 is not built"
fi

# make demo EX=03.1: the student's copy as make check built it (here a
# check build folder holding 03.1's answer, whose CSV rows the stage
# cannot print), else one line that says to check it first
if [ ! -f "$DEMO" ]; then
	skip "demo.sh - EX" "no scripts/demo.sh here (the classroom VM)"
else
	"$DEMO" - v1 >/dev/null 2>"$T_TMP/err"
	is "$? $(cat "$T_TMP/err")" "2 demo: no stage exercise 'v1' (make progress lists them)" \
		"demo.sh - v1 (a verifier program): one line, exit 2"
	CHECK_BUILD=$T_TMP/cb "$DEMO" - 03.1 >/dev/null 2>"$T_TMP/err"
	is "$? $(cat "$T_TMP/err")" "1 demo: your copy of 03.1 is not built (make check EX=03.1 builds work/03.1)" \
		"demo.sh - 03.1, not checked yet: one line, exit 1"
	if [ -x "$ANSWERS/03.1/bio_trace" ]; then
		mkdir -p "$T_TMP/cb/03.1"
		cp "$ANSWERS/03.1/bio_trace" "$T_TMP/cb/03.1/"
		CHECK_BUILD=$T_TMP/cb "$DEMO" - 03.1 >"$T_TMP/out" 2>"$T_TMP/err"
		is "$?" 0 "demo.sh - 03.1 exits 0"
		check "demo.sh - 03.1: runs the copy's program (its CSV rows)" \
			grep -Eq '^[0-9]+\.[0-9]{6},read,[0-9]+\.[0-9]{3}$' "$T_TMP/out"
	else
		skip "demo.sh - 03.1 runs the copy" "the answers are not built (make solutions)"
	fi
fi
done_testing
