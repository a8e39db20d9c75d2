# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Stage 03, exercise 1: 3 reads and 2 writes, one CSV row each.
ex_run() {
	start_prog -d "$DEV" || return 1
	io_or_fail "/dev/$DEV" 0 8 16 || return 1
	io_or_fail -w "/dev/$DEV" 200 208 || return 1
	stop_prog || return 1
	rows=$(grep -E '^[0-9]+\.[0-9]{6},(read|write),[0-9]+\.[0-9]{3}$' "$T_TMP/out")
	want_eq "$(head -n 1 "$T_TMP/out")" "completion_time,direction,latency_ms" \
		"the first line, the header" \
		"does handle_event() print the header once, before the first row?" &&
	want_eq "$(printf '%s\n' "$rows" | grep -c ',read,')" 3 \
		"rows like '1.666426,read,0.102' (3 reads at sectors 0, 8, 16)" \
		"is the direction the low bit of bi_opf, and the time in seconds with 6 decimals?" &&
	want_eq "$(printf '%s\n' "$rows" | grep -c ',write,')" 2 \
		"rows like '1.673093,write,3.723' (2 writes at sectors 200, 208)" \
		"an odd operation (bi_opf & 1) is a write" || return 1
	say run "ok: a header, 3 read rows, 2 write rows"
}
