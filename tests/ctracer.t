#!/bin/sh
# ctracer (tools/ctracer) finds the functions that take a struct bio * and
# follows each bio through them (or through the block tracepoints), as a
# tree per bio. Ground truth: one O_DIRECT read of a known sector.
. "$(dirname "$0")/lib.sh"
S=$ROOT/tools/ctracer/ctracer
need_bin "$S"
need_bin "$BIN/bio_io"

# --tree-timeout takes seconds as --duration does; anything else is one
# line and exit 2 (no root needed: it is refused before anything runs)
for arg in 0 -1 x 5s 1e8 ''; do
	"$S" --tree-timeout "$arg" >/dev/null 2>"$T_TMP/err"
	is "$?" 2 "--tree-timeout '$arg' exits 2"
	is "$(head -n 1 "$T_TMP/err")" \
		"ctracer: --tree-timeout needs a positive number of seconds, not '$arg'" \
		"--tree-timeout '$arg': says why in one line"
done
need_root
scratch_dev || skip_all "cannot make a scratch block device"

# --- discovery from BTF
"$S" --list >"$T_TMP/list" 2>"$T_TMP/list.err"
is "$?" 0 "--list exits 0"
n=$(sed -n 's/^\([0-9]*\) functions take a struct bio \*.*/\1/p' "$T_TMP/list")
check "--list finds functions in BTF (${n:-none})" test "${n:-0}" -ge 50
check "--list: submit_bio, its bio the first argument" grep -Eq '^submit_bio +arg1$' "$T_TMP/list"
check "--list: bio_endio, its bio the first argument" grep -Eq '^bio_endio +arg1$' "$T_TMP/list"
check "--list: no tracepoint glue" \
	sh -c "! grep -Eq '^(__bpf_trace_|__probestub_|__traceiter_)' '$T_TMP/list'"
is "$(grep -Ec '^[A-Za-z_0-9.]+ +arg[1-5]( |$)' "$T_TMP/list")" "$n" \
	"--list: one line per function counted"

# --- every program passes this kernel's verifier, also those of the doors
# it cannot attach here (the kprobe programs on a host without kprobes).
# A kernel that refuses fentry refuses to load those programs at all:
# then they are left out of a copy of the object (the VM loads them).
OBJ=$ROOT/build/ctracer/ctracer.bpf.o
left=
if [ -f "$OBJ" ] && ! why=$(door_ok "$S" fentry); then
	if command -v llvm-objcopy >/dev/null 2>&1 &&
	   llvm-objcopy --remove-section='fentry*' --remove-section='.relfentry*' \
		--remove-section='fexit*' --remove-section='.relfexit*' "$OBJ" "$T_TMP/nofentry.o"; then
		OBJ=$T_TMP/nofentry.o
		left=", fentry and fexit left out: ${why#*: }"
	else
		OBJ=
	fi
fi
if [ ! -f "$OBJ" ] || ! command -v bpftool >/dev/null 2>&1; then
	skip "every program loads" "needs bpftool, llvm-objcopy and the host's build of ctracer.bpf.o"
else
	grep -q ' /sys/fs/bpf bpf ' /proc/mounts || mount -t bpf bpf /sys/fs/bpf 2>/dev/null
	pin=/sys/fs/bpf/ctracer_$$	# (bpffs refuses a "." in a name)
	if ! mkdir "$pin" 2>/dev/null; then
		skip "every program loads" "no bpffs at /sys/fs/bpf"
	else
		bpftool prog loadall "$OBJ" "$pin" >"$T_TMP/loadall" 2>&1
		ok $? "every program of ctracer.bpf.o passes the verifier ($(ls "$pin" | wc -l) programs$left)"
		[ -s "$T_TMP/loadall" ] && grep -E 'load failed|disallowed|invalid' "$T_TMP/loadall" | head -n 5 | sed 's/^/#   /'
		rm -rf "$pin"
	fi
fi

