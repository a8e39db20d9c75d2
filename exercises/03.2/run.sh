# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Stage 03, exercise 2: 6 reads, each counted once in the histogram.
ex_run() {
	start_prog -d "$DEV" || return 1
	io_or_fail "/dev/$DEV" 0 8 16 24 32 40 || return 1
	stop_prog || return 1
	want_eq "$(grep -c '^msecs  *: count  *distribution$' "$T_TMP/out")" 1 \
		"header lines 'msecs : count distribution'" \
		"does the end of the run print the histogram with its header?" &&
	want_eq "$(hist_sum "$T_TMP/out")" 6 \
		"bios in the buckets '<lo> -> <hi> : <count> |...|' (6 reads)" \
		"is every completion counted once, in slot latency_ms?" || return 1
	say run "ok: 6 bios in the histogram"
}
