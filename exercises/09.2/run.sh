# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Stage 09, exercise 2: on a filesystem made on the check's device, three
# readers of files of 96, 48 and 24 pages, one after the other, each a
# process whose PID the checker knows (the second reads from a thread of
# its own: the count is per process). No PID given: every one counted.
ex_run_fs() {
	fs_files 96 48 24 || return 1
	start_prog -d "$DEV" || return 1
	PIDS=
	read_file "$CHECK_MNT/f96" && read_file -t "$CHECK_MNT/f48" && read_file "$CHECK_MNT/f24" || return 1
	stop_prog || return 1
	# shellcheck disable=SC2086	# one word per PID
	set -- $PIDS
	want_eq "$(awk '/^Top readers/ { on = 1; next }
		on && NF == 3 && $1 ~ /^[0-9]+$/ { printf " %s %s", $1, $3 }' "$T_TMP/out")" \
		" $1 96 $2 48 $3 24" \
		"rows '<pid> <comm> <pages>' under 'Top readers' (PIDs $1, $2, $3 read 96, 48, 24 pages)" \
		"is the map keyed by the process (TGID, the upper half), n added where the totals are, the rows sorted?" || return 1
	say run "ok: 3 readers, 96, 48 and 24 pages, each by its PID"
}

ex_run() {
	fs_run ex_run_fs
}
