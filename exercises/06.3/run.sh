# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Stage 06, exercise 3: with -s 3, of 10 reads one after the other the
# 1st, 4th, 7th and 10th have their stack taken.
ex_run() {
	start_prog -s 3 -d "$DEV" || return 1
	io_or_fail "/dev/$DEV" 0 8 16 24 32 40 48 56 64 72 || return 1
	stop_prog || return 1
	got=$(awk '/^bio 0x[0-9a-f]+: .* time duration: [0-9]+ ns/ { n++ }
		/ ns, stack sampled$/ { printf " %d", n }' "$T_TMP/out")
	want_eq "$got" " 1 4 7 10" \
		"bios whose event line ends ', stack sampled' (10 reads, -s 3)" \
		"is the counter shared by all CPUs, and the test old % N == 0?" &&
	want_eq "$(grep '^Stacks: ' "$T_TMP/out")" "Stacks: 4 of 10 bios sampled (1 in 3)" \
		"the summary's Stacks: line" \
		"count the stacks taken and the bios seen" || return 1
	say run "ok: the stacks of bios 1, 4, 7, 10 of 10"
}
