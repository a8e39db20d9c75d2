# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Stage 07, exercise 5: failed requests, by error, disk and operation.
# The checker makes a disk whose writes fail: a loop device (CHECK_DEV2)
# over a sparse file on a small tmpfs of its own, filled up. Writing a
# page the file does not hold yet makes tmpfs find one, which it cannot:
# the loop driver ends that request with BLK_STS_NOSPC (its -ENOSPC,
# errno_to_blk_status()); a page written before the tmpfs filled takes
# a write again, and a hole reads as zeros. No -d, and one after the
# other, each O_DIRECT I/O of 4 KiB its own request:
#  - the check's disk ($DEV): 2 reads and a write, which succeed;
#  - CHECK_DEV2: 2 reads of holes and a write of the page written
#    before, then a write at each sector of NOSPC_AT, holes far apart
#    (no two can merge), each of which must fail.
# The ground truth is what the checker's own I/O got back: the errno of
# each failure is blk_status_to_errno() of its request's status, ENOSPC
# for NOSPC, EIO for IOERR. Linux 5.10's loop driver ends every failed
# request with BLK_STS_IOERR, and there the holes' reads fail too: the
# answer must count what failed, as it failed, and nothing else on
# either disk, and print each failure with its sector.
NOSPC_AT="2048 4096 6144"
KEPT_AT=128	# the page of the file written before the tmpfs filled
NOSPC_MIB=16	# the loop device's size; its tmpfs holds 1 MiB

ex_run() {
	nospc_make || return 1
	: >"$T_TMP/failed"
	start_prog || return 1
	io_or_fail "/dev/$DEV" 0 8 || return 1
	io_or_fail -w "/dev/$DEV" 1000 || return 1
	if ! dev2_io READ 0 || ! dev2_io READ 8 || ! dev2_io WRITE "$KEPT_AT"; then
		stop_prog_quiet
		return 1
	fi
	for _s in $NOSPC_AT; do
		dev2_io WRITE "$_s" || { stop_prog_quiet; return 1; }
		grep -q " WRITE $_s\$" "$T_TMP/failed" && continue
		stop_prog_quiet
		say run "FAIL: the checker cannot make a write fail: $CHECK_DEV2's write at sector $_s succeeded (its tmpfs is not full)"
		return 1
	done
	stop_prog || return 1
	# what failed, as 'ERROR OP COUNT' rows, and as 'ERROR OP SECTOR'
	_want=$(awk '{ print $1, $2 }' "$T_TMP/failed" | sort | uniq -c |
		awk '{ print $2, $3, $1 }' | paste -sd' ' -)
	_what=$(awk '{ print $1, $2, "at", $3 }' "$T_TMP/failed" | paste -sd, - | sed 's/,/, /g')
	want_eq "$(err_rows "$CHECK_DEV2")" "$_want" \
		"rows under 'I/O errors:' for $CHECK_DEV2, as 'error disk op count' (what failed: $_what)" \
		"is each request whose end has a status (blk_update_request()'s, block_rq_complete's error) counted by disk, op and status, and printed by name (BLK_STS_NOSPC is 3) at the end?" &&
	want_eq "$(err_rows "$DEV")" "" \
		"rows under 'I/O errors:' for $DEV (2 reads and a write that succeeded)" \
		"is a request counted only when its status is not 0 (BLK_STS_OK)?" &&
	want_eq "$(sed -n "s/.*, failed: \([A-Z_0-9]*\) on $CHECK_DEV2, \([A-Z_0-9]*\) at sector \([0-9]*\)\$/\1 \2 \3/p" \
		"$T_TMP/out" | sort -k3n | paste -sd, - | sed 's/,/, /g')" \
		"$(sort -k3n "$T_TMP/failed" | paste -sd, - | sed 's/,/, /g')" \
		"lines ending ', failed: ERROR on $CHECK_DEV2, OP at sector N', as 'ERROR OP N' (what failed)" \
		"is the sector rq->__sector, read at the end's top, before blk_update_request() moves it on?" ||
		return 1
	say run "ok: $_want on $CHECK_DEV2 ($_what); nothing counted for the I/O that succeeded"
}

# dev2_io READ|WRITE SECTOR: an I/O of CHECK_DEV2; a failure is noted in
# $T_TMP/failed as 'ERROR OP SECTOR', its errno named as the status it
# came from (ENOSPC: NOSPC, EIO: IOERR). Any other error is the
# checker's failure.
dev2_io() {
	_w=
	[ "$1" = WRITE ] && _w=-w
	# shellcheck disable=SC2086
	"$BIN/bio_io" $_w "/dev/$CHECK_DEV2" "$2" >/dev/null 2>"$T_TMP/io.err" && return 0
	case $(cat "$T_TMP/io.err") in
	*": No space left on device") echo "NOSPC $1 $2" >>"$T_TMP/failed" ;;
	*": Input/output error") echo "IOERR $1 $2" >>"$T_TMP/failed" ;;
	*)
		say run "FAIL: the checker's own I/O failed: $(cat "$T_TMP/io.err")"
		return 1
		;;
	esac
}

# nospc_make: CHECK_DEV2, a loop device over a sparse file on a full
# tmpfs. Once the loop device holds the file, the tmpfs is detached
# (umount -l): it goes with the loop device, however the check ends.
# Until then a signal detaches it before the check undoes the rest (the
# loop device may hold it already: a plain umount would fail).
nospc_make() {
	_m=$T_TMP/nospc
	if ! mkdir -p "$_m" || ! mount -t tmpfs -o size=1m bwb-check-nospc "$_m" 2>"$T_TMP/nospc.err"; then
		say run "FAIL: the checker cannot mount a tmpfs of 1 MiB: $(cat "$T_TMP/nospc.err")"
		return 1
	fi
	trap 'umount -l "$_m" 2>/dev/null; check_abort' INT TERM HUP PIPE
	# the one page written now, then a filler up to the last page
	_why=
	if ! truncate -s "${NOSPC_MIB}M" "$_m/img" 2>"$T_TMP/nospc.err" ||
		! dd if=/dev/zero of="$_m/img" bs=4096 count=1 seek=$((KEPT_AT / 8)) \
			conv=notrunc 2>"$T_TMP/nospc.err"; then
		_why="write a sparse file on its tmpfs: $(cat "$T_TMP/nospc.err")"
	else
		dd if=/dev/zero of="$_m/fill" bs=4096 2>/dev/null
		_l=$(loop_attach "$_m/img") && CHECK_DEV2=${_l#/dev/} ||
			_why="make a loop device over $_m/img"
	fi
	umount -l "$_m"
	trap 'check_abort' INT TERM HUP PIPE	# scripts/check's own
	if [ -n "$_why" ]; then
		CHECK_DEV2=
		say run "FAIL: the checker cannot $_why"
		return 1
	fi
	command -v udevadm >/dev/null 2>&1 && udevadm settle -t 60 2>/dev/null
	return 0
}

# err_rows DISK: the rows under 'I/O errors:' that name DISK, as 'ERROR
# OP COUNT', sorted, on one line
err_rows() {
	awk -v d="$1" '/^I\/O errors:$/ { on = 1; next }
		on && /^$/ { on = 0 }
		on && $2 == d && NF == 4 { print $1, $3, $4 }' "$T_TMP/out" | sort | paste -sd' ' -
}
