# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Stage 06, exercise 1: bio_io submits 5 reads from pread64() and 2 writes
# from pwrite64(): two paths, the reads' the busier.
ex_run() {
	start_prog -d "$DEV" || return 1
	io_or_fail "/dev/$DEV" 0 8 16 24 32 || return 1
	io_or_fail -w "/dev/$DEV" 100 108 || return 1
	stop_prog || return 1
	got=$(busiest_paths "$T_TMP/out")
	case $got in
	*"~"*)
		want_eq "$(split_verdict "$got")" ok \
			"'Path N: C bios' lines, their system call, ~ a stack split from an earlier one: got '$got'" \
			"is each bio counted under its stack id at submit, and the three busiest printed by count?" || return 1
		say run "ok: the reads' path the busiest ($got; this kernel splits one call site's stacks)"
		return 0
		;;
	esac
	if _why=$(lost_path "$got" "$T_TMP/out"); then
		say run "ok: $_why"
		return 0
	fi
	want_eq "$got" " 1:5:read 2:2:write" \
		"'Path N: C bios' lines and their stacks' system call (5 reads by pread64, 2 writes by pwrite64)" \
		"is each bio counted under its stack id at submit, and the paths sorted by count?" || return 1
	say run "ok: 5 bios by the pread64 path, then 2 by pwrite64"
}

# lost_path GOT FILE: where FILE's summary counts stacks not captured,
# 0 if those are one system call's bios, all of them, and GOT is the
# other's path: bpf_get_stackid() found that stack's slot in the stack
# map held by the other (-EEXIST, a hash collision: about 1 run in 4096,
# as the kernel's addresses fall at boot), and the program counted it.
# Says so.
lost_path() {
	_lost=$(sed -n 's/^Lost: \([0-9]*\) stacks not captured$/\1/p' "$2")
	case "$_lost:$1" in
	"2: 1:5:read") echo "5 bios by the pread64 path; the 2 writes' stack lost to a hash collision in the stack map, and counted" ;;
	"5: 1:2:write") echo "2 bios by the pwrite64 path; the 5 reads' stack lost to a hash collision in the stack map, and counted" ;;
	*) return 1 ;;
	esac
}

# busiest_paths FILE: each "Path N: C bios" of FILE as " N:C:call", the
# call the system call its stack came from (its first frame that names
# one: arm64 5.10's stacks show both ksys_pread64 and
# __arm64_sys_pread64). Marked "~" when an earlier path had the same
# functions at other offsets: arm64 6.1's do_el0_svc() calls on from two
# places, so one call site has two stacks, each rightly a path of its
# own. Marked "=" when an earlier path had the very same frames: one
# stack printed twice, never right.
busiest_paths() {
	awk '/^Busiest submit paths:$/ { on = 1; next }
		function end() {
			if (!p)
				return
			if (frames in seen)
				p = p "="
			else if (fns in seen_fns)
				p = p "~"
			seen[frames] = 1
			seen_fns[fns] = 1
			printf " %s", p
		}
		on && /^Path [0-9]+: [0-9]+ bios$/ { end(); p = $2 $3; fns = frames = "" }
		on && p && /^=> / {
			frames = frames " " $2
			f = $2
			sub(/\+.*/, "", f)
			fns = fns " " f
		}
		on && p ~ /^[0-9]+:[0-9]+$/ && /^=> .*pread64/ { p = p ":read" }
		on && p ~ /^[0-9]+:[0-9]+$/ && /^=> .*pwrite64/ { p = p ":write" }
		END { end() }' "$1"
}

# split_verdict GOT: "ok" for busiest_paths' GOT where stacks split, else
# what is wrong. Three paths (a split makes at least three stacks), the
# counts falling, the first the reads', no stack twice, and per system
# call (a split's "~" taken off: "read~" is still reads) no more bios
# than were issued.
split_verdict() {
	echo "$1" | awk '{
		if (NF != 3)
			bad = bad "; " NF " paths, not the top three"
		for (i = 1; i <= NF; i++) {
			split($i, f, ":")
			c = f[2] + 0
			call = f[3]
			if (call ~ /=$/)
				bad = bad "; path " i " is an earlier path again"
			sub(/[~=]$/, "", call)
			if (f[1] != i)
				bad = bad "; path " i " numbered " f[1]
			if (call != "read" && call != "write")
				bad = bad "; path " i " from neither pread64 nor pwrite64"
			if (i > 1 && c > last)
				bad = bad "; not sorted"
			last = c
			n[call] += c
		}
		split($1, f, ":")
		if (f[3] != "read" || f[2] < 3)
			bad = bad "; path 1 not the reads"
		if (n["read"] > 5 || n["write"] > 2)
			bad = bad "; more bios than issued"
		print bad ? substr(bad, 3) : "ok" }'
}
