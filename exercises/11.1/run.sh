# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Stage 11, exercise 1: on a filesystem made on the check's device, two
# writers of the same name, sw11 (copies of tests/bin/shape_io), 4 pages
# each, a pwrite() a page, then fsync(); -s 1 -p the first's PID: its 4
# calls are the only ones numbered and followed, to the disk and back.
ex_run_fs() {
	writer_copy "$T_TMP/w1" && writer_copy "$T_TMP/w2" || return 1
	rm -f "$T_TMP/go"
	# each waits for the go, so its PID is known before it writes
	for _w in w1 w2; do
		sh -c 'until [ -e "$1" ]; do sleep 0.1; done; shift; exec "$@"' sh "$T_TMP/go" \
			"$T_TMP/$_w/sw11" pages "$CHECK_MNT/$_w" 1 4 $PAGE_BYTES &
		eval "_pid_$_w=\$!"
	done
	start_prog -s 1 -p "$_pid_w1" -d "$DEV" || { touch "$T_TMP/go"; wait; return 1; }
	touch "$T_TMP/go"
	wait "$_pid_w1" && wait "$_pid_w2" || {
		say run "FAIL: the checker's own writers failed"
		stop_prog_quiet
		return 1
	}
	stop_after_rq_done 4 || return 1
	want_eq "$(grep '^Sampled: ' "$T_TMP/out")" "Sampled: 4 of 4 write() calls (1 in 1)" \
		"the Sampled: line (-s 1 -p $_pid_w1: its 4 pwrite() calls, none of the other sw11's)" \
		"is the PID (the TGID, the upper half of bpf_get_current_pid_tgid()) compared in task_wanted(), before the call is numbered?" &&
	want_eq "$(awk '/^#[0-9]/ && $4 ~ /^(entered|folio_dirty|returned)$/ { print $NF }' \
		"$T_TMP/out" | sort -u)" "sw11-$_pid_w1" \
		"the task of each entered, folio_dirty and returned line (the writer's own hops: process $_pid_w1)" \
		"is a task of another process turned away in task_wanted()?" &&
	want_eq "$(grep -c '^#[0-9].* rq_done ' "$T_TMP/out")" 4 \
		"rq_done lines (each of the 4 samples to the disk and back)" \
		"does every sample still reach rq_done?" || return 1
	say run "ok: 4 write() calls of process $_pid_w1 followed, none of the other sw11"
}

ex_run() {
	fs_run ex_run_fs
}
