#!/bin/sh
# Every bio and every request is counted once, whatever path it takes
# through the block layer: flush sequences (FUA writes, fsync, journal
# commits), a bio split at max_sectors_kb, a discard, a loop device
# stacked on a file of another disk. Stages 03 (bios) and 07 (requests)
# trace each workload at once, in every door; stages 00, 02 and 05 trace
# the flush sequences too.
. "$(dirname "$0")/lib.sh"
S00=$ROOT/stage00_tracex3/tracex3
S02=$ROOT/stage02_bio_endio/bio_trace
S03=$ROOT/stage03_latency_map/bio_trace
S05=$ROOT/stage05_sector/bio_trace
S07=$ROOT/stage07_request_latency/bio_trace
IO=$BIN/shape_io
for b in "$S00" "$S02" "$S03" "$S05" "$S07" "$IO" "$BIN/bio_io"; do
	need_bin "$b"
done
need_root
# A loop device of our own even in the VM: its volatile write cache
# without FUA is what sends writes through the flush state machine.
# Made first and detached here; scratch_fs's own is lib.sh's to clean.
_td=$TEST_DEV
TEST_DEV=
scratch_dev 64 || skip_all "cannot make a loop device"
TEST_DEV=$_td
LOOP=$T_LOOP
# scratch_fs's file would have the same name: ours moves aside (the loop
# device keeps the file it has open)
LOOP_FILE=$T_BACKING.raw
mv "$T_BACKING" "$LOOP_FILE" || skip_all "cannot rename $T_BACKING"
T_LOOP=
T_BACKING=
shapes_cleanup() {
	losetup -d "/dev/$LOOP" 2>/dev/null
	rm -f "$LOOP_FILE"
}
trap 'shapes_cleanup; cleanup; exit 1' INT TERM
scratch_fs || { shapes_cleanup; skip_all "no real filesystem (set TEST_FS_DIR, or install e2fsprogs)"; }
DEV=$LOOP

# tracers STAGE...: start each stage on -d $TDEV in the door $door, -q;
# their output in $T_TMP/<n>.out. Returns 1 if one did not start.
tracers() {
	_n=0
	TPIDS=
	for _s in "$@"; do
		_n=$((_n + 1))
		: >"$T_TMP/$_n.out"
		: >"$T_TMP/$_n.err"
		"$_s" -a "$door" -d "$TDEV" -q >"$T_TMP/$_n.out" 2>"$T_TMP/$_n.err" &
		TPIDS="$TPIDS $!"
		_i=0
		# a bound for a hang, not a pace: an emulated CPU under load
		# attaches slowly (arm64 6.12 in CI once gave up, saying nothing)
		until grep -q "Hit Ctrl-C" "$T_TMP/$_n.err"; do
			kill -0 $! 2>/dev/null && [ $_i -lt 3000 ] || {
				kill -0 $! 2>/dev/null && _why="still starting after $_i tries" ||
					_why="exited"
				diag "$_s did not start ($_why): $(cat "$T_TMP/$_n.err")"
				return 1
			}
			sleep 0.05
			_i=$((_i + 1))
		done
	done
}

