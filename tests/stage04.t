#!/bin/sh
# Stage 04: the slowest bio. One read is made slow on purpose (slow_dev);
# the summary must name a bio the test issued, with the times it printed.
. "$(dirname "$0")/lib.sh"
S=$ROOT/stage04_max_latency/bio_trace
need_bin "$S"
need_bin "$BIN/bio_io"
need_root
slow_dev || skip_all "cannot make a scratch block device"
[ "$SLOW_NS" -gt 0 ] || diag "no slowdown here (set TEST_SLOW_NS for TEST_DEV)"

for door in $TEST_DOORS; do
	t="stage04 [$door]"
	if ! why=$(door_ok "$S" "$door"); then
		skip "$t" "$why"
		continue
	fi
	max_run "$S" "$door" || { ok 1 "$t: starts"; continue; }
	max_checks "$t"
done

# An idle device: no maximum, said so, no numbers made up.
t="stage04 [idle]"
if start "$S" -d "$DEV" -q --duration 0.3; then
	wait $TPID
	is "$?" 0 "$t: exits 0 at the end of --duration"
	check "$t: says no bio completed" \
		grep -q '^No bio completed after its submit was seen$' "$T_TMP/out"
	check "$t: prints no max latency" sh -c "! grep -q '^Max latency' '$T_TMP/out'"
else
	ok 1 "$t: starts"
fi

# -j: the same run as JSON lines (docs/json.md), the same checks
t="stage04 [auto, -j]"
JSON=1
if max_run "$S" auto -j; then
	max_checks "$t"
else
	ok 1 "$t: starts"
fi
JSON=
done_testing
