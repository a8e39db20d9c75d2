#!/bin/sh
# Stage 06: the slowest bio's submitter stack. The test's reads are pread()s
# of bio_io, so the stack must be a real kernel path from that system call
# down to the block layer, every frame a symbol of this kernel.
. "$(dirname "$0")/lib.sh"
S=$ROOT/stage06_stacktrace/bio_trace
need_bin "$S"
need_bin "$BIN/bio_io"
need_root
[ -r /proc/kallsyms ] || skip_all "no /proc/kallsyms"
slow_dev || skip_all "cannot make a scratch block device"
[ "$SLOW_NS" -gt 0 ] || diag "no slowdown here (set TEST_SLOW_NS for TEST_DEV)"

for door in $TEST_DOORS; do
	t="stage06 [$door]"
	if ! why=$(door_ok "$S" "$door"); then
		skip "$t" "$why"
		continue
	fi
	max_run "$S" "$door" || { ok 1 "$t: starts"; continue; }
	max_checks "$t"
	is "$M_SECTOR" "${M_WANT_SECTOR:-unknown}" "$t: Bio Info: the sector its bio_io read"
	sed -n 's/^=> //p' "$T_TMP/out" >"$T_TMP/stack"
	check "$t: a stack of at least 4 frames ($(wc -l <"$T_TMP/stack"))" \
		test "$(wc -l <"$T_TMP/stack")" -ge 4
	# every frame "name+0xoff", name a text symbol of this kernel
	bad=$(awk 'NR == FNR { if ($2 ~ /^[tTwW]$/) text[$3] = 1; next }
		!/^[A-Za-z0-9_.$]+\+0x[0-9a-f]+( \[[^]]+\])?$/ { print; next }
		{ n = $1; sub(/\+0x.*/, "", n); if (!(n in text)) print }' \
		/proc/kallsyms "$T_TMP/stack")
	is "$bad" "" "$t: every frame is a text symbol of this kernel, with offset"
	check "$t: the submitter is bio_io's pread()" grep -q 'pread64' "$T_TMP/stack"
	inner=$(tail -n 1 "$T_TMP/stack")
	case $door in
	kprobe | fentry)	# the probed function is the innermost frame
		want="submit_bio" ;;
	*)	# block_bio_queue fires in submit_bio_noacct_nocheck()
		want="submit_bio_noacct_nocheck submit_bio_noacct" ;;
	esac
	case " $want " in
	*" ${inner%%+*} "*) ok 0 "$t: innermost frame ${inner%%+*} (tracer frames left out)" ;;
	*) ok 1 "$t: innermost frame one of: $want (tracer frames left out)"
		diag "innermost: $inner" ;;
	esac
	check "$t: no stack lost" sh -c "! grep -q 'stacks not captured' '$T_TMP/out'"
done

# -j: the same run as JSON lines (docs/json.md), the same checks
t="stage06 [auto, -j]"
JSON=1
if max_run "$S" auto -j; then
	max_checks "$t"
	is "$M_SECTOR" "${M_WANT_SECTOR:-unknown}" "$t: the max object's sector: the one its bio_io read"
	grep '^{"type":"stack"' "$T_TMP/out" | sed 's/.*"frames":\[//; s/\]}$//' |
		tr ',' '\n' | sed 's/^"//; s/"$//' | grep . >"$T_TMP/stack"
	check "$t: the stack object has at least 4 frames ($(wc -l <"$T_TMP/stack"))" \
		test "$(wc -l <"$T_TMP/stack")" -ge 4
	check "$t: the submitter is bio_io's pread()" grep -q 'pread64' "$T_TMP/stack"
else
	ok 1 "$t: starts"
fi
JSON=
done_testing