# tree FILE SECTOR SUBMIT END: shell assignments for the trees whose bio
# was at SECTOR when submitted (at point SUBMIT); a line shows a field
# only where it changed, so the fields are carried from line to line:
#   TREES how many; then, for the first: HDR (its header), SUB and END
#   (line numbers in the tree of its submit and of its end at END),
#   SUB_TASK (the submitter), SIZE and OP at its submit.
tree() {
	awk -v sec="$2" -v subp="$3" -v endp="$4" '
	function flush() {
		if (sb && ssec == sec && !trees++)
			printf "HDR=\"%s\" SUB=%d END=%d SUB_TASK=%s SIZE=%s OP=%s ",
				hdr, sb, end, task, size, op
	}
	/^bio 0x/ { flush(); hdr = $0; n = sb = end = 0; cs = cz = co = ""; next }
	/^ +[0-9]+\.[0-9]+ us / {
		n++
		got = 0
		for (i = 7; i <= NF; i++) {
			if ($i ~ /^sector=/) cs = substr($i, 8)
			if ($i ~ /^size=/) cz = substr($i, 6)
			# the operation, then its flags ("READ SYNC|IDLE")
			if (!got && $i ~ /^[A-Z_]+$/) { co = $i; got = 1 }
		}
		p = $6		# "submit_bio", or with -r "submit_bio() {"
		sub(/\(.*/, "", p)
		if (p == subp && !sb) { sb = n; task = $5; ssec = cs; size = cz; op = co }
		if (p == endp && $0 ~ /\(end\)$/) end = n
	}
	END { flush(); printf "TREES=%d\n", trees }' "$1"
}

SECTOR=2048
for door in $TEST_DOORS; do
	t="ctracer [$door]"
	case $door in
	tracepoint) subp=block_bio_queue endp=block_rq_complete ;;
	kprobe | fentry) subp=submit_bio endp=bio_endio ;;
	*) skip "$t" "ctracer has no $door door"; continue ;;
	esac
	if ! why=$(door_ok "$S" "$door"); then
		skip "$t" "$why"
		continue
	fi
	start "$S" -a "$door" -d "$DEV" || { ok 1 "$t: starts"; continue; }
	io "/dev/$DEV" $SECTOR
	pid=$(sed -n 's/^pid //p' "$T_TMP/io.out")
	stop
	is "$TRC" 0 "$t: exits 0 on Ctrl-C"
	att=$(sed -n 's/.* door, .*: \([0-9]*\) of [0-9]* .* attached in [0-9]* ms.*/\1/p' "$T_TMP/err")
	check "$t: says how many points it attached (${att:-none})" test "${att:-0}" -gt 0
	[ "$door" != tracepoint ] &&
		check "$t: at least 100 functions attached (${att:-none})" test "${att:-0}" -ge 100
	HDR= SUB=0 END=0 SUB_TASK= SIZE= OP=
	eval "$(tree "$T_TMP/out" $SECTOR $subp $endp)"
	is "$TREES" 1 "$t: exactly one bio at sector $SECTOR"
	is "$SIZE" 4096 "$t: its size 4096"
	is "$OP" READ "$t: a READ"
	is "$SUB_TASK" "bio_io-$pid" "$t: submitted by our bio_io ($subp)"
	check "$t: $subp (line $SUB) before its end at $endp (line $END)" \
		test "$SUB" -gt 0 -a "$END" -gt "$SUB"
	case $HDR in
	*"no end seen"* | *"no submit seen"* | "") ok 1 "$t: whole life seen ($HDR)" ;;
	*) ok 0 "$t: whole life seen" ;;
	esac
	# events the kernel skipped and counted (a kprobe or a recursion
	# miss: an interrupt's event while a program ran on its CPU, seen on a
	# loaded host) are said; nothing else may be lost
	is "$(grep '^Lost: ' "$T_TMP/out" | grep -v ' events missed by ' | grep -vx 'Lost: none')" "" \
		"$t: nothing lost but events the kernel counted as missed ($(grep '^Lost: ' "$T_TMP/out" | tr '\n' ' '))"
	check "$t: each line names its context" awk '/^ +[0-9]+\.[0-9]+ us / &&
		$4 !~ /^(task|softirq|hardirq|nmi|irq)$/ { bad = 1 } END { exit bad }' "$T_TMP/out"
	# a bio is submitted, and a request issued, by a task (the reader,
	# or kblockd's worker): never in an interrupt
	check "$t: $subp and block_rq_issue run in task context" awk -v p="$subp" '
		/^ +[0-9]+\.[0-9]+ us / && ($6 == p || $6 == "block_rq_issue") { n++; if ($4 != "task") bad = 1 }
		END { exit bad || !n }' "$T_TMP/out"

	# the smoke set: one run per door (each attaches some 200 functions)
	[ -n "${TEST_SMOKE:-}" ] && continue

	# -r: each call with its return and duration; -s: that sector's bio only
	if [ "$door" != tracepoint ]; then
		start "$S" -a "$door" -r -d "$DEV" -s $SECTOR || { ok 1 "$t: -r starts"; continue; }
		io "/dev/$DEV" 1024 $SECTOR
		stop
		is "$TRC" 0 "$t: -r: exits 0 on Ctrl-C"
		eval "$(tree "$T_TMP/out" 1024 $subp $endp)"
		is "$TREES" 0 "$t: -s $SECTOR: the bio at sector 1024 not shown"
		eval "$(tree "$T_TMP/out" $SECTOR $subp $endp)"
		is "$TREES" 1 "$t: -s $SECTOR: its bio shown"
		check "$t: -r: submit_bio() left, with its duration" \
			grep -Eq ' (\} submit_bio|submit_bio\(\))  [0-9]+\.[0-9]{3} us' "$T_TMP/out"
		check "$t: -r: every call's return seen, nothing lost" grep -qx "Lost: none" "$T_TMP/out"
	fi

	# -p: only the bios that process submits, followed to their end
	# (bio_io waits on a gate file, so its PID is known before it reads)
	gate=$T_TMP/gate
	rm -f "$gate"
	: >"$T_TMP/io.out"	# there before the grep below, which may run first
	"$BIN/bio_io" -g "$gate" "/dev/$DEV" 4096 >"$T_TMP/io.out" 2>&1 &
	iop=$!
	wait_for 30 grep -q '^pid ' "$T_TMP/io.out"
	start "$S" -a "$door" -d "$DEV" -p "$iop" || { ok 1 "$t: -p starts"; kill $iop; continue; }
	io "/dev/$DEV" 1024	# another process: not shown
	touch "$gate"
	wait $iop
	stop
	eval "$(tree "$T_TMP/out" 4096 $subp $endp)"
	is "$TREES" 1 "$t: -p $iop: its bio at sector 4096 shown"
	check "$t: -p: its end seen in another context" test "$END" -gt "$SUB"
	eval "$(tree "$T_TMP/out" 1024 $subp $endp)"
	is "$TREES" 0 "$t: -p: another process's bio not shown"

	# -p under -d when the followed bio's address comes back in another
	# process's bio: one AIO read each (bio_io -A: the bio from the block
	# layer's pool, whose slab hands out the last one freed on a CPU
	# first), both on CPU 0. At bio_init() the new bio's disk is not set
	# (zeroed memory where init_on_alloc is on, as in Debian's kernels):
	# it must still end the old life, or the other process's bio passes
	# as the followed one's.
	[ "$door" = tracepoint ] && continue
	if ! command -v taskset >/dev/null 2>&1; then
		skip "$t: -p, the followed bio's address used again" "needs taskset"
		continue
	fi
	rm -f "$gate"
	: >"$T_TMP/io.out"
	taskset -c 0 "$BIN/bio_io" -A -g "$gate" "/dev/$DEV" 4096 >"$T_TMP/io.out" 2>&1 &
	iop=$!
	wait_for 30 grep -q '^pid ' "$T_TMP/io.out"
	start "$S" -a "$door" -d "$DEV" -p "$iop" || { ok 1 "$t: -p again: starts"; kill $iop; continue; }
	touch "$gate"
	wait $iop
	is "$?" 0 "$t: -p again: its AIO read at sector 4096 done"
	taskset -c 0 "$BIN/bio_io" -A "/dev/$DEV" 1024 >"$T_TMP/io2.out" 2>&1
	is "$?" 0 "$t: -p again: then another process's, at sector 1024, on the same CPU"
	stop
	eval "$(tree "$T_TMP/out" 4096 $subp $endp)"
	is "$TREES" 1 "$t: -p again: its bio shown"
	eval "$(tree "$T_TMP/out" 1024 $subp $endp)"
	is "$TREES" 0 "$t: -p again: the other process's bio not shown, whatever its address"
	[ "$TREES" -eq 0 ] || sed -n '/^bio 0x/,$p' "$T_TMP/out" | head -n 30 | sed 's/^/#   /'
