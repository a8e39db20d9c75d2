# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Stage 02, exercise 1: 5 reads and 2 writes complete; the per-CPU lines
# add up to 7, whichever CPUs ran them.
ex_run() {
	start_prog -q -d "$DEV" || return 1
	io_or_fail "/dev/$DEV" 0 8 16 24 32 || return 1
	io_or_fail -w "/dev/$DEV" 100 108 || return 1
	stop_prog || return 1
	want_eq "$(awk -F'[ :]+' '/^[0-9]+ +: [0-9]+ +\|/ { n += $2 } END { print n + 0 }' "$T_TMP/out")" 7 \
		"completions in the per-CPU lines '<cpu> : <count> |...|' (5 reads, 2 writes)" \
		"does the summary read every CPU's slot of STAT_DONE in the stats map?" || return 1
	say run "ok: 7 completions in the per-CPU lines"
}
