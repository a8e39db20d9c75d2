#!/bin/sh
# Stage 11: sampled write() calls followed from the page cache to the
# disk, against ground truth this test makes: a writer it starts, named
# sw11 (a copy of tests/bin/shape_io), writes pages at known offsets of a new file on
# a real filesystem and fsyncs. Each sample is the write() whose number
# it bears (every one with -s 1; 1, 4, 7, 10 with -s 3), its page the
# one that write() wrote, its bio's sector that page's by FIEMAP (plus
# the partition's start), its request's span covering it, its hops in
# time order. A second writer, sw11x, runs beside it and must not show
# (-c matches the whole name). Then a write never fsynced (said apart
# at exit) and SIGTERM. In each door of TEST_DOORS this kernel has (the
# stage has no kprobe door: it says why).
. "$(dirname "$0")/lib.sh"
S=$ROOT/stage11_full_stack/full_stack
need_bin "$S"
need_bin "$BIN/file_sector"
need_bin "$BIN/shape_io"

# Usage errors: one line naming the problem, exit 2, before any BPF.
bad "--sample 0" "--sample needs a positive number, not '0'" --sample 0
bad "-s x" "--sample needs a positive number, not 'x'" -s x
bad "-c of 16 characters" "COMM must be 1 to 15 characters" -c abcdefghijklmnop
bad "-j (the lesson prints text only)" "invalid option" -j

need_root
scratch_fs || skip_all "no real filesystem (set TEST_FS_DIR, or install e2fsprogs)"
# fe_physical is from the filesystem's own device: add its partition's start
PART_START=$FS_PART_START
PAGE=$(($(page_kb) * 1024))
[ "$PAGE" -gt 0 ] || skip_all "cannot tell the page size (pc_reader -m)"
# The writers: shape_io under names of their own (the task's comm), so
# -c can name one. Each pwrite() is a page, then one fsync(); they print
# nothing, so their only write calls are the test's.
W=$T_TMP/sw11
cp "$BIN/shape_io" "$W" && cp "$W" "${W}x" || skip_all "cannot copy shape_io"
mkfifo "$T_TMP/gate" "$T_TMP/gate2" || skip_all "cannot make FIFOs"
SEEK=5	# the first page written: pages SEEK .. SEEK + NW - 1
NW=10

# write_round TAG N FILE [BYTES]: sw11 writes NW pages (or blocks of
# BYTES: at 1 x BYTES on) at SEEK of FILE, one a pwrite(), and fsyncs; sw11x another file, beside it; both released once
# the tracer runs with -s N -c sw11. Waits for WANT rq_done lines.
write_round() {
	_tag=$1
	F=$3
	OTHER=$F.other
	if [ -n "${4:-}" ]; then
		gated "$T_TMP/gate" "$W" pages "$F" 1 $NW "$4" &
	else
		gated "$T_TMP/gate" "$W" pages "$F" $SEEK $NW $PAGE &
	fi
	WPID=$!
	gated "$T_TMP/gate2" "${W}x" pages "$OTHER" 1 $NW $PAGE &
	OPID=$!
	if ! start "$S" -a "$DOOR" -s "$2" -c sw11; then
		ok 1 "$_tag: starts"
		echo >"$T_TMP/gate"
		echo >"$T_TMP/gate2"
		wait $WPID $OPID
		return 1
	fi
	echo go >"$T_TMP/gate"
	echo go >"$T_TMP/gate2"
	wait $WPID
	_wrc=$?
	wait $OPID
	kill -0 $TPID 2>/dev/null || diag "$_tag: the tracer ended before the writer did"
	# fsync() returns once the request is done: its line may still be
	# on its way through the ring buffer
	wait_for 60 sh -c "test \$(grep -c '^#[0-9].* rq_done ' '$T_TMP/out') -ge $WANT" ||
		diag "$_tag: $(grep -c '^#[0-9].* rq_done ' "$T_TMP/out") rq_done lines of $WANT"
	stop
	is "$_wrc $TRC" "0 0" "$_tag: writer and tracer exit 0"
	INO=$(ls -i "$F" | awk '{ print $1 }')
	OINO=$(ls -i "$OTHER" | awk '{ print $1 }')
	cp "$T_TMP/out" "$T_TMP/out.$2"
}

# val FILE SAMPLE HOP KEY: the KEY=value of SAMPLE's HOP line(s)
val() {
	awk -v s="#$2" -v h="$3" -v k="$4=" '$1 == s && $4 == h {
		for (i = 5; i <= NF; i++) if (index($i, k) == 1) print substr($i, length(k) + 1) }' "$1"
}

