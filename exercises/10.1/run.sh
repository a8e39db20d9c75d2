# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Stage 10, exercise 1: a second loop device that takes at most 64 KiB a
# request (max_sectors_kb), and one O_DIRECT read of 256 KiB at sector
# 0: block_split cuts it, and the disk serves four requests, at sectors
# 0, 128, 256 and 384. With --class request each tree is one of them,
# and the trees that ended are as many as the requests the disk says it
# completed (/sys/block/DEV/stat). Then --list --class request: the
# functions of the kernel's BTF that take a struct request *.
ex_run() {
	dev2_make || return 1
	if ! echo 64 2>/dev/null >"/sys/block/$CHECK_DEV2/queue/max_sectors_kb"; then
		say run "FAIL: the checker cannot set $CHECK_DEV2's max_sectors_kb to 64"
		return 1
	fi
	start_prog --class request -d "$CHECK_DEV2" || return 1
	_s0=$(rq_done "$CHECK_DEV2")
	io_or_fail -s 262144 "/dev/$CHECK_DEV2" 0 || return 1
	_s1=$(rq_done "$CHECK_DEV2")
	stop_prog || return 1
	# each tree's first sector= and size=: the request's
	want_eq "$(awk '/^[a-z]+ 0x[0-9a-f]+: / { on = 1; next }
		on && match($0, / sector=[0-9]+  size=[0-9]+/) {
			s = substr($0, RSTART + 8, RLENGTH - 8); sub(/  size=/, ":", s); print s; on = 0 }' \
		"$T_TMP/out" | sort -t: -k1,1n -k2,2n | paste -sd' ' -)" \
		"0:65536 128:65536 256:65536 384:65536" \
		"each tree's first sector:size (one read of 256 KiB at sector 0, 64 KiB a request)" \
		"is each tree keyed by the request (event((u64)rq, ...)), with rq->__sector and rq->__data_len?" ||
		return 1
	want_eq "$(grep -E '^[a-z]+ 0x[0-9a-f]+: ' "$T_TMP/out" | grep -vc 'no end seen')" \
		"$((_s1 - _s0))" \
		"trees that ended, against the requests $CHECK_DEV2 completed (/sys/block/$CHECK_DEV2/stat)" \
		"does a tree end (CT_END) once a completion covers the whole request?" || return 1
	"$PROG" --class request --list >"$T_TMP/list" 2>"$T_TMP/list.err"
	cp "$T_TMP/list" "$B/list.out"
	want_eq "$(awk '$1 == "blk_mq_start_request" || $1 == "submit_bio" { print $1, $2 }
		/ functions take a struct / { print $5, $6, $7 }' "$T_TMP/list" | paste -sd, -)" \
		"blk_mq_start_request arg1,struct request *" \
		"--class request --list: blk_mq_start_request (its arg1 a struct request *) listed, submit_bio (a bio only) not" \
		"does is_bio_ptr() compare the struct's name with the one --class set?" || return 1
	say run "ok: a tree per request, 4 of 64 KiB; --list finds struct request's functions"
}

# rq_done DEV: the requests DEV completed so far, reads and writes
rq_done() {
	awk '{ print $1 + $5 }' "/sys/block/$1/stat"
}
