# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Stage 06, exercise 1: bio_io submits 5 reads from pread64() and 2 writes
# from pwrite64(): two paths, the reads' the busier.
ex_run() {
	start_prog -d "$DEV" || return 1
	io_or_fail "/dev/$DEV" 0 8 16 24 32 || return 1
	io_or_fail -w "/dev/$DEV" 100 108 || return 1
	stop_prog || return 1
	# each "Path N: C bios" line, with the system call its stack came
	# from (its first frame that names one: arm64 5.10's stacks show
	# both ksys_pread64 and __arm64_sys_pread64)
	got=$(awk '/^Busiest submit paths:$/ { on = 1; next }
		on && /^Path [0-9]+: [0-9]+ bios$/ { if (p) printf " %s", p; p = $2 $3 }
		on && p ~ /^[0-9]+:[0-9]+$/ && /^=> .*pread64/ { p = p ":read" }
		on && p ~ /^[0-9]+:[0-9]+$/ && /^=> .*pwrite64/ { p = p ":write" }
		END { if (p) printf " %s", p }' "$T_TMP/out")
	want_eq "$got" " 1:5:read 2:2:write" \
		"'Path N: C bios' lines and their stacks' system call (5 reads by pread64, 2 writes by pwrite64)" \
		"is each bio counted under its stack id at submit, and the paths sorted by count?" || return 1
	say run "ok: 5 bios by the pread64 path, then 2 by pwrite64"
}
