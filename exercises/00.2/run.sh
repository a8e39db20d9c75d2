# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Stage 00, exercise 2: 5 reads and 2 writes, one request each; the two
# columns of the side-by-side histogram count them apart.
ex_run() {
	start_prog -d "$DEV" || return 1
	io_or_fail "/dev/$DEV" 0 8 16 24 32 || return 1
	io_or_fail -w "/dev/$DEV" 100 108 || return 1
	stop_prog || return 1
	got=$(sed -n '/^Reads and writes:$/,$ s/^ *[0-9]* -> [0-9]* *: \([0-9]*\) *|[* ]*| : \([0-9]*\) *|[* ]*|$/\1 \2/p' "$T_TMP/out" |
		awk '{ r += $1; w += $2 } END { printf "%d reads, %d writes", r, w }')
	want_eq "$got" "5 reads, 2 writes" \
		"the columns under 'Reads and writes:', added up (5 reads, 2 writes)" \
		"is a write's slot moved by HIST_SLOTS, from cmd_flags & REQ_OP_MASK & 1, and are both rows read?" || return 1
	say run "ok: 5 reads and 2 writes, each in its own column"
}