# ends: ENDS, the summary's At exit and Lost lines, joined by |. A program run
# the kernel skipped as recursion (block_rq_complete in an interrupt on
# top of itself, seen on 7.2) is said apart (diag), not failed here: a
# sampled hop it cost fails the At exit line (a mark left) or the
# samples' own checks.
ends() {
	grep '^Lost: [0-9]* events missed by recursion$' "$T_TMP/out" | sed 's/^/# /'
	ENDS=$({
		grep '^At exit: ' "$T_TMP/out"
		grep '^Lost: ' "$T_TMP/out" | grep -v ' events missed by recursion$' ||
			echo "Lost: none"
	} | paste -sd'|' -)
}

# followed_checks TAG IDS: the samples are IDS, each one page, SEEK +
# ID - 1, at its FIEMAP sector, in a request that covers it, every hop
# once and in order; the summary's books balance.
followed_checks() {
	_tag=$1
	_ids=$2
	_got=$(awk '$4 == "entered" { sub(/^#/, "", $1); print $1 }' "$T_TMP/out" | sort -n |
		tr '\n' ' ')
	is "$_got" "$_ids" "$_tag: the samples are writes $_ids"
	[ "$_got" = "$_ids" ] || sed 's/^/#   out: /' "$T_TMP/out" "$T_TMP/err" | head -n 40
	_bad=
	for id in $_ids; do
		idx=$((SEEK + id - 1))
		want=$(($("$BIN/file_sector" "$F" $((idx * PAGE))) + PART_START))
		got="$(val "$T_TMP/out" "$id" folio_dirty ino) $(val "$T_TMP/out" "$id" folio_dirty page)"
		[ "$got" = "$INO $idx" ] ||
			_bad="$_bad write $id: folio (ino page) '$got', want '$INO $idx';"
		got="$(val "$T_TMP/out" "$id" bio_queued page) $(val "$T_TMP/out" "$id" bio_queued sector)"
		[ "$got" = "$idx $want" ] ||
			_bad="$_bad write $id: bio (page sector) '$got', FIEMAP '$idx $want';"
		rs=$(val "$T_TMP/out" "$id" rq_issued sector)
		rb=$(val "$T_TMP/out" "$id" rq_issued bytes)
		if [ -z "$rs" ] || [ -z "$rb" ] || [ "$want" -lt "$rs" ] ||
		   [ $((want + PAGE / 512)) -gt $((rs + rb / 512)) ]; then
			_bad="$_bad write $id: request '$rs+$rb' does not cover sector $want;"
		fi
		[ "$(val "$T_TMP/out" "$id" rq_done status)" = 0 ] ||
			_bad="$_bad write $id: rq_done status '$(val "$T_TMP/out" "$id" rq_done status)';"
	done
	is "$_bad" "" "$_tag: each sample's page, its bio sector (FIEMAP + $PART_START) and request"
	_order=$(awk '/^#[0-9]/ && $4 ~ /^(entered|folio_dirty|returned|bio_queued|rq_issued|rq_done)$/ {
			o[$1] = o[$1] " " $4
			if ($2 + 0 < t[$1] + 0) late[$1] = late[$1] " " $4
			t[$1] = $2 }
		END { for (s in o) print s ":" o[s] (late[s] ? "; early:" late[s] : "") }' "$T_TMP/out" |
		sed 's/^#[0-9]*://' | sort -u)
	is "$_order" " entered folio_dirty returned bio_queued rq_issued rq_done" \
		"$_tag: each sample's hops, once each, in the order of the layers and of time"
	check "$_tag: nothing of sw11x (ino $OINO) shows" \
		sh -c "! grep -q ' ino=$OINO ' '$T_TMP/out'"
	ends
	is "$ENDS" "At exit: 0 folios not written back yet, 0 bios not completed yet|Lost: none" \
		"$_tag: nothing left, nothing lost"
}

