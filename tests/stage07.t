#!/bin/sh
# Stage 07: request latency, blk_mq_start_request() to the request's end.
. "$(dirname "$0")/lib.sh"
S=$ROOT/stage07_request_latency/bio_trace
need_bin "$S"
need_bin "$BIN/bio_io"
need_root
scratch_dev || skip_all "cannot make a scratch block device"

# pairs FILE: each end pairs with the last start of its request; the
# duration is positive and agrees with the trace timestamps of the two
# lines (taken a few instructions after the program's clock reads, so
# within 0.5 ms). Prints the number of durations.
pairs() {
	awk '
	function stamp(i) {
		for (i = 2; i <= NF; i++)
			if ($i == "bpf_trace_printk:")
				return substr($(i - 1), 1, length($(i - 1)) - 1) + 0
		return -1
	}
	function rq() { match($0, /rq=0x[0-9a-f]+/); return substr($0, RSTART + 3, RLENGTH - 3) }
	/ blk_mq_start_request\(rq=/ { start[rq()] = stamp(); next }
	/\(rq=0x[0-9a-f]+\) is called!/ { r = rq()
		if (!(r in start)) { print "no start for " r > "/dev/stderr"; bad = 1 }
		gap = (stamp() - start[r]) * 1e9; delete start[r]; need = 1; next }
	/time duration:/ { d = $(NF - 1)
		if (!need || d <= 0 || d - gap > 500000 || gap - d > 500000) {
			print "bad duration: " $0 " (lines " gap " ns apart)" > "/dev/stderr"; bad = 1 }
		need = 0; n++ }
	END { print n + 0; exit bad }' "$1"
}

# events FILE N: the Nth number of the Events line (rq_start, rq_done)
events() {
	sed -n 's/^Events: rq_start \([0-9]*\), rq_done \([0-9]*\)$/\'"$2"'/p' "$1"
}

for door in $TEST_DOORS raw_tp; do
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
	ok $? "$t: every end matches its start; duration > 0, as the lines' timestamps"
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
	is "$end" "$st" "$t: buffered write: every started request ends once"
	check "$t: buffered write: nothing lost" grep -qx "Lost: none" "$T_TMP/out"
done
done_testing
