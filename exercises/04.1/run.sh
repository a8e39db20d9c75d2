# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Stage 04, exercise 1: 6 reads, each printed with its latency as it
# ends; the summary's three must be the three largest of those, in order.
ex_run() {
	start_prog -d "$DEV" || return 1
	io_or_fail "/dev/$DEV" 0 8 16 24 32 40 || return 1
	stop_prog || return 1
	want=$(sed -n 's/^bio \(0x[0-9a-f]*\): .* time duration: \([0-9]*\) ns$/\2 \1/p' "$T_TMP/out" |
		sort -rn | head -n 3 | awk '{ printf " %s %s", $2, $1 }')
	got=$(awk '/^Slowest bios:$/ { on = 1; next }
		on && /^[0-9]+: bio 0x[0-9a-f]+ [0-9]+ ns$/ { printf " %s %s", $3, $4 }' "$T_TMP/out")
	want_eq "$(grep -c '^bio 0x[0-9a-f]*: .* time duration: ' "$T_TMP/out")" 6 \
		"per-event lines (6 reads)" \
		"the events are the stage's own: is send_event() still called for every bio?" &&
	want_eq "$got" "$want" \
		"'N: bio <address> <ns> ns' lines under 'Slowest bios:' (the 3 largest of the 6 printed)" \
		"does a bio slower than the third move the faster ones down, and the merge keep all CPUs' lists?" || return 1
	say run "ok: the three slowest of 6 reads, slowest first"
}
