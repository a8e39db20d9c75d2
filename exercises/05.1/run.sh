# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Stage 05, exercise 1: one read, then (a new run) one write: each run's
# slowest bio is its only one, so its Bio Info line is known whole.
ex_run() {
	start_prog -d "$DEV" || return 1
	io_or_fail "/dev/$DEV" 2048 || return 1
	stop_prog || return 1
	want_eq "$(grep '^Bio Info : ' "$T_TMP/out")" "Bio Info : Sector (2048) Size (4096) R" \
		"the Bio Info line of a run with one read of 4 KiB at sector 2048" \
		"is the operation (bi_opf & REQ_OP_MASK) kept from submit to the summary, and 0 printed R?" || return 1
	start_prog -d "$DEV" || return 1
	io_or_fail -w -s 16384 "/dev/$DEV" 4000 || return 1
	stop_prog || return 1
	want_eq "$(grep '^Bio Info : ' "$T_TMP/out")" "Bio Info : Sector (4000) Size (16384) W" \
		"the Bio Info line of a run with one write of 16 KiB at sector 4000" \
		"an odd operation (REQ_OP_WRITE is 1) writes: is it read at submit, from this bio?" || return 1
	say run "ok: R for the read at sector 2048, W for the write at 4000"
}
