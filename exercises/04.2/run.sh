# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Stage 04, exercise 2: a loop device's reads take well under 10 s: with
# -m 10000 none is printed, yet the slowest is still found; without -m
# every one is printed.
ex_run() {
	start_prog -m 10000 -d "$DEV" || return 1
	io_or_fail "/dev/$DEV" 0 8 16 || return 1
	stop_prog || return 1
	want_eq "$(grep -c '^bio 0x[0-9a-f]*: .* time duration: ' "$T_TMP/out")" 0 \
		"per-event lines with -m 10000 (3 reads, each far under 10 s)" \
		"is min_ns set from -m before load, in ns (MS * 1000000), and tested in on_done()?" &&
	want_eq "$(grep -c '^Max latency [0-9]* ns$' "$T_TMP/out")" 1 \
		"'Max latency' lines with -m 10000 (3 reads: the slowest is one of them)" \
		"the filter is for the events only: does keep_max() still see every bio?" || return 1
	start_prog -d "$DEV" || return 1
	io_or_fail "/dev/$DEV" 0 8 16 || return 1
	stop_prog || return 1
	want_eq "$(grep -c '^bio 0x[0-9a-f]*: .* time duration: ' "$T_TMP/out")" 3 \
		"per-event lines without -m (3 reads)" \
		"without -m min_ns is 0: is every bio printed, as before?" || return 1
	say run "ok: -m 10000 printed none of 3 reads and kept the slowest; without -m, 3"
}
