#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The teachers' answers (solutions/ID.patch, built by make test into
# build/solutions/ID/, scripts/solution): each runs like
# a stage, on this test's own loop device, against I/O the test issued.
. "$(dirname "$0")/lib.sh"
SOL=$ANSWERS
need_bin "$BIN/bio_io"
need_root
# a device where one chosen read (slow_io) is slow: stage06_sample needs a
# slowest bio it knows; the other solutions use it as any scratch device
slow_dev || skip_all "cannot make a scratch block device"

# run_sol NAME ARGS...: start solution NAME on $DEV; 1 if it cannot.
run_sol() {
	_s=$SOL/$1/bio_trace
	shift
	if [ ! -x "$_s" ]; then
		skip "$t" "$_s is not built (run make solutions)"
		return 1
	fi
	start "$_s" -d "$DEV" "$@" && return 0
	# stage06_sample counts with an atomic add that returns the old
	# value (BPF_FETCH, 5.12): 5.10 refuses it in every door
	case $(uname -r) in
	[1-4].* | 5.[0-9].* | 5.1[01].*)
		skip "$t" "$(grep -m 1 'no working door' "$T_TMP/err") (a kernel before 5.12)"
		return 1 ;;
	esac
	ok 1 "$t: starts"
	return 1
}

# stage01: the submitter's name and the bio's size on every line
t="answer 01.1"
if run_sol 01.1; then
	io "/dev/$DEV" 0 8
	io -s 8192 "/dev/$DEV" 64
	stop
	is "$TRC" 0 "$t: exits 0 on Ctrl-C"
	is "$(count 'by bio_io, 4096 bytes' "$T_TMP/out")" 2 "$t: two 4 KiB reads by bio_io"
	is "$(count 'by bio_io, 8192 bytes' "$T_TMP/out")" 1 "$t: one 8 KiB read by bio_io"
fi

# stage02: completions by CPU add up to the completions issued
t="answer 02.1"
if run_sol 02.1 -q; then
	io "/dev/$DEV" 0 8 16 24 32
	io -w "/dev/$DEV" 100 108
	stop
	is "$TRC" 0 "$t: exits 0 on Ctrl-C"
	sum=$(awk -F'[ :]+' '/^[0-9]+ +: [0-9]+ +\|/ { n += $2 } END { print n + 0 }' "$T_TMP/out")
	is "$sum" 7 "$t: per-CPU counts add up to the 7 bios issued"
	check "$t: the total agrees" grep -qx "Events: submit_bio 7, bio_endio 7" "$T_TMP/out"
fi

# stage03: one CSV row per bio (an event from the ring buffer), with its
# direction and a sane latency, in every door this kernel has
for door in $TEST_DOORS; do
	t="answer 03.1 [$door]"
	# a door this kernel lacks is a SKIP; any other failure fails below
	if [ -x "$SOL/03.1/bio_trace" ] && ! why=$(door_ok "$SOL/03.1/bio_trace" "$door"); then
		case "$why" in
		*"door on this kernel"*) skip "$t" "$why"; continue ;;
		esac
	fi
	run_sol 03.1 -a "$door" || continue
	io "/dev/$DEV" 0 8 16
	slow_io "/dev/$DEV" $SLOW_SECTOR
	io -w "/dev/$DEV" 200 208
	stop
	is "$TRC" 0 "$t: exits 0 on Ctrl-C"
	is "$(head -n 1 "$T_TMP/out")" "completion_time,direction,latency_ms" "$t: header row"
	rows=$(grep -E '^[0-9]+\.[0-9]{6},(read|write),[0-9]+\.[0-9]{3}$' "$T_TMP/out")
	is "$(printf '%s\n' "$rows" | grep -c ',read,')" 4 "$t: 4 read rows"
	is "$(printf '%s\n' "$rows" | grep -c ',write,')" 2 "$t: 2 write rows"
	printf '%s\n' "$rows" | awk -F, '$3 <= 0 || $3 > 10000 { bad = 1 } END { exit bad }'
	ok $? "$t: every latency in (0, 10 s]"
	# completion times: seconds since tracing began, in the order they ended
	printf '%s\n' "$rows" | awk -F, '$1 < 0 || $1 > 600 || $1 < last { bad = 1 } { last = $1 } END { exit bad }'
	ok $? "$t: completion times since the start, in order"
	# the 4th read was held back on purpose: its row says at least that long
	if [ "$SLOW_NS" -gt 0 ] && [ -z "$SLOW_ALL" ]; then
		slow_ms=$(printf '%s\n' "$rows" | awk -F, '$2 == "read" && ++n == 4 { print $3 }')
		check "$t: the slow read's row, $slow_ms ms, >= $((SLOW_NS / 1000000)) ms" \
			awk -v v="$slow_ms" -v min="$SLOW_NS" 'BEGIN { exit !(v != "" && v * 1000000 >= min) }'
	fi
	check "$t: the summary follows the rows" grep -qx "Events: submit_bio 6, bio_endio 6" "$T_TMP/out"
	check "$t: nothing lost" grep -qx "Lost: none" "$T_TMP/out"
	is "$(grep -c 'bpf_trace_printk\|time duration' "$T_TMP/out")" 0 "$t: rows only, no trace lines"
