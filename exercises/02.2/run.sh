# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Stage 02, exercise 2: in the tracepoint door, 2 reads of the check's
# loop device (request-based: block_rq_complete ends them), then 3 reads
# of a bio-based disk the checker makes (dm-linear over the loop device,
# or zram: block_bio_complete ends them), each traced alone with -d.
ends_by() {	# "block_rq_complete N, block_bio_complete M" in run.out
	awk '/bio_endio\(\) called: [0-9]+ by / { n[$NF]++ }
		END { printf "block_rq_complete %d, block_bio_complete %d",
			n["block_rq_complete"], n["block_bio_complete"] }' "$T_TMP/out"
}

ex_run() {
	start_prog -d "$DEV" || return 1
	io_or_fail "/dev/$DEV" 0 8 || return 1
	stop_prog || return 1
	want_eq "$(ends_by)" "block_rq_complete 2, block_bio_complete 0" \
		"lines ending 'by <point>' on $DEV, a loop device (2 reads)" \
		"does on_done() print the name its caller gives, the request walk's 'block_rq_complete'?" ||
		return 1
	bio_dev_make || return 1
	start_prog -d "$BIO_DEV" || return 1
	io_or_fail "/dev/$BIO_DEV" 0 8 16 || return 1
	stop_prog || return 1
	want_eq "$(ends_by)" "block_rq_complete 0, block_bio_complete 3" \
		"lines ending 'by <point>' on $BIO_DEV, a bio-based disk (3 reads)" \
		"does block_bio_complete_btf give on_done() its own name?" || return 1
	say run "ok: $DEV's 2 reads ended by block_rq_complete, $BIO_DEV's 3 by block_bio_complete"
}
