# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Stage 10, exercise 2: a loop device over the check's, where a read by
# the checker's cgroup waits in blk-throttle (half a second): with
# --min-us 100000 (0.1 s) only that read's trees are printed, at its
# sector 2048, none of 3 fast reads at sectors 0, 8, 16 (but one that
# the machine held up for 0.1 s or more: bio_io -t times each).
ex_run() {
	slow_make || return 1
	start_prog --min-us 100000 -d "$CHECK_DEV2" || return 1
	io_or_fail -t "/dev/$CHECK_DEV2" 0 8 16 || return 1
	# a fast read the machine held up (its pread took 0.1 s or more, bio_io
	# -t: no trace inside it took longer) may be printed or not: not judged
	_held=$(awk '$1 == "read" && $7 >= 100000000 { printf " %s", $3 }' "$T_TMP/io.out")
	IO_CG=$CHECK_CG io_or_fail "/dev/$CHECK_DEV2" 2048 || return 1
	stop_prog || return 1
	# each tree's sector where it was submitted (submit_bio, or
	# block_bio_queue in the tracepoint door: the function doors see a
	# bio before its sector is set, and print sector= only as it changes);
	# a tree without its end is printed whatever N (the exercise says
	# so): not judged, but the slow read's must be there, end or none
	want_eq "$(awk 'function out() { if (on && (!noend || cur == 2048)) print cur; on = 0 }
		/^bio 0x/ { out(); on = 1; noend = /, no end seen/; cur = ""; next }
		on && match($0, / sector=[0-9]+/) { cur = substr($0, RSTART + 8, RLENGTH - 8) }
		on && / (submit_bio|block_bio_queue)( |$)/ { out() }
		END { out() }' \
		"$T_TMP/out" | awk -v held="$_held " 'index(held, " " $1 " ") == 0' |
		sort -un | paste -sd' ' -)" 2048 \
		"sectors of the trees printed (3 fast reads at sectors 0, 8, 16${_held:+, not judged:$_held, held up 0.1 s or more}; one of 0.5 s at 2048)" \
		"is a tree skipped when its end (CT_END) came less than N us after its first event?" || {
		# what it says it missed: a tree without its end is printed
		echo "            its summary, what it missed:"
		grep -E '^(In flight|Unfinished|Stacked|Lost):? ' "$B/run.out" | sed 's/^/            | /'
		return 1
	}
	say run "ok: only the slow read's trees, at sector 2048${_held:+ (not judged: sectors$_held, whose reads took 0.1 s or more here)}"
}