done
t="answer 03.1 -q"
if run_sol 03.1 -q; then
	io "/dev/$DEV" 0 8
	stop
	is "$TRC" 0 "$t: exits 0 on Ctrl-C"
	is "$(grep -c ',read,\|,write,' "$T_TMP/out")" 0 "$t: no rows, counts only"
	check "$t: the counts" grep -qx "Events: submit_bio 2, bio_endio 2" "$T_TMP/out"
fi

# stage03: the linear histogram, at the end and per interval
t="answer 03.2"
if run_sol 03.2; then
	io "/dev/$DEV" 0 8 16 24 32 40
	stop
	is "$TRC" 0 "$t: exits 0 on Ctrl-C"
	check "$t: header" grep -q "^msecs  *: count  *distribution$" "$T_TMP/out"
	sum=$(hist_sum "$T_TMP/out")
	is "$sum" 6 "$t: the buckets hold the 6 bios issued"
	check "$t: the counts agree" grep -qx "Events: submit_bio 6, bio_endio 6" "$T_TMP/out"
	is "$(grep -c 'time duration' "$T_TMP/out")" 0 "$t: a histogram, no per-bio lines"
fi
t="answer 03.2 -i 1"
if run_sol 03.2 -i 1; then
	io "/dev/$DEV" 0 8
	sleep 1.3
	io "/dev/$DEV" 16 24 32
	stop
	is "$TRC" 0 "$t: exits 0 on Ctrl-C"
	n=$(grep -c '^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]$' "$T_TMP/out")
	check "$t: at least two intervals printed ($n)" test "$n" -ge 2
	# each interval is cleared: the counts add up to 5, not more
	sum=$(hist_sum "$T_TMP/out")
	is "$sum" 5 "$t: intervals hold the 5 bios once each"
fi

# stage04: the three slowest, the read held back on purpose first (make
# check compares them with the reads' own lines, none held back)
t="answer 04.1"
if [ "$SLOW_NS" -gt 0 ] && [ -z "$SLOW_ALL" ]; then
	if run_sol 04.1; then
		io "/dev/$DEV" 0 8 16
		slow_io "/dev/$DEV" $SLOW_SECTOR
		stop
		is "$TRC" 0 "$t: exits 0 on Ctrl-C"
		is "$(grep -c '^[1-3]: bio 0x[0-9a-f]* [0-9]* ns$' "$T_TMP/out")" 3 "$t: three of 4 reads listed"
		first=$(sed -n 's/^1: bio 0x[0-9a-f]* \([0-9]*\) ns$/\1/p' "$T_TMP/out")
		check "$t: the first, ${first:-none} ns, is the slow read (>= $SLOW_NS ns)" \
			test "${first:-0}" -ge "$SLOW_NS"
	fi
else
	skip "$t: the slow read first" "no read is slower than the others on this device"
fi

