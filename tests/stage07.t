#!/bin/sh
# Stage 07: request latency, blk_mq_start_request() to the request's end.
. "$(dirname "$0")/lib.sh"
S=$ROOT/stage07_request_latency/bio_trace
need_bin "$S"
need_bin "$BIN/bio_io"
need_root
scratch_dev || skip_all "cannot make a scratch block device"

# pairs FILE: each end pairs with the last start of its request, and
# the duration is positive, under 10 s, and at least $MIN_NS (a device
# whose every I/O takes TEST_SLOW_NS, as the VM's null_blk). The lines'
# own trace stamps are no check: in an emulated VM the trace clock and
# the BPF clock drift apart by a quarter. Prints the number of durations.
MIN_NS=0
[ -n "$TEST_DEV" ] && [ -n "$TEST_SLOW_NS" ] && MIN_NS=$TEST_SLOW_NS
pairs() {
	awk -v min="$MIN_NS" '
	function rq() { match($0, /rq=0x[0-9a-f]+/); return substr($0, RSTART + 3, RLENGTH - 3) }
	/ blk_mq_start_request\(rq=/ { start[rq()] = 1; next }
	/\(rq=0x[0-9a-f]+\) is called!/ { r = rq()
		if (!(r in start)) { print "no start for " r > "/dev/stderr"; bad = 1 }
		delete start[r]; need = 1; next }
	/time duration:/ { d = $(NF - 1)
		if (!need || d <= 0 || d > 1e10 || d < min + 0) {
			print "bad duration: " $0 " (at least " min " ns)" > "/dev/stderr"; bad = 1 }
		need = 0; n++ }
	END { print n + 0; exit bad }' "$1"
}

# events FILE N: the Nth number of the Events line (rq_start, rq_done)
events() {
	sed -n 's/^Events: rq_start \([0-9]*\), rq_done \([0-9]*\)$/\'"$2"'/p' "$1"
}

for door in $TEST_DOORS; do
	t="stage07 [$door]"
	if ! why=$(door_ok "$S" "$door"); then
		skip "$t" "$why"
		continue
	fi
	start "$S" -a "$door" -d "$DEV" || { ok 1 "$t: starts"; continue; }
	io "/dev/$DEV" 0 8 16 24 100 2048
	io -w "/dev/$DEV" 4000 5000
	stop
	is "$TRC" 0 "$t: exits 0 on Ctrl-C"

	# The door line names the end this kernel offered, e.g.
	# "rq_done: tracepoint door, tp_btf/block_rq_complete (...)".
	point=$(sed -n 's|^rq_done: [a-z_]* door, [a-z_]*/\([A-Za-z0-9_]*\).*|\1|p' "$T_TMP/err")
	check "$t: prints the request end it probes (${point:-none})" test -n "$point"
	is "$(count "$point(rq=" "$T_TMP/out")" 8 "$t: 8 ends at $point for 8 issued I/Os"
	n=$(pairs "$T_TMP/out")
	ok $? "$t: every end matches its start; 0 < duration < 10 s, >= $MIN_NS ns"
	is "$n" 8 "$t: 8 latencies for 8 issued I/Os"
	is "$(events "$T_TMP/out" 2)" 8 "$t: Events counts 8 request ends"
	check "$t: nothing lost" grep -qx "Lost: none" "$T_TMP/out"

	# Buffered writes and fsync: writeback merges bios into requests and
	# the fsync sends a flush; an empty flush the kernel ends without a
	# driver starting it must not show up as an end without a start.
	start "$S" -a "$door" -d "$DEV" -q || { ok 1 "$t: starts (-q)"; continue; }
	dd if=/dev/urandom of="/dev/$DEV" bs=64k count=64 conv=fsync 2>/dev/null
	stop
	st=$(events "$T_TMP/out" 1)
	end=$(events "$T_TMP/out" 2)
	check "$t: -q prints no per-event lines" sh -c "! grep -q 'is called!' '$T_TMP/out'"
	check "$t: buffered 4 MiB write: requests seen (${st:-none})" test "${st:-0}" -gt 0
	if [ "$door" = kprobe ]; then
		kprobe_books "$t: buffered write" "$st" "$end"
	else
		is "$end" "$st" "$t: buffered write: every started request ends once"
		check "$t: buffered write: nothing lost" grep -qx "Lost: none" "$T_TMP/out"
	fi
done

# -j: the same I/O as JSON lines (docs/json.md): rq_start, rq_end and
# rq_latency objects, each end after its request's start, 8 of each
t="stage07 [auto, -j]"
if start "$S" -d "$DEV" -j; then
	io "/dev/$DEV" 0 8 16 24 100 2048
	io -w "/dev/$DEV" 4000 5000
	stop
	is "$TRC" 0 "$t: exits 0 on Ctrl-C"
	json_lines "$t" "$T_TMP/out"
	got=$(awk -v min="$MIN_NS" "$JF_AWK"'
	/"event":"rq_start"/ { start[jf("rq")] = 1; s++ }
	/"event":"rq_end"/ { r = jf("rq")
		if (!(r in start)) { print "no start for " r > "/dev/stderr"; bad = 1 }
		delete start[r]; e++; fn = jf("function") }
	/"event":"rq_latency"/ { d = jf("latency_ns") + 0
		if (d <= 0 || d > 1e10 || d < min + 0 || jf("function") != fn) {
			print "bad latency: " $0 > "/dev/stderr"; bad = 1 }
		n++ }
	END { print s + 0, e + 0, n + 0; exit bad }' "$T_TMP/out")
	ok $? "$t: every rq_end follows its request's rq_start; 0 < latency_ns < 10 s"
	is "$got" "8 8 8" "$t: 8 rq_start, rq_end and rq_latency objects for 8 I/Os"
	check "$t: the summary object counts them, nothing lost" grep -qx \
		'{"type":"summary","events":{"rq_start":8,"rq_done":8},"split_parts":0,"lost":{}}' \
		"$T_TMP/out"
else
	ok 1 "$t: starts (-j)"
fi
done_testing
