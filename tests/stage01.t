#!/bin/sh
# Stage 01: one "submit_bio() called" line per bio the test issues.
. "$(dirname "$0")/lib.sh"
S=$ROOT/stage01_submit_bio/bio_trace
need_bin "$S"
need_bin "$BIN/bio_io"
need_root
scratch_dev || skip_all "cannot make a scratch block device"

for door in $TEST_DOORS; do
	t="stage01 [$door]"
	if ! why=$(door_ok "$S" "$door"); then
		skip "$t" "$why"
		continue
	fi
	start "$S" -a "$door" -d "$DEV" || { ok 1 "$t: starts"; continue; }
	io "/dev/$DEV" 0 8 16 24 100 2048 4096 8000
	stop
	is "$TRC" 0 "$t: exits 0 on Ctrl-C"
	is "$(count 'submit_bio() called:' "$T_TMP/out")" 8 "$t: one line per issued bio"
	check "$t: summary counts 8 bios" grep -qx "Events: submit_bio 8" "$T_TMP/out"
	check "$t: names the door on stderr" grep -q "^submit_bio: $door door" "$T_TMP/err"
	# times are bpf_ktime_get_ns(): positive and never going back
	sed -n 's/.*submit_bio() called: \([0-9]*\)$/\1/p' "$T_TMP/out" >"$T_TMP/ts"
	check "$t: times increase" awk 'NR > 1 && $1 < prev { exit 1 } { prev = $1 } END { exit NR == 0 }' "$T_TMP/ts"
done
done_testing
