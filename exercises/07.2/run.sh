# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Stage 07, exercise 2: O_DIRECT I/O one after the other, each its own
# request: two reads of 4 KiB, one of 16 KiB, one write of 8 KiB.
ex_run() {
	start_prog -d "$DEV" || return 1
	io_or_fail "/dev/$DEV" 0 8 || return 1
	io_or_fail -s 16384 "/dev/$DEV" 64 || return 1
	io_or_fail -w -s 8192 "/dev/$DEV" 1000 || return 1
	stop_prog || return 1
	want_eq "$(grep -c '^rq 0x[0-9a-f]*: .* ns, R 4096 bytes$' "$T_TMP/out")" 2 \
		"lines ending ', R 4096 bytes' (2 reads of 4 KiB at sectors 0 and 8)" \
		"are rq->__data_len and the operation read at start, and kept for the end?" &&
	want_eq "$(grep -c '^rq 0x[0-9a-f]*: .* ns, R 16384 bytes$' "$T_TMP/out")" 1 \
		"lines ending ', R 16384 bytes' (1 read of 16 KiB at sector 64)" \
		"is the size this request's __data_len, read before the end counts it down?" &&
	want_eq "$(grep -c '^rq 0x[0-9a-f]*: .* ns, W 8192 bytes$' "$T_TMP/out")" 1 \
		"lines ending ', W 8192 bytes' (1 write of 8 KiB at sector 1000)" \
		"an odd operation (cmd_flags & REQ_OP_MASK, REQ_OP_WRITE 1) writes" || return 1
	say run "ok: R 4096 bytes twice, R 16384 once, W 8192 once"
}
