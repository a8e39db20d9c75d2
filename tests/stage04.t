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

for door in $TEST_DOORS raw_tp; do
	t="stage04 [$door]"
	if ! why=$(door_ok "$S" "$door"); then
		skip "$t" "$why"
		continue
	fi
	start "$S" -a "$door" -d "$DEV" || { ok 1 "$t: starts"; continue; }
	pids=
	for sector in 8 1024 2048; do	# one process per I/O: pid names it
		io "/dev/$DEV" $sector && pids="$pids $(sed -n 's/^pid //p' "$T_TMP/io.out")"
	done
	slow_io "/dev/$DEV" 24000
	slow=$(sed -n 's/^pid //p' "$T_TMP/io.out")
	stop
	is "$TRC" 0 "$t: exits 0 on Ctrl-C"
	eval "$(max_summary "$T_TMP/out")"
	check "$t: summary framed by = lines" \
		test "$(grep -c '^=====$' "$T_TMP/out")" = 2
	case $M_BIO in
	0x*) ok 0 "$t: From and To name the same bio ($M_BIO)" ;;
	*) ok 1 "$t: From and To name the same bio ($M_BIO)" ;;
	esac
	is "$M_NS" "$((M_END - M_START))" "$t: max latency = end - start"
	is "$M_NS" "$EV_MAX" "$t: max latency = the largest duration printed"
	is "$M_END_SEEN" 1 "$t: its completion was printed with that end time"
	if [ -n "$SLOW_ALL" ]; then	# every I/O slow: any of ours may win
		case " $pids $slow " in
		*" $M_PID "*) ok 0 "$t: submitted by one of our bio_io ($M_PID)" ;;
		*) ok 1 "$t: submitted by one of our bio_io (got '$M_PID', ours:$pids $slow)" ;;
		esac
	elif [ "$SLOW_NS" -gt 0 ]; then
		is "$M_PID" "$slow" "$t: the slow read's bio, submitted by its bio_io"
	else
		skip "$t: the slow read's bio" "no slowdown on this device"
	fi
	if [ "$SLOW_NS" -gt 0 ]; then
		check "$t: max latency $M_NS ns >= imposed $SLOW_NS ns" \
			test "${M_NS:-0}" -ge "$SLOW_NS"
	else
		skip "$t: max latency >= imposed delay" "no slowdown on this device"
	fi
	check "$t: nothing lost" grep -qx "Lost: none" "$T_TMP/out"
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
done_testing