# stage04: -m MS keeps the read held back on purpose and drops the fast
# ones (make check can only show that it drops all, on a device of fast
# reads); -m 0 is a usage error.
t="answer 04.2 -m"
if [ "$SLOW_NS" -gt 0 ] && [ -z "$SLOW_ALL" ]; then
	if run_sol 04.2 -m $((SLOW_NS / 1000000)); then
		io "/dev/$DEV" 0 8 16
		slow_io "/dev/$DEV" $SLOW_SECTOR
		stop
		is "$TRC" 0 "$t: exits 0 on Ctrl-C"
		is "$(grep -c 'time duration: ' "$T_TMP/out")" 1 \
			"$t $((SLOW_NS / 1000000)): one line, the slow read's, of 4 reads"
		check "$t: the counts still see all 4" grep -qx "Events: submit_bio 4, bio_endio 4" "$T_TMP/out"
	fi
else
	skip "$t: only the slow read printed" "no read is slower than the others on this device"
fi
if [ -x "$SOL/04.2/bio_trace" ]; then
	"$SOL/04.2/bio_trace" -m 0 >/dev/null 2>"$T_TMP/err"
	is "$?" 2 "answer 04.2 -m 0: exit 2"
	check "answer 04.2 -m 0: one line says why" grep -q "invalid latency '0'" "$T_TMP/err"
fi

# stage07: -j carries each request's bytes and direction too
t="answer 07.2 -j"
if run_sol 07.2 -j; then
	io "/dev/$DEV" 0
	io -w -s 8192 "/dev/$DEV" 1000
	stop
	is "$TRC" 0 "$t: exits 0 on Ctrl-C"
	json_lines "$t" "$T_TMP/out"
	is "$(awk "$JF_AWK"' /^\{"type":"rq_latency"/ { printf " %s %s", jf("dir"), jf("bytes") }' "$T_TMP/out")" \
		" R 4096 W 8192" "$t: the read's and the write's bytes and direction"
fi

