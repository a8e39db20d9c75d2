# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Stage 05, exercise 3: the program the kernel runs at submit, as the
# verifier rewrote it (bpftool prog dump xlated), calls no
# bpf_probe_read_kernel() in the fentry and tracepoint doors; and the
# slowest bio of one read still has its sector and size.

# submit_reads: the helper calls to bpf_probe_read_kernel() in the submit
# program of $TPID (found by the prog_id of its file descriptors), or
# "no program" if it has none of that name
submit_reads() {
	_bt=$(command -v bpftool || echo /usr/sbin/bpftool)
	# shellcheck disable=SC2013	# one number a line
	for _id in $(sed -n 's/^prog_id:[[:space:]]*//p' /proc/"$TPID"/fdinfo/* 2>/dev/null | sort -u); do
		"$_bt" prog show id "$_id" 2>/dev/null |
			grep -Eq ' name (block_bio_queue_btf|submit_bio_fentry) ' || continue
		"$_bt" prog dump xlated id "$_id" | grep -c 'bpf_probe_read_kernel'
		return
	done
	echo "no program"
}

ex_run() {
	# the xlated code is bpftool's to show (the classroom VM has none)
	if ! command -v bpftool >/dev/null 2>&1 && [ ! -x /usr/sbin/bpftool ]; then
		STEP=run
		say run "FAIL: the checker needs bpftool (Debian: apt-get install bpftool)"
		return 1
	fi
	start_prog -d "$DEV" || return 1
	# a kprobe's bio is a plain number: it reads through the helper,
	# rightly, and the starting point would pass. DOOR=kprobe is skipped
	# (spec); DOOR=auto takes it where there is no fentry (arm64 before
	# 6.12): then the check is in the tracepoint door, or, where that is
	# missing too (arm64 5.10), skipped
	if [ "$(submit_door)" = kprobe ]; then
		stop_prog_quiet
		EX_DOOR=tracepoint
		start_prog -d "$DEV" >"$T_TMP/again"	# its FAIL lines, if not skipped
		_rc=$?
		EX_DOOR=
		if [ "$_rc" -ne 0 ]; then
			_why=$(sed -n 's/^submit_bio: no tracepoint door on this kernel (\(.*\))$/\1/p' "$T_TMP/err")
			[ -n "$_why" ] && RUN_SKIP="DOOR=auto took the kprobe door (no fentry here), and there is no tracepoint door either ($_why): this exercise is about the fentry and tracepoint doors ($NEEDS_NOTE)"
			[ -n "$_why" ] || cat "$T_TMP/again"
			return 1
		fi
		say attach "again, tracepoint door: DOOR=auto took kprobe, where the helper is right"
	fi
	_reads=$(submit_reads)
	io_or_fail "/dev/$DEV" 2048 || return 1
	stop_prog || return 1
	want_eq "$_reads" 0 \
		"calls to bpf_probe_read_kernel() in the submit program (block_bio_queue_btf or submit_bio_fentry, xlated)" \
		"do the fentry and tp_btf programs pass bio->bi_iter.bi_sector and bi_size, plain loads, to on_submit()?" &&
	want_eq "$(grep '^Bio Info : ' "$T_TMP/out")" "Bio Info : Sector (2048) Size (4096)" \
		"the Bio Info line of a run with one read of 4 KiB at sector 2048" \
		"are the sector and size read from this bio, before on_submit() stores them?" || return 1
	say run "ok: no helper call at submit in the $(submit_door) door; the read's sector and size kept"
}

# submit_door: the door of the submit program now running (its -v line)
submit_door() {
	sed -n 's/^submit_bio: \([a-z]*\) door, .*/\1/p' "$T_TMP/err"
}
