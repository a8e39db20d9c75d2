#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Robustness of every stage (issue 8): bad input and a broken system give
# one line and a non-zero exit; every way out (--duration, Ctrl-C,
# SIGTERM, a closed pipe, an error after load) leaves no program, link,
# map or trace instance behind; losses are counted, never silent.
# cli.t covers the first usage errors; this file adds the rest.
. "$(dirname "$0")/lib.sh"

STAGES=
for s in "$ROOT"/stage*/bio_trace "$ROOT"/stage*/pagecache_trace "$ROOT"/stage*/tracex3; do
	[ -x "$s" ] && STAGES="$STAGES $s"
done
[ -n "$STAGES" ] || skip_all "no stage is built (run make)"

stage_name() {
	basename "$(dirname "$1")"
}

# pick_door STAGE: sets DOOR to a door the stage starts with here (auto
# first). How a stage chooses its door is its own test's business; these
# tests need one that works. Returns 1, with the reason in WHY, if none.
pick_door() {
	for DOOR in auto tracepoint kprobe fentry; do
		_why=$(door_ok "$1" $DOOR) && break
		[ $DOOR = auto ] && WHY=$_why && diag "$(stage_name "$1"): -a auto does not start here: $WHY"
		DOOR=
	done
	[ -n "$DOOR" ]
}