# stage07 (exercise 07.5, the book's bioerr): ground truth from the
# device mapper. A device-mapper disk the size of $DEV whose I/O fails as
# the test chose, and a loop device over it. dm-N is bio-based: the bios
# it fails never were requests, so a request tracer sees none of them,
# and the answer must count nothing for dm-N, though no -d traces every
# disk. The loop device is request-based: its worker's I/O of dm-N fails,
# and the loop driver ends its own request BLK_STS_IOERR, which the
# answer must count as bio_io got it back (EIO), sector by sector.
#  - dm-error fails every I/O. Its loop device is buffered (busybox's
#    losetup, the VM's, has no direct I/O): a write of a whole block lands
#    in dm-N's page cache and succeeds (it fails later, at writeback, as
#    bios); a write of 512 bytes must first read the rest of its block,
#    which fails.
#  - dm-flakey, up 0 s and down 1 s, down for good, with error_writes:
#    every write fails (EIO), every read passes to $DEV. Its loop device
#    does direct I/O (tests/bin/loop_dio): each write reaches dm-N as a
#    bio of its own, and fails the loop device's request then and there.
# The ground truth is what bio_io got.
ERR_READS="2048 4096 6144"	# far apart: no two can merge
ERR_WRITES="10240 14336"	# 4 KiB
ERR_PARTIAL="18433 22529"	# 512 bytes, within a block
ERR_DM='' ERR_TOP='' ERR_LOOP='' ERR_DEV='' ERR_MOD=''
ES=$SOL/07.5/bio_trace
dm_here() {
	grep -qw device-mapper /proc/misc ||
		{ modprobe dm_mod 2>/dev/null && grep -qw device-mapper /proc/misc; }
}
# err_can T: 0 if this kernel and build can run answer 07.5 over the
# device mapper, else T is a SKIP that says why
err_can() {
	if ! dm_here; then
		skip "$1" "no device mapper on this kernel (no device-mapper in /proc/misc, no dm_mod to load)"
	elif [ ! -x "$ES" ]; then
		skip "$1" "$ES is not built (run make solutions)"
	elif [ ! -x "$BIN/dm_linear" ] || [ ! -x "$BIN/loop_dio" ]; then
		skip "$1" "$BIN/dm_linear or loop_dio is not built (run make helpers)"
	else
		return 0
	fi
	return 1
}
# err_make NAME TARGET [ARGS...]: ERR_TOP (dm-N, a TARGET device over
# $DEV, see dm_linear) and ERR_LOOP over it
err_make() {
	ERR_DM=$1
	shift
	ERR_TOP=$("$BIN/dm_linear" create "$ERR_DM" "/dev/$DEV" "$@" 2>"$T_TMP/dm.err") || {
		ERR_TOP=
		return 1
	}
	trap 'err_undo; cleanup; exit 1' INT TERM
	ERR_LOOP=$(loop_attach "/dev/$ERR_TOP" 2>"$T_TMP/dm.err") || {
		ERR_LOOP=
		echo "cannot attach a loop device to /dev/$ERR_TOP" >"$T_TMP/dm.err"
		return 1
	}
	ERR_LOOP=${ERR_LOOP#/dev/}
	ERR_DEV=$ERR_LOOP
	# udev's probes of both are over before any tracing
	command -v udevadm >/dev/null 2>&1 && udevadm settle -t 60 2>/dev/null
	return 0
}
# err_undo: the loop device detached (it holds dm-N open), then dm-N
# removed; each may lag a moment (udev), the bounds are for a hang
err_undo() {
	if [ -n "$ERR_LOOP" ]; then
		losetup -d "/dev/$ERR_LOOP" 2>/dev/null
		wait_for 30 test ! -e "/sys/block/$ERR_LOOP/loop" ||
			diag "$ERR_LOOP still attached to /dev/$ERR_TOP"
	fi
	if [ -n "$ERR_TOP" ] && ! wait_for 30 "$BIN/dm_linear" remove "$ERR_DM" 2>/dev/null; then
		diag "cannot remove $ERR_TOP ($ERR_DM)"
	fi
	ERR_LOOP='' ERR_TOP='' ERR_DEV=''
	# a module this test loaded goes too (dm_flakey: see flakey_here)
	if [ -n "$ERR_MOD" ] && ! wait_for 30 rmmod "$ERR_MOD" 2>/dev/null; then
		diag "cannot unload $ERR_MOD"
	fi
	ERR_MOD=''
	trap 'cleanup; exit 1' INT TERM	# lib.sh's own
}
# err_io READ|WRITE SECTOR [BYTES]: one bio_io of ERR_DEV; a failure
# noted in $T_TMP/failed as 'STATUS OP SECTOR', the status its errno
# stands for (EIO: IOERR, ETIMEDOUT: TIMEOUT); 1 on any other result
err_io() {
	_w=
	[ "$1" = WRITE ] && _w=-w
	# shellcheck disable=SC2086
	"$BIN/bio_io" $_w -s "${3:-4096}" "/dev/$ERR_DEV" "$2" >/dev/null 2>"$T_TMP/io.err" && return 0
	case $(cat "$T_TMP/io.err") in
	*": Input/output error") echo "IOERR $1 $2" >>"$T_TMP/failed" ;;
	*": Connection timed out") echo "TIMEOUT $1 $2" >>"$T_TMP/failed" ;;
	*) diag "bio_io failed otherwise: $(cat "$T_TMP/io.err")"; return 1 ;;
	esac
}
# err_rw: the dm devices' I/O, reads, writes and partial writes; 1 if
# any got neither success nor a failure err_io knows
err_rw() {
	_bad=0
	for s in $ERR_READS; do err_io READ "$s" || _bad=1; done
	for s in $ERR_WRITES; do err_io WRITE "$s" || _bad=1; done
	for s in $ERR_PARTIAL; do err_io WRITE "$s" 512 || _bad=1; done
	return $_bad
}
# err_rows DISK: the rows under 'I/O errors:' that name DISK, as 'ERROR
# OP COUNT', sorted, on one line (as the 07.5 check reads them)
err_rows() {
	awk -v d="$1" '/^I\/O errors:$/ { on = 1; next }
		on && /^$/ { on = 0 }
		on && $2 == d && NF == 4 { print $1, $3, $4 }' "$T_TMP/out" | sort | paste -sd' ' -
}
# err_doors KIND TRUTH [IO]: in each door, answer 07.5 traces the I/O
# the function IO (err_rw) issues to ERR_DEV; the function TRUTH checks
# that what failed is what the KIND device fails, and the answer must
# report exactly that. ERR_TOP, if any, is the bio-based disk under it.
err_doors() {
	for door in $TEST_DOORS; do
		t="answer 07.5 $1 [$door]"
		if ! why=$(door_ok "$ES" "$door"); then
			case "$why" in
			*"door on this kernel"*) skip "$t" "$why"; continue ;;
			esac
		fi
		if ! start "$ES" -a "$door"; then
			ok 1 "$t: starts"
			continue
		fi
		: >"$T_TMP/failed"
		bad=0
		"${3:-err_rw}" || bad=1
		stop
		is "$TRC $bad" "0 0" "$t: exits 0 on Ctrl-C; bio_io got success, EIO or ETIMEDOUT"
		"$2"
		# the ground truth: what failed, as 'STATUS OP COUNT' rows
		want=$(awk '{ print $1, $2 }' "$T_TMP/failed" | sort | uniq -c |
			awk '{ print $2, $3, $1 }' | paste -sd' ' -)
		diag "$t: bio_io's I/O of $ERR_DEV that failed: $(paste -sd, "$T_TMP/failed")"
		is "$(err_rows "$ERR_DEV")" "$want" "$t: the 'I/O errors:' rows of $ERR_DEV are what failed"
		[ -z "$ERR_TOP" ] ||
			is "$(err_rows "$ERR_TOP")" "" "$t: no row for $ERR_TOP (bio-based: it fails bios, no request)"
		is "$(sed -n "s/.*, failed: \([A-Z_0-9]*\) on $ERR_DEV, \([A-Z_0-9]*\) at sector \([0-9]*\)\$/\1 \2 \3/p" \
			"$T_TMP/out" | sort -k3n | paste -sd, -)" "$(sort -k3n "$T_TMP/failed" | paste -sd, -)" \
			"$t: a line per failure, with its status, op and sector"
	done
}