# untrace: Ctrl-C every tracer; RCS holds their exit statuses.
untrace() {
	RCS=
	for _p in $TPIDS; do
		kill -INT "$_p" 2>/dev/null
		wait "$_p"
		RCS="$RCS $?"
	done
	RCS=${RCS# }
}

# ev N: the two counts of tracer N's Events: line, "START END"
ev() {
	sed -n 's/^Events: [a-z_]* \([0-9]*\), [a-z_]* \([0-9]*\)$/\1 \2/p' "$T_TMP/$1.out"
}

# books NAME N: tracer N's books balance: every start has its end, in
# the kprobe door as kprobe_books allows. Sets ST and EN.
books() {
	set -- "$1" "$2" $(ev "$2")
	ST=$3
	EN=$4
	if [ "$door" = kprobe ]; then
		cp "$T_TMP/$2.out" "$T_TMP/out"	# where lost_count reads
		kprobe_books "$1" "$ST" "$EN"
	else
		is "${EN:-none}" "${ST:-none}" "$1: every start has its end (${ST:-none})"
		# A run the kernel skipped because the same program was already
		# running on that CPU (an interrupt's completion inside ours: a
		# stacked device under QEMU makes that window wide) is counted
		# as "missed by recursion". With the books above balanced it was
		# another disk's event; it is shown, not failed. Anything else
		# lost fails.
		check "$1: Lost: none (but the kernel's recursion misses)" \
			sh -c "grep -q '^Lost: ' '$T_TMP/$2.out' &&
				! grep '^Lost: [1-9]' '$T_TMP/$2.out' | grep -qv 'events missed by recursion\$'"
		# on stderr too: prove shows it when not verbose
		grep "^Lost: [1-9]" "$T_TMP/$2.out" | sed "s|^|# $1: |" | tee /dev/stderr
	fi
}

# shape NAME STAGES -- COMMAND...: trace COMMAND with every stage, check
# that each exits 0 and its books balance.
shape() {
	_name=$1
	shift
	_st=
	while [ "$1" != -- ]; do
		_st="$_st $1"
		shift
	done
	shift
	if ! tracers $_st; then
		ok 1 "$t $_name: tracers start"
		untrace
		return 1
	fi
	"$@" >"$T_TMP/io.out" 2>"$T_TMP/io.err"
	ok $? "$t $_name: the workload ran ($(tail -n 1 "$T_TMP/io.out")$(cat "$T_TMP/io.err"))"
	untrace
	_want=
	for _s in $_st; do
		_want="$_want 0"
	done
	is "$RCS" "${_want# }" "$t $_name: every tracer exits 0 on Ctrl-C"
	_n=0
	for _s in $_st; do
		_n=$((_n + 1))
		books "$t $_name, $(basename "$(dirname "$_s")")" $_n
	done
}

N=16
for door in $TEST_DOORS; do
	t="[$door]"
	if ! why=$(door_ok "$S03" "$door"); then
		skip "shapes $t" "$why"
		continue
	fi
	TDEV=$DEV

	# FUA writes: the disk has a write cache but no FUA, so each write is
	# a data step and a flush after it (blkdev also flushes for O_DSYNC).
	shape "O_DSYNC writes" "$S03" "$S07" "$S00" "$S02" "$S05" -- \
		"$IO" dsync "/dev/$DEV" $N
	set -- $(ev 1)
	check "$t O_DSYNC writes: at least the $N written bios (${1:-none})" \
		test "${1:-0}" -ge $N
	set -- $(ev 2)
	check "$t O_DSYNC writes: at least the $N written requests (${1:-none})" \
		test "${1:-0}" -ge $N

	# An empty flush: a bio without data, ended when the flush is done.
	shape "fsync of the device" "$S03" "$S07" -- "$IO" flush "/dev/$DEV"
	set -- $(ev 1)
	is "${1:-none}" 1 "$t fsync of the device: one flush bio"

	# A bio larger than the disk takes: bio_split() cuts 15 parts off a
	# 1 MiB write at 64 KiB; they end with the bio, which counts once.
	_was=$(cat "/sys/block/$DEV/queue/max_sectors_kb")
	echo 64 >"/sys/block/$DEV/queue/max_sectors_kb"
	shape "1 MiB write split at 64 KiB" "$S03" "$S07" -- \
		"$BIN/bio_io" -w -s 1048576 "/dev/$DEV" 0
	echo "$_was" >"/sys/block/$DEV/queue/max_sectors_kb"
	set -- $(ev 1)
	is "${1:-none} ${2:-none}" "1 1" "$t split write: one bio submitted, one ended"
	is "$(sed -n 's/^Split: \([0-9]*\) .*/\1/p' "$T_TMP/1.out")" 15 \
		"$t split write: its 15 parts named in the summary"
	set -- $(ev 2)
	is "${1:-none}" 16 "$t split write: 16 requests of 64 KiB"

	# A discard: the kernel chains the bios it submits one by one.
	shape "8 MiB discard" "$S03" "$S07" -- "$IO" discard "/dev/$DEV" 8388608
	set -- $(ev 1)
	check "$t discard: bios seen (${1:-none})" test "${1:-0}" -ge 1

	# A journaling filesystem: appends with fsync commit the journal with
	# PREFLUSH and FUA writes.
	# Nothing dirty before the tracers attach, nor after the workload:
	# the kernel writes dirty metadata back whenever it likes (writeback,
	# reclaim), and a write that spans a tracer's attach or detach is a
	# start or an end it cannot see. So the workload ends with a sync.
	TDEV=$FS_DISK
	sync
	shape "appends with fsync on $FS_DISK" "$S03" "$S07" "$S00" -- \
		sh -c '"$1" fsync "$2" "$3" && sync' sh "$IO" "$FS_DIR/bwb-shapes.$$" $N
	set -- $(ev 1)
	check "$t appends with fsync: at least the $N data bios (${1:-none})" \
		test "${1:-0}" -ge $N
	rm -f "$FS_DIR/bwb-shapes.$$"

	# Stacked: a loop device over a file on that filesystem. Reads of the
	# upper device are exactly ours; the lower disk sees what the loop
	# driver reads of the file, and balances too.
	f=$FS_DIR/bwb-stacked.$$
	dd if=/dev/zero of="$f" bs=1M count=4 2>/dev/null
	up=$(loop_attach "$f") || { ok 1 "$t stacked: loop over a file"; continue; }
	up=${up#/dev/}
	sync
	echo 3 >/proc/sys/vm/drop_caches
	TDEV=$up
	shape "8 reads of $up stacked on $FS_DISK" "$S03" "$S07" -- \
		"$BIN/bio_io" "/dev/$up" 0 8 16 24 1024 2048 4096 8000
	set -- $(ev 1)
	is "${1:-none} ${2:-none}" "8 8" "$t stacked: the 8 reads of the upper device, as bios"
	set -- $(ev 2)
	is "${1:-none} ${2:-none}" "8 8" "$t stacked: and as requests"
	echo 3 >/proc/sys/vm/drop_caches
	TDEV=$FS_DISK
	shape "the same reads seen on $FS_DISK" "$S03" -- \
		sh -c '"$1" "$2" 0 8 16 24 1024 2048 4096 8000 && sync' sh \
		"$BIN/bio_io" "/dev/$up"
	set -- $(ev 1)
	check "$t stacked: the lower disk read the file (${1:-none} bios)" \
		test "${1:-0}" -ge 1
	losetup -d "/dev/$up"
	rm -f "$f"
done
shapes_cleanup
done_testing