# usage_error DESC ARGS...: exit 2, stdout empty, stderr one line naming
# the program, then argp's --help hint (wrapped by argp at 79 columns when
# the program name is long) and nothing else. stderr is left in $T_TMP/err.
usage_error() {
	_d=$1
	shift
	"$@" >"$T_TMP/out" 2>"$T_TMP/err"
	_rc=$?
	_prog=$(basename "$1")
	if [ $_rc -eq 2 ] && [ ! -s "$T_TMP/out" ] &&
	   awk -v p="$_prog: " 'NR == 1 && index($0, p) != 1 { exit 1 }
		NR == 2 && !/^Try `/ { exit 1 }
		NR > 1 { hint = hint " " $0 }
		END { exit !(NR >= 2 && NR <= 3 && hint ~ /for more information\.$/) }' "$T_TMP/err"; then
		ok 0 "$_d"
	else
		ok 1 "$_d"
		diag "exit $_rc, stderr: $(cat "$T_TMP/err")"
	fi
}

for s in $STAGES; do
	n=$(stage_name "$s")
	usage_error "$n: -a without a door: exit 2, one line" "$s" -a
	usage_error "$n: --duration without a number: exit 2, one line" "$s" --duration
	for bad in -1 nan inf 1e9 5s; do
		usage_error "$n: --duration $bad: exit 2, one line" "$s" --duration "$bad"
	done
	usage_error "$n: -d '': exit 2, one line" "$s" -d ""
	usage_error "$n: -d /dev/null (not a disk): exit 2, one line" "$s" -d /dev/null
	# Extra arguments: refused, and named, unless the stage takes some.
	if "$s" --usage | tr '\n' ' ' | grep -q '\[--usage\] *$'; then
		usage_error "$n: an extra argument: exit 2, one line" "$s" -q extra
		check "$n: the extra argument is named" \
			grep -q "unexpected argument 'extra'" "$T_TMP/err"
		usage_error "$n: an argument after --: exit 2, one line" "$s" -- -q
	else
		usage_error "$n: three junk arguments: exit 2, one line" "$s" x y z
	fi
	# -p PID where a stage has it: a number of a running process only.
	if "$s" --help | grep -q -- "-p, --pid"; then
		for bad in abc -5 0 1x 99999999999; do
			usage_error "$n: -p $bad: exit 2, one line" "$s" -p "$bad"
		done
		# a PID that is not running: the highest PID is free or short-lived
		dead=$(cat /proc/sys/kernel/pid_max 2>/dev/null || echo 4194304)
		"$s" -p "$dead" --duration 0.1 -q >"$T_TMP/out" 2>"$T_TMP/err"
		rc=$?
		if [ $rc -eq 2 ]; then
			usage_error "$n: -p a PID not running: a usage error" \
				"$s" -p "$dead" --duration 0.1 -q
		else
			check "$n: -p a PID not running: exit 1 ($rc)" test $rc -eq 1
			is "$(wc -l <"$T_TMP/err")" 1 "$n: -p a PID not running: one line"
		fi
	fi
done

[ "$(id -u)" -eq 0 ] || done_testing
need_root
# the usage tests above have run: a missing helper skips the rest only
for b in bpf_obj bio_io; do
	[ -x "$BIN/$b" ] || { skip "the tests that load BPF" "$BIN/$b is not built (run make)"; done_testing; }
done

TRACEFS=/sys/kernel/tracing
[ -e "$TRACEFS/trace_pipe" ] || TRACEFS=/sys/kernel/debug/tracing

# A broken system, made in a private mount namespace: one line, exit 1.
# broken DESC PATTERN SETUP ARGS...: SETUP runs in the namespace ($1 is
# the tracefs root, $2 a scratch folder), then the stage with ARGS.
broken() {
	_d=$1 _want=$2 _setup=$3
	shift 3
	mkdir -p "$T_TMP/ns"
	unshare -m sh -c "$_setup"' && shift 2 && exec "$@"' sh "$TRACEFS" "$T_TMP/ns" "$@" \
		>"$T_TMP/out" 2>"$T_TMP/err"
	_rc=$?
	if [ $_rc -eq 1 ] && [ "$(wc -l <"$T_TMP/err")" -eq 1 ] && grep -q "$_want" "$T_TMP/err"; then
		ok 0 "$_d"
	else
		ok 1 "$_d"
		diag "exit $_rc, stderr: $(cat "$T_TMP/err")"
	fi
}

# The kernel frees a process's BPF objects a moment after its exit (RCU,
# a workqueue): later on a busy machine. The 30 s below bound a leak's
# wait only; what is freed in time is seen as soon as it is.

# objects: every prog, map and link in the kernel nobody holds open
orphans_none() {	# orphans_none BEFORE-LIST: 0 if none (list in orph)
	"$BIN/bpf_obj" ids all | sort -u >"$T_TMP/held"
	"$BIN/bpf_obj" list | grep -vxF -f "$1" | grep -vxF -f "$T_TMP/held" >"$T_TMP/orph"
	[ ! -s "$T_TMP/orph" ]
}
orphans() {	# orphans BEFORE-LIST
	wait_for 30 orphans_none "$1"
	cat "$T_TMP/orph"
}

# left_behind IDS PID: the objects in IDS (what PID held while it ran)
# still alive 30 s after its exit, its trace instance, its kprobe events.
alive_none() {	# alive_none IDS: 0 if none alive (those alive in alive)
	: >"$T_TMP/alive"
	while read -r _kind _id; do
		"$BIN/bpf_obj" alive "$_kind" "$_id" && echo "$_kind $_id" >>"$T_TMP/alive"
	done <"$1"
	[ ! -s "$T_TMP/alive" ]
}
left_behind() {
	wait_for 30 alive_none "$1"
	cat "$T_TMP/alive"
	ls "$TRACEFS/instances" 2>/dev/null | grep "\.$2\$" | sed 's/^/instance /'
	# libbpf's legacy kprobes (no kprobe PMU) are named libbpf_<pid>_…
	grep "libbpf_$2_" "$TRACEFS/kprobe_events" 2>/dev/null
}

# clean DESC PID: nothing of PID's run is left (its objects in $T_TMP/ids,
# which must name its programs: an empty list would pass for nothing)
clean() {
	if ! grep -q "^prog " "$T_TMP/ids"; then
		ok 1 "$1: no program, link, map or trace instance left"
		diag "no programs of PID $2 were recorded while it ran"
		return
	fi
	_left=$(left_behind "$T_TMP/ids" "$2")
	is "$_left" "" "$1: no program, link, map or trace instance left"
}

command -v unshare >/dev/null 2>&1 || UNSHARE_MISSING=1
for s in $STAGES; do
	n=$(stage_name "$s")
	if [ -n "$UNSHARE_MISSING" ]; then
		skip "$n: no BTF, no tracefs, no tracepoint" "needs unshare for a private mount namespace"
		continue
	fi
	broken "$n: no kernel BTF: exit 1, one line" "no kernel BTF" \
		'mount -t tmpfs none /sys/kernel/btf' "$s" --duration 0.5 -q
	# hide /sys/kernel (so no tracefs to find or mount on) but keep BTF:
	# stages 01-02 need it for their lines, -q needs none
	hide='mount -o bind /sys/kernel/btf "$2" && mount -t tmpfs none /sys/kernel &&
		 mkdir /sys/kernel/btf && mount -o bind "$2" /sys/kernel/btf'
	case $n in
	stage01_*|stage02_*)
		broken "$n: no tracefs, nowhere to mount it: exit 1, one line" \
			"tracefs is not mounted and cannot be mounted" "$hide" "$s" --duration 0.5 ;;
	esac
	mkdir -p "$T_TMP/ns"
	unshare -m sh -c "$hide"' && shift 2 && exec "$@"' sh "$TRACEFS" "$T_TMP/ns" \
		"$s" --duration 0.5 -q >"$T_TMP/out" 2>"$T_TMP/err"
	rc=$?
	if grep -q "no working door\|no tracepoint door" "$T_TMP/err"; then
		skip "$n: -q needs no tracefs" "$(head -n 1 "$T_TMP/err")"
	else
		is "$rc" 0 "$n: -q needs no tracefs: runs where none can be mounted"
		[ $rc -eq 0 ] || diag "stderr: $(cat "$T_TMP/err")"
	fi
	broken "$n: -a tracepoint with its tracepoints absent: exit 1, one line" \
		"no tracepoint door on this kernel (tracepoint: .* \(missing\|has no BTF type\|passes the request queue first (before 5.11)\))" \
		'for e in block filemap; do [ ! -d "$1/events/$e" ] ||
		 mount -t tmpfs none "$1/events/$e" || exit 9; done' "$s" -a tracepoint --duration 0.5 -q

	# an error after load: no trace instance can be made
	# an error after load: no trace instance can be made (for the stages
	# that read one: those that print per-event lines)
	if ! pick_door "$s"; then
		skip "$n: error after load" "no door starts here: $WHY"
		continue
	fi
	# (no --duration: the instance is looked for while the stage runs)
	inst=
	start "$s" -a $DOOR && inst=$(ls "$TRACEFS/instances" | grep "\.$TPID\$")
	stop
	if [ -z "$inst" ]; then
		skip "$n: error after load" "it reads no trace instance"
		continue
	fi
	"$BIN/bpf_obj" list >"$T_TMP/before"
	broken "$n: trace instance refused after load: exit 1, one line" \
		"cannot create trace instance" \
		'mount -t tmpfs -o ro none "$1/instances"' "$s" -a $DOOR --duration 0.5
	is "$(orphans "$T_TMP/before")" "" "$n: error after load: no program, link or map left"
done

scratch_dev || skip_all "cannot make a scratch block device"

# p_started: the piped stage below is tracing (its p.pid is written whole,
# by mv, before it runs; it says so on p.err once attached), or has ended.
p_started() {
	[ -s "$T_TMP/p.pid" ] && grep -q "Hit Ctrl-C" "$T_TMP/p.err" 2>/dev/null ||
		[ -e "$T_TMP/p.rc" ]
}

# Every way out, for every stage. TEST_ROTATE=1 (the classroom VM, where
# each run takes seconds to load): each stage ends by one of the signals
# and writes to one of the full outputs, taken in turn from stage to
# stage, so that each is still tried, on a third or half of the stages.
ways=0
for s in $STAGES; do
	n=$(stage_name "$s")
	ways=$((ways + 1))
	sigs="INT TERM HUP"
	fulls="/dev/full $T_TMP/fullfs/out"
	if [ "${TEST_ROTATE:-0}" = 1 ]; then
		sigs=$(echo $sigs | cut -d' ' -f$((ways % 3 + 1)))
		fulls=$(echo $fulls | cut -d' ' -f$((ways % 2 + 1)))
	fi
	if ! pick_door "$s"; then
		skip "$n: ways out" "no door starts here: $WHY"
		continue
	fi
	# --duration: ends by itself. Its objects are read once it says it
	# is tracing: 3 s leave time for that on a busy machine.
	start "$s" -a $DOOR --duration 3 -q || { ok 1 "$n [--duration]: starts"; continue; }
	"$BIN/bpf_obj" ids $TPID | sort -u >"$T_TMP/ids"
	kill -0 $TPID 2>/dev/null || diag "$n [--duration]: it had ended before its objects were read"
	check "$n: holds programs while it runs" grep -q "^prog " "$T_TMP/ids"
	wait $TPID
	is "$?" 0 "$n [--duration]: exit 0"
	check "$n [--duration]: summary printed" grep -q "^Lost: " "$T_TMP/out"
	clean "$n [--duration]" $TPID

	for sig in $sigs; do
		start "$s" -a $DOOR -d "$DEV" || { ok 1 "$n [SIG$sig]: starts"; continue; }
		"$BIN/bpf_obj" ids $TPID | sort -u >"$T_TMP/ids"
		io "/dev/$DEV" 0 8 16
		kill -$sig $TPID
		wait $TPID
		is "$?" 0 "$n [-d, SIG$sig]: exit 0"
		check "$n [-d, SIG$sig]: summary printed" grep -q "^Lost: " "$T_TMP/out"
		clean "$n [-d, SIG$sig]" $TPID
	done

	# stdout that takes nothing more: /dev/full, a file on a full tmpfs.
	# One line says so, exit 1 (not a silent 0 with a cut summary).
	mkdir -p "$T_TMP/fullfs"
	mount -t tmpfs -o size=64k none "$T_TMP/fullfs" &&
		dd if=/dev/zero of="$T_TMP/fullfs/fill" bs=4k 2>/dev/null
	for where in $fulls; do
		"$s" -a $DOOR --duration 0.3 >"$where" 2>"$T_TMP/full.err"
		is "$?" 1 "$n >$where: exit 1"
		is "$(grep -vE '(door|Tracing)' "$T_TMP/full.err")" \
			"$(basename "$s"): cannot write the output: No space left on device" \
			"$n >$where: one line says why"
	done
	umount "$T_TMP/fullfs"

	# stdout a pipe that closes: `stage | head -n 1` ends by itself. The
	# pipe stays open (gate) until the test has seen what the stage holds.
	# p.err goes too: the last stage's "Hit Ctrl-C" must not be read as
	# this one's before the pipeline (in the background) makes it anew.
	rm -f "$T_TMP/p.rc" "$T_TMP/p.pid" "$T_TMP/p.err" "$T_TMP/gate"
	(sh -c 'echo $$ >"$1.new" && mv "$1.new" "$1"; shift; exec "$@"' sh "$T_TMP/p.pid" \
		"$s" -a $DOOR 2>"$T_TMP/p.err"
	 echo $? >"$T_TMP/p.rc") |
		{ head -n 1; until [ -e "$T_TMP/gate" ]; do sleep 0.05; done; } >"$T_TMP/p.out" &
	hpid=$!
	wait_for 120 p_started ||
		diag "$n | head -n 1: not tracing after 120 s: $(cat "$T_TMP/p.err" 2>/dev/null)"
	ppid=$(cat "$T_TMP/p.pid" 2>/dev/null)
	: >"$T_TMP/ids"
	[ -n "$ppid" ] && "$BIN/bpf_obj" ids "$ppid" | sort -u >"$T_TMP/ids"
	check "$n | head -n 1: holds programs while it runs" grep -q "^prog " "$T_TMP/ids"
	touch "$T_TMP/gate"
	# I/O of every kind until the stage notices its reader is gone (at
	# its next line or row; 30 s bound a hang, a busy machine is slower)
	i=0
	while [ ! -e "$T_TMP/p.rc" ] && [ $i -lt 300 ]; do
		"$BIN/bio_io" "/dev/$DEV" $((i * 8)) >/dev/null 2>&1
		cat "$s" "$ROOT/README.md" >/dev/null
		sleep 0.1
		i=$((i + 1))
	done
	if [ ! -e "$T_TMP/p.rc" ]; then
		[ -n "$ppid" ] && kill -INT "$ppid"
		wait $hpid
		if [ -s "$T_TMP/p.out" ]; then
			ok 1 "$n | head -n 1: ends once head has gone"
		else
			skip "$n | head -n 1" "printed no line in 30 s of I/O"
		fi
		continue
	fi
	wait $hpid
	is "$(cat "$T_TMP/p.rc")" 0 "$n | head -n 1: ends by itself, exit 0"
	is "$(wc -l <"$T_TMP/p.out")" 1 "$n | head -n 1: head got its line"
	check "$n | head -n 1: no error on stderr" \
		sh -c "! grep -vE '(door|Tracing)' '$T_TMP/p.err'"
	clean "$n | head -n 1" "$ppid"
done

# Losses are counted. A full start map: fill it from outside while the
# stage runs, then every start the stage tries to store must be counted.
for s in $STAGES; do
	n=$(stage_name "$s")
	pick_door "$s" || continue	# said above
	start "$s" -a $DOOR -q -d "$DEV" || { ok 1 "$n [map full]: starts"; continue; }
	map=$("$BIN/bpf_obj" map-id $TPID start 2>/dev/null)
	if [ -z "$map" ]; then
		stop
		continue
	fi
	filled=$("$BIN/bpf_obj" fill "$map" 10000000)
	io "/dev/$DEV" 0 8 16 24 100 2048 4096 8000
	stop
	full=$(sed -n 's/^Lost: \([0-9]*\) .*(map full)$/\1/p' "$T_TMP/out")
	check "$n [map full]: start map filled ($filled); ${full:-no} start records lost, counted" \
		test "${full:-0}" -gt 0
	# with a start lost, an end without one is no longer taken for I/O
	# in flight when tracing began: it is counted as lost too
	check "$n [map full]: the lost starts show as completions without one, lost" \
		grep -q "^Lost: [1-9][0-9]* completions without a recorded start (in flight at start, or its start lost)" "$T_TMP/out"
	# the made-up entries are starts no completion ever ended
	check "$n [map full]: the $filled entries left are counted at exit" \
		grep -qx "Lost: $filled starts never seen to complete (in flight at exit, or its end lost)" \
		"$T_TMP/out"
done

# Trace-buffer overruns (stages 01-02 read bpf_printk's lines): a tiny
# buffer, a reader that stops (SIGSTOP), many events: the overwritten
# lines must be counted in the summary. The buffer is a few of the
# kernel's pages whatever is asked: 600 bios per 4 KiB of page (2,400
# on arm64-16k, whose 600 lines fitted).
S=$(ls "$ROOT"/stage03_*/bio_trace 2>/dev/null | head -n 1)
S1=$(ls "$ROOT"/stage01_*/bio_trace 2>/dev/null | head -n 1)
if [ -x "$S1" ] && pick_door "$S1"; then
	D1=$DOOR
	start "$S1" -a $D1 -d "$DEV" || ok 1 "overrun: starts"
	inst=$(ls -d "$TRACEFS/instances/"*".$TPID" 2>/dev/null | head -n 1)
	[ -d "$inst" ] || ok 1 "overrun: the stage's trace instance exists ($inst)"
	echo 4 >"$inst/buffer_size_kb"
	nb=$((600 * $(page_kb || echo 4) / 4))
	kill -STOP $TPID
	sectors=$(awk -v n=$nb 'BEGIN { for (i = 0; i < n; i++) printf "%d ", i * 8 }')
	io "/dev/$DEV" $sectors
	kill -CONT $TPID
	stop
	lost=$(sed -n 's/^Lost: \([0-9]*\) trace lines overwritten.*/\1/p' "$T_TMP/out")
	got=$(count "submit_bio() called:" "$T_TMP/out")
	check "overrun: $nb bios, ${got} lines read, ${lost:-no} lines counted as overwritten" \
		test "${lost:-0}" -gt 0 -a "$got" -lt $nb
	check "overrun: the events themselves are all counted" \
		grep -qx "Events: submit_bio $nb" "$T_TMP/out"

	# SIGKILL cannot be caught: the kernel frees the BPF objects, and the
	# instance left behind goes at the next run of any stage, -q or not.
	start "$S1" -a $D1 -d "$DEV" || ok 1 "SIGKILL: starts"
	"$BIN/bpf_obj" ids $TPID | sort -u >"$T_TMP/ids"
	inst=$(ls -d "$TRACEFS/instances/"*".$TPID" 2>/dev/null | head -n 1)
	kill -KILL $TPID
	{ wait $TPID; } 2>/dev/null	# no "Killed" from the shell
	check "SIGKILL: its trace instance is left behind (${inst:-none})" test -d "$inst"
	is "$(left_behind "$T_TMP/ids" $TPID | grep -v '^instance ')" "" \
		"SIGKILL: no program, link or map left"
	if [ -x "$S" ] && pick_door "$S"; then
		"$S" -a $DOOR -q --duration 0.1 >/dev/null 2>&1
		check "SIGKILL: the next run, stage 03 -q, removes it" test ! -e "$inst"
	else
		skip "SIGKILL: the next run removes it" "stage03 is not built or starts with no door"
	fi
else
	skip "overrun" "stage01 is not built or starts with no door: $WHY"
fi

# Two copies of stage 03 (one of them -j) and stage 01 at once, on two
# disks: each stage 03 run shows its own events and nothing else (its
# ring buffer is its own), stage 01's bpf_printk lines reach stage 01
# only, and each run's counts are its own.
S1=$(ls "$ROOT"/stage01_*/bio_trace 2>/dev/null | head -n 1)
if [ -x "$S" ] && pick_door "$S" && D3=$DOOR && [ -x "$S1" ] && pick_door "$S1"; then
	D1=$DOOR
	# disk B: a loop device of its own even where TEST_DEV names disk A
	DEV_A=$DEV LOOP_A=$T_LOOP BACK_A=$T_BACKING
	T_LOOP= T_BACKING=
	trap '[ -n "$LOOP_A" ] && losetup -d "/dev/$LOOP_A"; rm -f "$BACK_A"; cleanup; exit 1' INT TERM
	test_dev=$TEST_DEV
	TEST_DEV=
	scratch_dev
	rc=$?
	TEST_DEV=$test_dev
	if [ $rc -eq 0 ] && [ "$DEV" != "$DEV_A" ]; then
		DEV_B=$DEV
		start "$S" -a $D3 -d "$DEV_A" && mv "$T_TMP/out" "$T_TMP/a.out" && PA=$TPID
		start "$S" -a $D3 -d "$DEV_B" -j && mv "$T_TMP/out" "$T_TMP/b.out" && PB=$TPID
		start "$S1" -a $D1 -d "$DEV_A" && mv "$T_TMP/out" "$T_TMP/c.out" && PC=$TPID
		io "/dev/$DEV_A" 0 8 16 24 32
		io "/dev/$DEV_B" 0 8 16
		kill -INT $PA $PB $PC
		wait $PA $PB $PC
		check "together: copy A counts only disk A (5)" \
			grep -qx "Events: submit_bio 5, bio_endio 5" "$T_TMP/a.out"
		is "$(grep -c '^bio 0x[0-9a-f]*: submit_bio() -> bio_endio() time duration: [0-9]* ns$' "$T_TMP/a.out")" 5 \
			"together: copy A prints its 5 latencies"
		is "$(grep -vc '^bio 0x\|^Events: \|^Lost: none$' "$T_TMP/a.out")" 0 \
			"together: copy A prints nothing else (no stage 01 line)"
		is "$(grep -c '^{"type":"latency",' "$T_TMP/b.out")" 3 \
			"together: copy B (-j) writes its 3 latency objects"
		is "$(grep -vc '^{"type":"latency",\|^{"type":"summary","events":{"submit_bio":3,"bio_endio":3}' "$T_TMP/b.out")" 0 \
			"together: copy B writes nothing else, and counts only disk B (3)"
		check "together: stage01 on disk A counts 5" \
			grep -qx "Events: submit_bio 5" "$T_TMP/c.out"
		is "$(count "submit_bio() called:" "$T_TMP/c.out")" 5 \
			"together: stage01 reads its 5 lines"
		is "$(count "time duration" "$T_TMP/c.out")" 0 \
			"together: stage01 reads no line of stage 03's"
	else
		skip "together" "cannot make a second scratch block device"
	fi
	[ -n "$LOOP_A" ] && losetup -d "/dev/$LOOP_A"
	rm -f "$BACK_A"
else
	skip "together" "stage01 or stage03 is not built or starts with no door"
fi
done_testing
