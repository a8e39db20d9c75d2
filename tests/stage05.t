#!/bin/sh
# Stage 05: the slowest bio's sector, as submitted: the sector the test
# read (512-byte units; a whole loop device, so no partition offset).
. "$(dirname "$0")/lib.sh"
S=$ROOT/stage05_sector/bio_trace
need_bin "$S"
need_bin "$BIN/bio_io"
need_root
slow_dev || skip_all "cannot make a scratch block device"
[ "$SLOW_NS" -gt 0 ] || diag "no slowdown here (set TEST_SLOW_NS for TEST_DEV)"

for door in $TEST_DOORS; do
	t="stage05 [$door]"
	if ! why=$(door_ok "$S" "$door"); then
		skip "$t" "$why"
		continue
	fi
	max_run "$S" "$door" || { ok 1 "$t: starts"; continue; }
	max_checks "$t"
	is "$M_SECTOR" "${M_WANT_SECTOR:-unknown}" \
		"$t: Bio Info: the sector its bio_io read"
	is "$M_SIZE" 4096 "$t: Bio Info: the size bio_io read (4096)"
done

# -j: the same run as JSON lines (docs/json.md), the same checks
t="stage05 [auto, -j]"
JSON=1
if max_run "$S" auto -j; then
	max_checks "$t"
	is "$M_SECTOR" "${M_WANT_SECTOR:-unknown}" "$t: the max object's sector: the one its bio_io read"
	is "$M_SIZE" 4096 "$t: the max object's size: what bio_io read (4096)"
else
	ok 1 "$t: starts"
fi
JSON=
done_testing
