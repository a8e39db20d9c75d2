# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Stage 10, exercise 2: a loop device over the check's, where a read by
# the checker's cgroup waits in blk-throttle (half a second): with
# --min-us 100000 (0.1 s) only that read's trees are printed, at its
# sector 2048, none of 3 fast reads at sectors 0, 8, 16.
ex_run() {
	slow_make || return 1
	start_prog --min-us 100000 -d "$CHECK_DEV2" || return 1
	io_or_fail "/dev/$CHECK_DEV2" 0 8 16 || return 1
	IO_CG=$CHECK_CG io_or_fail "/dev/$CHECK_DEV2" 2048 || return 1
	stop_prog || return 1
	# each tree's first sector=, the sectors of the trees printed
	want_eq "$(awk '/^bio 0x/ { on = 1; next }
		on && match($0, / sector=[0-9]+/) { print substr($0, RSTART + 8, RLENGTH - 8); on = 0 }' \
		"$T_TMP/out" | sort -un | paste -sd' ' -)" 2048 \
		"sectors of the trees printed (3 fast reads at sectors 0, 8, 16; one of 0.5 s at 2048)" \
		"is a tree skipped when its end (CT_END) came less than N us after its first event?" ||
		return 1
	say run "ok: only the slow read's trees, at sector 2048"
}
