#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The teachers' solutions (solutions/, built by make test): each runs like
# a stage, on this test's own loop device, against I/O the test issued.
. "$(dirname "$0")/lib.sh"
SOL=$ROOT/solutions
need_bin "$BIN/bio_io"
need_root
scratch_dev || skip_all "cannot make a scratch block device"

# run_sol NAME ARGS...: start solution NAME on $DEV; 1 if it cannot.
run_sol() {
	_s=$SOL/$1/bio_trace
	shift
	if [ ! -x "$_s" ]; then
		skip "$t" "$_s is not built (run make solutions)"
		return 1
	fi
	start "$_s" -d "$DEV" "$@" || { ok 1 "$t: starts"; return 1; }
}

# hist_sum FILE: the counts of every histogram bucket line, added up
hist_sum() {
	awk '/^[0-9]+( -> [0-9]+|\+) +: [0-9]+ +\|/ { sub(/^[^:]*: */, ""); n += $1 }
		END { print n + 0 }' "$1"
}

# stage01: the submitter's name and the bio's size on every line
t="solutions/stage01_comm_size"
if run_sol stage01_comm_size; then
	io "/dev/$DEV" 0 8
	io -s 8192 "/dev/$DEV" 64
	stop
	is "$TRC" 0 "$t: exits 0 on Ctrl-C"
	is "$(count 'by bio_io, 4096 bytes' "$T_TMP/out")" 2 "$t: two 4 KiB reads by bio_io"
	is "$(count 'by bio_io, 8192 bytes' "$T_TMP/out")" 1 "$t: one 8 KiB read by bio_io"
fi

# stage02: completions by CPU add up to the completions issued
t="solutions/stage02_by_cpu"
if run_sol stage02_by_cpu -q; then
	io "/dev/$DEV" 0 8 16 24 32
	io -w "/dev/$DEV" 100 108
	stop
	is "$TRC" 0 "$t: exits 0 on Ctrl-C"
	sum=$(awk -F'[ :]+' '/^[0-9]+ +: [0-9]+ +\|/ { n += $2 } END { print n + 0 }' "$T_TMP/out")
	is "$sum" 7 "$t: per-CPU counts add up to the 7 bios issued"
	check "$t: the total agrees" grep -qx "Events: submit_bio 7, bio_endio 7" "$T_TMP/out"
fi

# stage03: one CSV row per bio, with its direction and a sane latency,
# in every door this kernel has
for door in $TEST_DOORS; do
	t="solutions/stage03_csv [$door]"
	# a door this kernel lacks is a SKIP; any other failure fails below
	if [ -x "$SOL/stage03_csv/bio_trace" ] && ! why=$(door_ok "$SOL/stage03_csv/bio_trace" "$door"); then
		case "$why" in
		*"door on this kernel"*) skip "$t" "$why"; continue ;;
		esac
	fi
	run_sol stage03_csv -a "$door" || continue
	io "/dev/$DEV" 0 8 16
	io -w "/dev/$DEV" 200 208
	stop
	is "$TRC" 0 "$t: exits 0 on Ctrl-C"
	is "$(head -n 1 "$T_TMP/out")" "completion_time,direction,latency_ms" "$t: header row"
	rows=$(grep -E '^[0-9]+\.[0-9]{6},(read|write),[0-9]+\.[0-9]{3}$' "$T_TMP/out")
	is "$(printf '%s\n' "$rows" | grep -c ',read,')" 3 "$t: 3 read rows"
	is "$(printf '%s\n' "$rows" | grep -c ',write,')" 2 "$t: 2 write rows"
	printf '%s\n' "$rows" | awk -F, '$3 <= 0 || $3 > 10000 { bad = 1 } END { exit bad }'
	ok $? "$t: every latency in (0, 10 s]"
done

# stage03: the linear histogram, at the end and per interval
t="solutions/stage03_linear_hist"
if run_sol stage03_linear_hist; then
	io "/dev/$DEV" 0 8 16 24 32 40
	stop
	is "$TRC" 0 "$t: exits 0 on Ctrl-C"
	check "$t: header" grep -q "^msecs  *: count  *distribution$" "$T_TMP/out"
	sum=$(hist_sum "$T_TMP/out")
	is "$sum" 6 "$t: the buckets hold the 6 bios issued"
fi
t="solutions/stage03_linear_hist -i 1"
if run_sol stage03_linear_hist -i 1; then
	io "/dev/$DEV" 0 8
	sleep 1.3
	io "/dev/$DEV" 16 24 32
	stop
	is "$TRC" 0 "$t: exits 0 on Ctrl-C"
	n=$(grep -c '^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]$' "$T_TMP/out")
	check "$t: at least two intervals printed ($n)" test "$n" -ge 2
	# each interval is cleared: the counts add up to 5, not more
	sum=$(hist_sum "$T_TMP/out")
	is "$sum" 5 "$t: intervals hold the 5 bios once each"
fi

# stage03: the textbook hash map gives the stage's own answers
t="solutions/stage03_hash_map"
if run_sol stage03_hash_map; then
	io "/dev/$DEV" 0 8 16 24 100 2048
	io -w "/dev/$DEV" 4000 5000
	stop
	is "$TRC" 0 "$t: exits 0 on Ctrl-C"
	is "$(grep -c 'time duration: [1-9][0-9]* ns$' "$T_TMP/out")" 8 "$t: 8 latencies for 8 issued bios"
	check "$t: nothing lost" grep -qx "Lost: none" "$T_TMP/out"
fi
done_testing