# dm-error fails every read, whatever the loop device's caching
error_truth() {
	is "$(grep -c ' READ ' "$T_TMP/failed")" 3 "$t: bio_io's 3 reads of $ERR_LOOP failed (EIO)"
}
t="answer 07.5 dm-error"
if ! err_can "$t"; then
	:
elif ! err_make "bwb-err-$$" error; then
	ok 1 "$t: a loop device over a dm-error device ($(cat "$T_TMP/dm.err"))"
	err_undo
else
	diag "$ERR_TOP: dm-error, the size of $DEV; $ERR_LOOP over it"
	err_doors dm-error error_truth
	err_undo
fi

# dm-flakey, down with error_writes: every write failed, no read did
flakey_truth() {
	is "$(paste -sd, "$T_TMP/failed")" \
		"$(for s in $ERR_WRITES $ERR_PARTIAL; do echo "IOERR WRITE $s"; done | paste -sd, -)" \
		"$t: bio_io's 4 writes of $ERR_LOOP failed (EIO), its 3 reads did not"
}
# flakey_here: 0 if the kernel has the flakey target, or dm_flakey loads
# (ERR_MOD: err_undo unloads it. 6.12's has a clone_endio() of its own:
# while it is loaded, ctracer cannot tell which is dm_mod's)
flakey_here() {
	"$BIN/dm_linear" targets 2>/dev/null | grep -qx flakey && return 0
	modprobe dm_flakey 2>/dev/null || return 1
	ERR_MOD=dm_flakey
	trap 'err_undo; cleanup; exit 1' INT TERM
	"$BIN/dm_linear" targets 2>/dev/null | grep -qx flakey
}
t="answer 07.5 dm-flakey"
if ! err_can "$t"; then
	:
elif ! flakey_here; then
	skip "$t" "no dm-flakey on this kernel (no flakey target, no dm_flakey to load)"
	err_undo
elif ! err_make "bwb-flakey-$$" flakey 0 1 error_writes; then
	ok 1 "$t: a loop device over a dm-flakey device ($(cat "$T_TMP/dm.err"))"
	err_undo