done

if [ -n "${TEST_SMOKE:-}" ]; then
	diag "smoke set (TEST_SMOKE): -r, -s, -p, --tree-timeout and the ways out left out"
	done_testing
	exit
fi

# --tree-timeout: a tree whose end never comes is printed after that long
# without an event, while the run goes on, and counted. Ground truth: a
# write to a loop device over a file of a frozen ext4 (fsfreeze): its bio
# is queued and issued, then the loop worker waits for the thaw, so the
# write cannot end before the test thaws it.
t="ctracer [--tree-timeout]"
tt_img=${TMPDIR:-/tmp}/bwb-tt.$$.img
[ -d /dev/shm ] && tt_img=/dev/shm/bwb-tt.$$.img
tt_low= tt_up= tt_mnt=
if ! command -v fsfreeze >/dev/null 2>&1 || ! command -v mkfs.ext4 >/dev/null 2>&1; then
	skip "$t" "needs fsfreeze and mkfs.ext4"
elif ! why=$(door_ok "$S" tracepoint); then
	skip "$t" "$why"
elif ! dd if=/dev/zero of="$tt_img" bs=1M count=32 2>/dev/null ||
     ! tt_low=$(loop_attach "$tt_img") ||
     ! mkfs.ext4 -q -F "$tt_low" >/dev/null 2>&1 ||
     ! mkdir -p "$T_TMP/tt" || ! mount "$tt_low" "$T_TMP/tt" ||
     ! tt_mnt=$T_TMP/tt ||
     ! dd if=/dev/zero of="$tt_mnt/file" bs=1M count=4 2>/dev/null ||
     ! tt_up=$(loop_attach "$tt_mnt/file"); then
	skip "$t" "cannot stack a loop device on a file of ext4"
