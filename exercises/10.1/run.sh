# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Stage 10, exercise 1: a second loop device that takes at most 64 KiB a
# request (max_sectors_kb), and two kinds of I/O on it, so that a tree
# per bio does not look like a tree per request:
#  - one O_DIRECT read of 256 KiB at sector 0: block_split cuts it, and
#    the disk serves four requests of one bio each, at sectors 0, 128,
#    256 and 384;
#  - then 8 O_DIRECT reads of 16 KiB at adjacent sectors from 512, in one
#    io_submit() (bio_io -A): the kernel plugs the queue for the batch
#    and merges the bios into the request before it, up to 64 KiB, so
#    the disk serves two requests of 4 bios each, at 512 and 640. A tree
#    per bio shows 8 of 16 KiB there; a tree per request, 2 of 64 KiB.
# The kernel's own counts (/sys/block/DEV/stat) say it did merge so;
# else the check cannot tell, and says that it cannot.
# With --class request each tree is one request, and the trees that
# ended are as many as the requests the disk says it completed. Then
# --list --class request: the functions of the kernel's BTF that take a
# struct request *.
RQ_MAX=65536		# max_sectors_kb, in bytes: a request's most
SPLIT_SIZE=262144	# the read block_split cuts, at sector 0
BATCH_SECTOR=512	# the batch's first sector
BATCH_BIO=16384		# each read of the batch, one bio
BATCH_N=8		# reads in the batch

ex_run() {
	dev2_make || return 1
	if ! echo $((RQ_MAX / 1024)) 2>/dev/null >"/sys/block/$CHECK_DEV2/queue/max_sectors_kb"; then
		say run "FAIL: the checker cannot set $CHECK_DEV2's max_sectors_kb to $((RQ_MAX / 1024))"
		return 1
	fi
	# what the kernel should make of it: the split's requests, then the
	# batch's, each RQ_MAX and as many bios as fit (sector:size each)
	_per=$((RQ_MAX / BATCH_BIO))
	_nrq=$((BATCH_N / _per))
	_want='' _s=0 _sec='' _i=0
	while [ $_s -lt $((SPLIT_SIZE / 512)) ]; do
		_want="$_want $_s:$RQ_MAX"
		_s=$((_s + RQ_MAX / 512))
	done
	_s=$BATCH_SECTOR
	while [ $_s -lt $((BATCH_SECTOR + BATCH_N * BATCH_BIO / 512)) ]; do
		_want="$_want $_s:$RQ_MAX"
		_s=$((_s + RQ_MAX / 512))
	done
	while [ $_i -lt $BATCH_N ]; do
		_sec="$_sec $((BATCH_SECTOR + _i * BATCH_BIO / 512))"
		_i=$((_i + 1))
	done

	start_prog --class request -d "$CHECK_DEV2" || return 1
	_d0=$(rq_stat "$CHECK_DEV2")
	_d0=${_d0% *}
	io_or_fail -s "$SPLIT_SIZE" "/dev/$CHECK_DEV2" 0 || return 1
	rq_wait "$CHECK_DEV2" $((_d0 + SPLIT_SIZE / RQ_MAX))
	_d1=$(rq_stat "$CHECK_DEV2")
	_m1=${_d1#* } _d1=${_d1% *}
	# shellcheck disable=SC2086
	io_or_fail -A -s "$BATCH_BIO" "/dev/$CHECK_DEV2" $_sec || return 1
	rq_wait "$CHECK_DEV2" $((_d1 + _nrq))
	_d2=$(rq_stat "$CHECK_DEV2")
	_m2=${_d2#* } _d2=${_d2% *}
	stop_prog || return 1
	# the ground truth: the batch's bios went into _nrq requests, by
	# merges (a kernel or disk that did not merge them tells nothing here)
	if [ $((_d2 - _d1)) -ne "$_nrq" ] || [ $((_m2 - _m1)) -ne $((BATCH_N - _nrq)) ]; then
		say run "FAIL: the checker cannot make requests of several bios on $CHECK_DEV2: $BATCH_N reads of $((BATCH_BIO / 1024)) KiB in one batch made $((_d2 - _d1)) requests by $((_m2 - _m1)) merges, want $_nrq by $((BATCH_N - _nrq)) (/sys/block/$CHECK_DEV2/stat)"
		return 1
	fi
	# each tree's first sector= and size=: the request's
	want_eq "$(awk '/^[a-z]+ 0x[0-9a-f]+: / { on = 1; next }
		on && match($0, / sector=[0-9]+  size=[0-9]+/) {
			s = substr($0, RSTART + 8, RLENGTH - 8); sub(/  size=/, ":", s); print s; on = 0 }' \
		"$T_TMP/out" | sort -t: -k1,1n -k2,2n | paste -sd' ' -)" \
		"${_want# }" \
		"each tree's first sector:size (a read of $((SPLIT_SIZE / 1024)) KiB at sector 0, split; then $BATCH_N of $((BATCH_BIO / 1024)) KiB from sector $BATCH_SECTOR, merged $_per bios a request; $((RQ_MAX / 1024)) KiB a request)" \
		"is each tree keyed by the request (event((u64)rq, ...)), with rq->__sector and rq->__data_len, not by a bio it carries?" ||
		return 1
	want_eq "$(grep -E '^[a-z]+ 0x[0-9a-f]+: ' "$T_TMP/out" | grep -vc 'no end seen')" \
		"$((_d2 - _d0))" \
		"trees that ended, against the requests $CHECK_DEV2 completed (/sys/block/$CHECK_DEV2/stat)" \
		"does a tree end (CT_END) once a completion covers the whole request?" || return 1
	"$PROG" --class request --list >"$T_TMP/list" 2>"$T_TMP/list.err"
	cp "$T_TMP/list" "$B/list.out"
	want_eq "$(awk '$1 == "blk_mq_start_request" || $1 == "submit_bio" { print $1, $2 }
		/ functions take a struct / { print $5, $6, $7 }' "$T_TMP/list" | paste -sd, -)" \
		"blk_mq_start_request arg1,struct request *" \
		"--class request --list: blk_mq_start_request (its arg1 a struct request *) listed, submit_bio (a bio only) not" \
		"does is_bio_ptr() compare the struct's name with the one --class set?" || return 1
	say run "ok: a tree per request: $((SPLIT_SIZE / RQ_MAX)) of one bio (split), $_nrq of $_per bios (merged); --list finds struct request's functions"
}

# rq_stat DEV: the requests DEV completed so far (reads and writes), and
# the bios it merged into a request (reads and writes)
rq_stat() {
	awk '{ print $1 + $5, $2 + $6 }' "/sys/block/$1/stat"
}

# rq_wait DEV N: until DEV has completed N requests. A request is counted
# after its bios end (blk_mq_end_request()), and the reader may wake and
# read the count in between; the bound is for a request that never comes.
rq_wait() {
	wait_for 10 rq_reached "$1" "$2"
}

rq_reached() {
	[ "$(awk '{ print $1 + $5 }' "/sys/block/$1/stat")" -ge "$2" ]
}