elif ! "$BIN/loop_dio" "/dev/$ERR_LOOP" 2>"$T_TMP/dm.err"; then
	ok 1 "$t: direct I/O on $ERR_LOOP, over $ERR_TOP ($(cat "$T_TMP/dm.err"))"
	err_undo
else
	diag "$ERR_TOP: dm-flakey over $DEV, its writes fail; $ERR_LOOP over it, direct I/O"
	err_doors dm-flakey flakey_truth
	err_undo
fi

# answer 07.5 timeout: a null_blk device of this test's own whose timer
# (irqmode=2) ends each request TO_NS after it started, long past its
# queue's io_timeout (TO_MS). The block layer's timeout work calls
# null_timeout_rq(), which sets the command's status BLK_STS_TIMEOUT and
# leaves the request to the timer; the timer ends it with that status
# (5.10 from 5.10.y's backport of "null_blk: fix command timeout
# completion handling"; 6.12, 7.2 alike): ETIMEDOUT for bio_io. No fault
# injection (Debian's kernels have none): a real timeout. Each read takes
# TO_NS, so few: the timeout, rounded up to a second, must pass first.
TO_READS="8 2048"
TO_NS=3000000000 TO_MS=500
TO_NB='' TO_MOD=''
# to_here: 0 if null_blk's configfs is here, or null_blk loads (with no
# device of its own: TO_MOD, to_undo unloads it)
to_here() {
	[ -d /sys/kernel/config/nullb ] && return 0
	modprobe null_blk nr_devices=0 2>/dev/null || return 1
	TO_MOD=null_blk
	trap 'to_undo; cleanup; exit 1' INT TERM
	[ -d /sys/kernel/config/nullb ]
}
# to_make NAME: a null_blk device (as scripts/vm/init's nullb()), ERR_DEV
# its disk: NAME where the kernel names it after its configfs directory
# (6.12, 7.2), else nullbN, N its index (5.10)
to_make() {
	TO_NB=/sys/kernel/config/nullb/$1
	mkdir "$TO_NB" 2>"$T_TMP/to.err" || { TO_NB=; return 1; }
	trap 'to_undo; cleanup; exit 1' INT TERM
	for kv in size=16 blocksize=512 queue_mode=2 memory_backed=0 \
		irqmode=2 completion_nsec=$TO_NS power=1; do
		echo "${kv#*=}" >"$TO_NB/${kv%%=*}" 2>"$T_TMP/to.err" || {
			echo "cannot set ${kv%%=*} of $TO_NB: $(cat "$T_TMP/to.err")" >"$T_TMP/to.err"
			return 1
		}
	done
	ERR_DEV=$1
	[ -e "/sys/block/$ERR_DEV" ] || ERR_DEV=nullb$(cat "$TO_NB/index")
	[ -e "/sys/block/$ERR_DEV" ] || {
		echo "no disk named $1 or $ERR_DEV" >"$T_TMP/to.err"
		return 1
	}
	# udev's probes (each TO_NS) are over, then the timeout is cut
	command -v udevadm >/dev/null 2>&1 && udevadm settle -t 60 2>/dev/null
	echo $TO_MS >"/sys/block/$ERR_DEV/queue/io_timeout" 2>"$T_TMP/to.err" || {
		echo "cannot set /sys/block/$ERR_DEV/queue/io_timeout" >"$T_TMP/to.err"
		return 1
	}
}
# to_undo: the device powered off and removed, null_blk unloaded if this
# test loaded it
to_undo() {
	if [ -n "$TO_NB" ]; then
		echo 0 >"$TO_NB/power" 2>/dev/null
		wait_for 30 rmdir "$TO_NB" 2>/dev/null || diag "cannot remove $TO_NB"
	fi
	if [ -n "$TO_MOD" ] && ! wait_for 30 rmmod "$TO_MOD" 2>/dev/null; then
		diag "cannot unload $TO_MOD"
	fi
	TO_NB='' TO_MOD='' ERR_DEV=''
	trap 'cleanup; exit 1' INT TERM	# lib.sh's own
}
to_reads() {
	for s in $TO_READS; do err_io READ "$s" || return 1; done
}
to_truth() {
	is "$(paste -sd, "$T_TMP/failed")" \
		"$(for s in $TO_READS; do echo "TIMEOUT READ $s"; done | paste -sd, -)" \
		"$t: bio_io's 2 reads of $ERR_DEV failed (ETIMEDOUT)"
}
t="answer 07.5 timeout"
if [ ! -x "$ES" ]; then
	skip "$t" "$ES is not built (run make solutions)"
