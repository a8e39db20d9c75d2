#!/bin/sh
# Stage 07: request latency, blk_mq_start_request() to the request's end.
. "$(dirname "$0")/lib.sh"
S=$ROOT/stage07_request_latency/bio_trace
need_bin "$S"
need_bin "$BIN/bio_io"
need_root
scratch_dev || skip_all "cannot make a scratch block device"

# lines FILE START END: each line a request, the points named START and
# END, a duration positive, under 10 s and at least $MIN_NS (a device
# whose every I/O takes TEST_SLOW_NS, as the VM's null_blk); nothing else
# on stdout but the summary. Prints the number of durations.
MIN_NS=0
[ -n "$TEST_DEV" ] && [ -n "$TEST_SLOW_NS" ] && MIN_NS=$TEST_SLOW_NS
lines() {
	awk -v min="$MIN_NS" -v want="$2() -> $3()" '
	/^rq 0x[0-9a-f]+: / { d = $(NF - 1) + 0
		if (index($0, want) == 0 || d <= 0 || d > 1e10 || d < min + 0) {
			print "bad line: " $0 " (" want ", at least " min " ns)" > "/dev/stderr"; bad = 1 }
		n++; next }
	/^(Events|Lost|Split|In flight at start): / { next }
	{ print "not ours: " $0 > "/dev/stderr"; bad = 1 }
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

	# The door lines name the start and end this kernel offered, e.g.
	# "rq_done: tracepoint door, tp_btf/block_rq_complete (...)".
	first=$(sed -n 's|^rq_start: [a-z_]* door, [a-z_]*/\([A-Za-z0-9_]*\).*|\1|p' "$T_TMP/err")
	point=$(sed -n 's|^rq_done: [a-z_]* door, [a-z_]*/\([A-Za-z0-9_]*\).*|\1|p' "$T_TMP/err")
	check "$t: the door lines name its start and end (${first:-none}, ${point:-none})" \
		test -n "$first" -a -n "$point"
	n=$(lines "$T_TMP/out" "$first" "$point")
	ok $? "$t: each line: $first() -> $point(), 0 < duration < 10 s, >= $MIN_NS ns; nothing else"
	is "$n" 8 "$t: 8 latencies for 8 issued I/Os"
	is "$(events "$T_TMP/out" 2)" 8 "$t: Events counts 8 request ends"
	check "$t: nothing lost" nothing_lost "$T_TMP/out"

	# Buffered writes and fsync: writeback merges bios into requests and
	# the fsync sends a flush; an empty flush the kernel ends without a
	# driver starting it must not show up as an end without a start.
	start "$S" -a "$door" -d "$DEV" -q || { ok 1 "$t: starts (-q)"; continue; }
	dd if=/dev/urandom of="/dev/$DEV" bs=64k count=64 conv=fsync 2>/dev/null
	stop
	st=$(events "$T_TMP/out" 1)
	end=$(events "$T_TMP/out" 2)
	check "$t: -q prints no per-event lines" sh -c "! grep -q 'time duration' '$T_TMP/out'"
	check "$t: buffered 4 MiB write: requests seen (${st:-none})" test "${st:-0}" -gt 0
	if [ "$door" = kprobe ]; then
		kprobe_books "$t: buffered write" "$st" "$end"
	else
		is "$end" "$st" "$t: buffered write: every started request ends once"
		check "$t: buffered write: nothing lost" nothing_lost "$T_TMP/out"
	fi
done

# -j: the same I/O as JSON lines (docs/json.md): an rq_latency object
# per request, its latency = end - start, its end function named
t="stage07 [auto, -j]"
if start "$S" -d "$DEV" -j; then
	io "/dev/$DEV" 0 8 16 24 100 2048
	io -w "/dev/$DEV" 4000 5000
	stop
	is "$TRC" 0 "$t: exits 0 on Ctrl-C"
	json_lines "$t" "$T_TMP/out"
	point=$(sed -n 's|^rq_done: [a-z_]* door, [a-z_]*/\([A-Za-z0-9_]*\).*|\1|p' "$T_TMP/err")
	got=$(awk -v min="$MIN_NS" -v fn="$point" "$JF_AWK"'
	/"type":"rq_latency"/ { d = jf("latency_ns") + 0
		if (d != jf("end_ns") - jf("start_ns") || d <= 0 || d > 1e10 || d < min + 0 ||
		    (jf("function") != fn && jf("function") != "blk_mq_end_request_batch") ||
		    jf("rq") !~ /^0x/) {
			print "bad latency: " $0 > "/dev/stderr"; bad = 1 }
		n++ }
	END { print n + 0; exit bad }' "$T_TMP/out")
	ok $? "$t: each rq_latency: its rq, function $point, latency_ns = end_ns - start_ns > 0"
	is "$got" 8 "$t: 8 rq_latency objects for 8 I/Os"
	check "$t: the summary object counts them, nothing lost" grep -qx \
		'{"type":"summary","events":{"rq_start":8,"rq_done":8},"split_parts":0,"in_flight":{"at_start":0,"at_exit":0},"lost":{}}' \
		"$T_TMP/out"
else
	ok 1 "$t: starts (-j)"
fi
# One NVMe path, on every VM kernel (the smoke set too): the VM's scratch
# disk is emulated NVMe (TEST_FS_DEV, ext4 at TEST_FS_DIR), whose driver
# ends its requests in batches (blk_mq_end_request_batch, 5.16+). 4
# O_DIRECT reads of its first sectors, raw, in the door auto takes: 4
# lines, each a request's start and end. sync first: nothing of ext4's
# own is left to write.
t="stage07 [auto, NVMe ${TEST_FS_DEV:-}]"
case ${TEST_FS_DEV:-} in
nvme*)
	sync
	if start "$S" -d "$TEST_FS_DEV"; then
		io "/dev/$TEST_FS_DEV" 0 8 16 24
		stop
		first=$(sed -n 's|^rq_start: [a-z_]* door, [a-z_]*/\([A-Za-z0-9_]*\).*|\1|p' "$T_TMP/err")
		n=$(grep -c "^rq 0x[0-9a-f]*: $first() -> [a-z_]*() time duration: [1-9][0-9]* ns$" "$T_TMP/out")
		is "$n" 4 "$t: 4 latencies for 4 reads, from $first() ($(grep -o '[a-z_]*() time' "$T_TMP/out" | sort -u | tr '\n' ' '))"
		is "$(events "$T_TMP/out" 2)" 4 "$t: Events counts 4 request ends"
	else
		ok 1 "$t: starts"
	fi
	;;
*) skip "$t" "no NVMe disk here (TEST_FS_DEV names the VM's scratch disk)" ;;
esac
done_testing
