# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Stage 08, exercise 2: on a filesystem made on the check's device, two
# cold files: one read with read() (no fault), one mapped and locked in
# (pc_reader -L: it faults, at least on its first page).
ex_run_fs() {
	fs_files 48 96 || return 1
	for _f in f48 f96; do
		"$BIN/pc_reader" -D "$CHECK_MNT/$_f" >/dev/null 2>&1 && continue
		say run "FAIL: the checker cannot drop $_f from the page cache"
		return 1
	done
	start_prog -d "$DEV" || return 1
	PIDS=
	read_file "$CHECK_MNT/f48" && read_file -L "$CHECK_MNT/f96" || return 1
	stop_prog || return 1
	# shellcheck disable=SC2086	# one word per PID
	set -- $PIDS
	_r=$(grep -c "^[^ ]*-$1: filemap_fault (" "$T_TMP/out")
	_m=$(grep -c "^[^ ]*-$2: filemap_fault (" "$T_TMP/out")
	_some=$_m
	[ "$_m" -gt 0 ] && _some="at least 1"
	want_eq "$_some" "at least 1" \
		"'filemap_fault' lines of the mmap() reader (pid $2, 96 pages, cold)" \
		"is the point in points[], with a program for each door (tp_btf/mm_filemap_fault here)?" &&
	want_eq "$_r" 0 \
		"'filemap_fault' lines of the read() reader (pid $1, 48 pages, cold)" \
		"a read() looks pages up and does not fault: is only filemap_fault counted?" &&
	want_eq "$(sed -n 's/^Faults \([0-9]*\).*/\1/p' "$T_TMP/out")" "$((_r + _m))" \
		"the summary's 'Faults N' (the filemap_fault lines printed)" \
		"is each fault counted once, where its event is sent?" || return 1
	say run "ok: $_m faults by the mmap() reader, none by the read() reader"
}

ex_run() {
	fs_run ex_run_fs
}
