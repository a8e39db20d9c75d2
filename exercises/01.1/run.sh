# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Stage 01, exercise 1: two 4 KiB reads and one 8 KiB read by bio_io.
ex_run() {
	start_prog -d "$DEV" || return 1
	io_or_fail "/dev/$DEV" 0 8 || return 1
	io_or_fail -s 8192 "/dev/$DEV" 64 || return 1
	stop_prog || return 1
	want_eq "$(count 'by bio_io, 4096 bytes' "$T_TMP/out")" 2 \
		"lines ending 'by bio_io, 4096 bytes' (2 reads of 4 KiB at sectors 0 and 8)" \
		"does the bpf_printk() line add the comm and bio->bi_iter.bi_size?" &&
	want_eq "$(count 'by bio_io, 8192 bytes' "$T_TMP/out")" 1 \
		"lines ending 'by bio_io, 8192 bytes' (1 read of 8 KiB at sector 64)" \
		"is the size read from the bio (bi_iter.bi_size), not a constant?" || return 1
	say run "ok: 2 reads of 4 KiB and 1 of 8 KiB, each by bio_io"
}
