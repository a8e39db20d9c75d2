# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Stage 09, exercise 1: on a filesystem made on the check's device, a
# reader of 48 pages in a cgroup the checker makes, one of 96 pages
# outside it: -c counts the 48 only.
ex_run_fs() {
	fs_files 48 96 || return 1
	cg_make || return 1
	start_prog -c "$CHECK_CG" -d "$DEV" || return 1
	PIDS=
	READ_CG=$CHECK_CG read_file "$CHECK_MNT/f48" && read_file "$CHECK_MNT/f96" || return 1
	stop_prog || return 1
	want_eq "$(sed -n 's/^\[Total \([0-9]*\) .*/\1/p' "$T_TMP/out")" 48 \
		"pages in the '[Total ...]' line (48 read in the cgroup, 96 outside it)" \
		"is the cgroup ID the directory's inode number, set before load and compared in pid_wanted()?" || return 1
	say run "ok: the 48 pages read in the cgroup, none of the 96 outside"
}

ex_run() {
	fs_run ex_run_fs
}