elif start "$S" -a tracepoint -d "${tt_up#/dev/}" --tree-timeout 1; then
	fsfreeze --freeze "$tt_mnt"	# busybox knows only the long options
	"$BIN/bio_io" -w "$tt_up" 2048 >"$T_TMP/io.out" 2>&1 &
	wpid=$!
	wait_for 120 grep -q "no end seen" "$T_TMP/out"
	ok $? "$t: the write's tree printed without its end"
	check "$t: ... while the run goes on" kill -0 $TPID
	check "$t: ... and the write still waits (its end never came)" kill -0 $wpid
	# thawed while ctracer runs: the write ends (O_DIRECT: its bio's end
	# came before pwrite() returned), late
	fsfreeze --unfreeze "$tt_mnt"
	wait $wpid
	is "$?" 0 "$t: thawed, the write ends"
	stop
	is "$TRC" 0 "$t: exits 0 on Ctrl-C"
	eval "$(tree "$T_TMP/out" 2048 block_bio_queue block_rq_complete)"
	is "$TREES" 1 "$t: one tree for the write at sector 2048"
	is "$OP" WRITE "$t: a WRITE"
	addr=$(echo "$HDR" | awk '{ print $2 }')
	addr=${addr%:}
	is "$(grep -c "^bio $addr:" "$T_TMP/out")" 1 \
		"$t: its late end starts no tree of its own (bio $addr)"
	check "$t: counted as unfinished" \
		grep -qx "Unfinished: 1 bios printed without their end after 1 s with no event (--tree-timeout)" \
		"$T_TMP/out"
	check "$t: its end counted late" \
		grep -Eqx "Late: [1-9][0-9]* events of those bios came after their tree was printed" \
		"$T_TMP/out"
	check "$t: not counted as in flight at exit" \
		sh -c "! grep -q 'at exit: [1-9][0-9]* bios without their end' '$T_TMP/out'"
else
	ok 1 "$t: starts"
fi
[ -n "$tt_mnt" ] && fsfreeze --unfreeze "$tt_mnt" 2>/dev/null
[ -n "$tt_up" ] && losetup -d "$tt_up" 2>/dev/null
[ -n "$tt_mnt" ] && umount "$tt_mnt" 2>/dev/null
[ -n "$tt_low" ] && losetup -d "$tt_low" 2>/dev/null
rm -f "$tt_img"

# Ways out: SIGHUP ends a run like Ctrl-C; stdout that takes nothing
# more (/dev/full) is one line and exit 1
t="ctracer [exits]"
if ! why=$(door_ok "$S" auto); then
	skip "$t" "$why"
elif start "$S" -d "$DEV"; then
	io "/dev/$DEV" 64
	kill -HUP $TPID
	wait $TPID
	is "$?" 0 "$t: SIGHUP: exit 0"
	check "$t: SIGHUP: its tree and summary printed" grep -q "^Lost: " "$T_TMP/out"
	"$S" --duration 0.3 >/dev/full 2>"$T_TMP/full.err"
	is "$?" 1 "$t: >/dev/full: exit 1"
	is "$(grep -vE '(door|Tracing)' "$T_TMP/full.err")" \
		"ctracer: cannot write the output: No space left on device" "$t: >/dev/full: one line says why"
else
	ok 1 "$t: starts"
fi
done_testing
