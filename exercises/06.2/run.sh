# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Stage 06, exercise 2: one read by bio_io, whose PID it prints: the
# slowest bio is that read, so its Task line names bio_io and that PID.
ex_run() {
	start_prog -d "$DEV" || return 1
	io_or_fail "/dev/$DEV" 2048 || return 1
	stop_prog || return 1
	_pid=$(sed -n 's/^pid \([0-9]*\)$/\1/p' "$T_TMP/io.out")
	want_eq "$(grep '^Task : ' "$T_TMP/out")" "Task : bio_io (pid $_pid)" \
		"the summary's Task line (one read by bio_io, pid $_pid)" \
		"are the comm and the process ID (the upper half of bpf_get_current_pid_tgid()) kept at submit, with the stack?" || return 1
	say run "ok: the slowest bio was submitted by bio_io, pid $_pid"
}
