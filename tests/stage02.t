#!/bin/sh
# Stage 02: each issued bio is seen at submit_bio() and at bio_endio().
. "$(dirname "$0")/lib.sh"
S=$ROOT/stage02_bio_endio/bio_trace
need_bin "$S"
need_bin "$BIN/bio_io"
need_root
scratch_dev || skip_all "cannot make a scratch block device"

for door in $TEST_DOORS; do
	t="stage02 [$door]"
	if ! why=$(door_ok "$S" "$door"); then
		skip "$t" "$why"
		continue
	fi
	start "$S" -a "$door" -d "$DEV" || { ok 1 "$t: starts"; continue; }
	io "/dev/$DEV" 0 8 16 24 100
	io -w "/dev/$DEV" 200 300 400
	stop
	is "$TRC" 0 "$t: exits 0 on Ctrl-C"
	is "$(count 'submit_bio() called:' "$T_TMP/out")" 8 "$t: 8 submits"
	is "$(count 'bio_endio() called:' "$T_TMP/out")" 8 "$t: 8 completions"
	check "$t: summary" grep -qx "Events: submit_bio 8, bio_endio 8" "$T_TMP/out"
	check "$t: names the completion door" grep -q "^bio_endio: $door door" "$T_TMP/err"
	# synchronous I/O: each completion comes after its submit, before the next
	check "$t: submit and completion alternate" awk '
		/submit_bio\(\) called/ { if (open) exit 1; open = 1; s = $NF }
		/bio_endio\(\) called/ { if (!open || $NF < s) exit 1; open = 0; n++ }
		END { exit n != 8 }' "$T_TMP/out"
done
done_testing