elif ! to_here; then
	skip "$t" "no null_blk configfs on this kernel (no /sys/kernel/config/nullb, no null_blk to load)"
	to_undo
elif ! to_make "bwb-to-$$"; then
	ok 1 "$t: a null_blk device whose requests time out ($(cat "$T_TMP/to.err"))"
	to_undo
else
	diag "$ERR_DEV: null_blk, each request ended after $TO_NS ns, io_timeout $TO_MS ms"
	err_doors timeout to_truth to_reads
	# what the kernel said of them (null_blk's line, the block layer's)
	dmesg 2>/dev/null | grep -E "rq [0-9a-fx]+ timed out|timeout error, dev $ERR_DEV" | tail -n 2 |
		while IFS= read -r l; do diag "kernel: $l"; done
	to_undo
fi

# stage09: -c must name a cgroup v2 directory
t="answer 09.1 -c"
if [ -x "$SOL/09.1/pagecache_trace" ]; then
	"$SOL/09.1/pagecache_trace" -c "$T_TMP" >/dev/null 2>"$T_TMP/err"
	is "$?" 2 "$t (not a cgroup): exit 2"
	check "$t (not a cgroup): one line says why" grep -q "is not a cgroup v2 directory" "$T_TMP/err"
fi

# stage06: a stack for 1 bio in K. Of the N reads bio_io issues one after
# the other, the 1st, (K+1)th, (2K+1)th ... are sampled: ceil(N / K)
# stacks, whatever the CPUs that submitted them. The 10th read is the slow
# one: its stack is printed when it was sampled (K = 1, 3), else the
# summary says it was not (K = 4, 100).
for k in 1 3 4 100; do
	t="answer 06.3 -s $k"
	run_sol 06.3 -s $k || continue
	io "/dev/$DEV" 0 8 16 24 32 40 48 56 64
	slow_io "/dev/$DEV" $SLOW_SECTOR
	stop
	is "$TRC" 0 "$t: exits 0 on Ctrl-C"
	check "$t: saw the 10 reads issued" grep -qx "Events: submit_bio 10, bio_endio 10" "$T_TMP/out"
	# which bios (1st, 2nd ...) had their stack taken, from the event lines:
	# the reads end in the order issued, one after the other
	got=$(awk '/^bio 0x[0-9a-f]+: .* time duration: [0-9]+ ns/ { n++ }
		/ ns, stack sampled$/ { printf " %d", n }' "$T_TMP/out")
	want=$(awk -v k=$k 'BEGIN { for (i = 1; i <= 10; i += k) printf " %d", i }')
	is "$got" "$want" "$t: the stacks of bios$want"
	is "$(grep '^Stacks: ' "$T_TMP/out")" \
		"Stacks: $(((10 + k - 1) / k)) of 10 bios sampled (1 in $k)" "$t: the summary counts them"
	check "$t: nothing lost" grep -qx "Lost: none" "$T_TMP/out"
	# the slowest bio, by the durations printed (reads end in the order issued)
	slowest=$(awk '/^bio 0x[0-9a-f]+: .* time duration: [0-9]+ ns/ { n++; v = $0
			sub(/.* time duration: /, "", v); v += 0; if (v > max) { max = v; i = n } }
		END { print i + 0 }' "$T_TMP/out")
	if [ "$SLOW_NS" -gt 0 ] && [ -z "$SLOW_ALL" ]; then
		is "$slowest" 10 "$t: the slow read is the slowest bio"
	fi
	if [ $(((slowest - 1) % k)) -eq 0 ]; then
		check "$t: the slowest bio (#$slowest) was sampled: its stack, from bio_io's pread()" \
			grep -q '^=> .*pread64' "$T_TMP/out"
	else
		is "$(grep -c '^=> ' "$T_TMP/out") $(grep '^No stack' "$T_TMP/out")" \
			"0 No stack: this bio was not sampled (1 in $k)" \
			"$t: the slowest bio (#$slowest) was not sampled: no stack, and the summary says why"
	fi
done
# -j: the same sampling, in the events and a "sampling" object
t="answer 06.3 -s 3 -j"
if run_sol 06.3 -s 3 -j; then
	io "/dev/$DEV" 0 8 16 24 32 40 48
	stop
	is "$TRC" 0 "$t: exits 0 on Ctrl-C"
	json_lines "$t" "$T_TMP/out"
	got=$(awk "$JF_AWK"' /^\{"type":"latency"/ { n++; if (jf("sampled") == 1) printf " %d", n }' "$T_TMP/out")
	is "$got" " 1 4 7" "$t: the latency events say which bios were sampled"
	is "$(awk "$JF_AWK"' /^\{"type":"sampling"/ { print jf("stacks"), jf("bios"), jf("one_in") }' "$T_TMP/out")" \
		"3 7 3" "$t: the sampling object counts them"
fi
t="answer 06.3 -s 0"
if [ -x "$SOL/06.3/bio_trace" ]; then
	"$SOL/06.3/bio_trace" -s 0 >/dev/null 2>"$T_TMP/err"
	is "$?" 2 "$t: exit 2"
	check "$t: one line says why" grep -q "invalid sample rate '0'" "$T_TMP/err"
fi
# stage10_request (exercise 10.1): --class names what the trees follow;
# a struct it cannot follow is refused in one line (listed, it is not:
# --duration bounds a tracer that takes it anyway);
# -a auto takes the tracepoint door, the one it has; -q sends no tree
# no_door_or_fail TEST: a start that failed is a SKIP where this kernel
# gives ctracer no door (5.10: no cookies, the old block_bio_queue),
# else a failure
no_door_or_fail() {
	if grep -q 'no working door on this kernel' "$T_TMP/err"; then
		skip "$1" "$(grep -m 1 'no working door on this kernel' "$T_TMP/err")"
	else
		ok 1 "$1: starts"
	fi
}
CT=$SOL/10.1/ctracer
t="answer 10.1 --class"
if [ ! -x "$CT" ]; then
	skip "$t" "$CT is not built (run make solutions)"
else
	"$CT" --class task_struct -d "$DEV" --duration 10 >/dev/null 2>"$T_TMP/err"
	is "$? $(wc -l <"$T_TMP/err")" "2 1" "$t task_struct -d: exit 2, one line"
	check "$t task_struct -d: it says why" \
		grep -q '^ctracer: --class task_struct: ctracer follows a bio or a request; ' "$T_TMP/err"
	"$CT" --class task_struct --list >"$T_TMP/out" 2>/dev/null
	is "$? $(grep -c ' functions take a struct task_struct \* ' "$T_TMP/out")" "0 1" \
		"$t task_struct --list: listed"
	t="answer 10.1 --class request -a auto"
	if start "$CT" --class request -a auto -d "$DEV"; then
		io -A -s 4096 "/dev/$DEV" 0 8 16 24
		stop
		is "$TRC" 0 "$t: exits 0 on Ctrl-C"
		check "$t: the tracepoint door" grep -q '^ctracer: tracepoint door, ' "$T_TMP/err"
		check "$t: a tree per request" grep -q '^[a-z]* 0x[0-9a-f]*: ' "$T_TMP/out"
	else
		no_door_or_fail "$t"
	fi
	t="answer 10.1 --class request -q"
	if start "$CT" --class request -q -d "$DEV"; then
		io -A -s 4096 "/dev/$DEV" 0 8 16 24
		stop
		is "$TRC $(grep -c '^[a-z]* 0x[0-9a-f]*: ' "$T_TMP/out")" "0 0" "$t: exit 0, no tree"
		check "$t: the requests' events counted" grep -q '^Events: hits [1-9]' "$T_TMP/out"
	else
		no_door_or_fail "$t"
	fi
fi
done_testing