# part_round: the -s 1 round on an ext4 in a partition that starts at
# sector 2048 of a loop device (an MBR written here): FIEMAP's sectors
# are the partition's, the stage's the disk's, so each page's bio sector
# must be FIEMAP + 2048 (in the fentry door too, whose hook runs after
# the partition's start is added). 1 when it cannot be made (SKIP said).
part_round() {
	_img=$T_TMP/part11.img
	PL=
	if ! dd if=/dev/zero of="$_img" bs=1M count=40 2>/dev/null ||
	   ! printf '\000\000\000\000\203\000\000\000\000\010\000\000\000\050\001\000' |
		dd of="$_img" bs=1 seek=446 conv=notrunc 2>/dev/null ||
	   ! printf '\125\252' | dd of="$_img" bs=1 seek=510 conv=notrunc 2>/dev/null ||
	   ! PL=$(loop_attach "$_img" -P) || ! PL=${PL#/dev/} ||
	   ! { wait_for 2 test -b "/dev/${PL}p1" ||
		{ partx -a "/dev/$PL" 2>/dev/null && wait_for 30 test -b "/dev/${PL}p1"; }; } ||
	   ! mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "/dev/${PL}p1" \
		>/dev/null 2>&1 ||
	   ! mkdir -p "$T_TMP/pmnt" || ! mount "/dev/${PL}p1" "$T_TMP/pmnt"; then
		# (partx: a kernel without the partition table's parser adds it so)
		skip "a partition [$DOOR]" "cannot make an ext4 in a loop device's partition"
		[ -n "$PL" ] && losetup -d "/dev/$PL"
		return 1
	fi
	trap 'umount "$T_TMP/pmnt" 2>/dev/null; losetup -d "/dev/$PL"; cleanup; exit 1' INT TERM
	PART_START=$(cat "/sys/class/block/${PL}p1/start")
	NW=4
	WANT=4
	write_round "a partition [$DOOR]" 1 "$T_TMP/pmnt/bwb-fs11p" &&
		followed_checks "a partition [$DOOR] (starts at $PART_START)" "1 2 3 4 "
	umount "$T_TMP/pmnt"
	losetup -d "/dev/$PL"
	trap 'cleanup; exit 1' INT TERM
	PART_START=$FS_PART_START
}

# the rounds, in each door: the same ground truth whichever door it takes
for DOOR in $TEST_DOORS; do
	if [ "$DOOR" = kprobe ]; then
		# left out, and why said: a kprobe program would miss I/O ends
		"$S" -a kprobe --duration 0.1 >/dev/null 2>"$T_TMP/err"
		is "$? $(wc -l <"$T_TMP/err")" "1 1" "-a kprobe: refused in one line, exit 1"
		check "-a kprobe: says why (kprobe programs do not nest)" \
			grep -q "no kprobe door in this stage (kprobe programs do not nest" "$T_TMP/err"
		skip "stage11 [kprobe]" "$(cat "$T_TMP/err")"
		continue
	fi
	if ! why=$(door_ok "$S" "$DOOR"); then
		skip "stage11 [$DOOR]" "$why"
		continue
	fi
	NW=10
	WANT=10
	write_round "-s 1 [$DOOR]" 1 "$FS_DIR/bwb-fs11a.$$.$DOOR" && {
		is "$(grep '^Sampled: ' "$T_TMP/out")" "Sampled: $NW of $NW write() calls (1 in 1)" \
			"-s 1 [$DOOR]: Sampled: all $NW of sw11's $NW calls, none of sw11x's"
		followed_checks "-s 1 [$DOOR]" "1 2 3 4 5 6 7 8 9 10 "
		check "-s 1 [$DOOR]: Hops: 10 lines of each" grep -qx \
			'Hops: entered 10, folio_dirty 10, returned 10, bio_queued 10, bio_split 0, rq_issued 10, rq_done 10' \
			"$T_TMP/out"
	}

	# 1 in 3 of ten: writes 1, 4, 7 and 10; their pages SEEK + 0, 3, 6, 9
	WANT=4
	write_round "-s 3 [$DOOR]" 3 "$FS_DIR/bwb-fs11b.$$.$DOOR" && {
		is "$(grep '^Sampled: ' "$T_TMP/out")" "Sampled: 4 of $NW write() calls (1 in 3)" \
			"-s 3 [$DOOR]: Sampled: 4 of $NW"
		followed_checks "-s 3 [$DOOR]" "1 4 7 10 "
	}

	# Big writes: 1 MiB each, a large folio or many small ones, in a bio the
	# disk may split (a loop device takes 1280 KiB at most): each sample's
	# first page's bio sector is its FIEMAP sector, and its request, after
	# any split, covers that sector.
	NW=4
	WANT=4
	write_round "1 MiB writes [$DOOR]" 1 "$FS_DIR/bwb-fs11d.$$.$DOOR" 1048576 && {
		_bad=
		for id in 1 2 3 4; do
			set -- $(awk -v s="#$id" '$1 == s && $4 == "bio_queued" {
				for (i = 5; i <= NF; i++) if ($i ~ /^(page|sector)=/) { sub(/^[a-z]*=/, "", $i); printf "%s ", $i }
				exit }' "$T_TMP/out")
			want=$(($("$BIN/file_sector" "$F" $(($1 * PAGE))) + PART_START))
			[ "$1" = $((id * 1048576 / PAGE)) ] && [ "$2" = "$want" ] ||
				_bad="$_bad write $id: first bio page '$1' sector '$2', FIEMAP page $((id * 1048576 / PAGE)) sector $want;"
			# its requests: issued in any order (a plug may send the later
			# one first), one of them holds that page
			rqs=$(awk -v s="#$id" -v want="$2" '$1 == s && $4 == "rq_issued" {
				for (i = 5; i <= NF; i++) {
					if ($i ~ /^sector=/) rs = substr($i, 8)
					if ($i ~ /^bytes=/) rb = substr($i, 7)
				}
				printf "%s+%s ", rs, rb
				if (want + 0 >= rs + 0 && want + 0 < rs + rb / 512) held = 1 }
				END { exit !held }' "$T_TMP/out") ||
				_bad="$_bad write $id: no request of '$rqs' holds sector $2;"
		done
		is "$_bad" "" "1 MiB writes [$DOOR]: each sample's first page at its FIEMAP sector, in its request ($(grep -c '^#[0-9].* bio_split ' "$T_TMP/out") split lines)"
		ends
		is "$(grep '^Sampled: ' "$T_TMP/out")|$ENDS" \
			"Sampled: 4 of 4 write() calls (1 in 1)|At exit: 0 folios not written back yet, 0 bios not completed yet|Lost: none" \
			"1 MiB writes [$DOOR]: Sampled: 4 of 4, nothing left, nothing lost"
	}

	# dirty_round TAG FILE [rm]: sw11 dirties one page of FILE, no fsync(),
	# under -s 1; with rm, FILE is removed before the run ends. 0 if the
	# page was not written back during the run (else a SKIP said, 1).
	dirty_round() {
		gated "$T_TMP/gate" "$W" dirty "$2" 1 1 $PAGE &
		WPID=$!
		if ! start "$S" -a "$DOOR" -s 1 -c sw11; then
			ok 1 "$1: starts"
			echo >"$T_TMP/gate"
			wait $WPID
			return 1
		fi
		echo go >"$T_TMP/gate"
		wait $WPID
		wait_for 60 grep -q '^#1 .* returned ' "$T_TMP/out"
		[ -n "${3:-}" ] && rm -f "$2"
		stop
		grep -q '^#[0-9].* bio_queued ' "$T_TMP/out" || return 0
		skip "$1" "written back during the run (a sync elsewhere?)"
		return 1
	}

	# A write with no fsync(): its page stays dirty for a while (30 s by
	# default, vm.dirty_expire_centisecs) and the run ends first: said apart.
	dirty_round "no fsync() [$DOOR]" "$FS_DIR/bwb-fs11c.$$.$DOOR" && {
		check "no fsync() [$DOOR]: write #1 dirtied its folio and returned" sh -c \
			"grep -q '^#1 .* folio_dirty ' '$T_TMP/out' && grep -q '^#1 .* returned  *ret=$PAGE ' '$T_TMP/out'"
		ends
		is "$ENDS" "At exit: 1 folios not written back yet, 0 bios not completed yet|Lost: none" \
			"no fsync() [$DOOR]: At exit says the folio is not written back yet, apart from Lost"
	}

	# The same, and the file removed before the run ends: its folio leaves
	# the page cache unwritten, and its mark with it (nothing at exit).
	dirty_round "removed unwritten [$DOOR]" "$FS_DIR/bwb-fs11e.$$.$DOOR" rm && {
		ends
		is "$(grep -c '^#1 .* folio_dirty ' "$T_TMP/out")|$ENDS" \
			"1|At exit: 0 folios not written back yet, 0 bios not completed yet|Lost: none" \
			"removed unwritten [$DOOR]: its mark goes with the folio, nothing at exit"
	}

	part_round
done

# SIGTERM ends a run like Ctrl-C: the summary printed, exit 0, and no
# program of the stage left loaded (its folio_dirty programs,
# writeback_dirty_folio or __folio_mark_dirty, are the workbook's only
# ones; a name shows cut to 15 characters).
# (Where no door works, as on 5.10, the stage refuses in one line.)
if ! why=$(door_ok "$S" auto); then
	skip "SIGTERM [auto]" "$why"
else
	: >"$T_TMP/term.err"
	"$S" -s 1 -c sw11 >"$T_TMP/term.out" 2>"$T_TMP/term.err" &
	TPID=$!
	if wait_for 120 grep -q "Hit Ctrl-C" "$T_TMP/term.err"; then
		kill -TERM $TPID
		wait $TPID
		is "$?" 0 "SIGTERM [auto]: exits 0"
		check "SIGTERM [auto]: the summary is printed" grep -q "^Lost: " "$T_TMP/term.out"
		if command -v bpftool >/dev/null 2>&1; then
			# the kernel frees a program after a grace period: wait for it
			check "SIGTERM [auto]: no program left loaded" \
				wait_for 30 sh -c '! bpftool prog show 2>/dev/null | grep -qE "writeback_dirty|folio_mark_dirt"'
		else
			skip "SIGTERM [auto]: no program left loaded" "no bpftool"
		fi
	else
		ok 1 "SIGTERM [auto]: starts"
		kill $TPID 2>/dev/null
		wait $TPID
	fi
fi
rm -f "$FS_DIR"/bwb-fs11?.$$.*
done_testing
