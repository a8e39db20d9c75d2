#!/bin/sh
# The latency heat map as a picture: tracex3 --heatmap writes a page of
# every interval, scripts/heatmap draws the same page from recorded JSON
# lines (tracex3 --json, or stage 03's bio_trace -j). Ground truth: a
# known number of direct reads on a device of known latency (slow_dev).
# The sums are read from the page with grep and awk, as in the busybox
# VM; the page is rendered in headless Chromium where there is one.
. "$(dirname "$0")/lib.sh"
S=$ROOT/stage00_tracex3/tracex3
S3=$ROOT/stage03_latency_map/bio_trace
HM=$ROOT/scripts/heatmap
need_bin "$S"
need_bin "$S3"
need_bin "$HM"
need_bin "$BIN/bio_io"
need_root
slow_dev || skip_all "cannot make a scratch block device"
t=heatmap
P=$T_TMP/run.html

# cells PAGE: "time slot count" of each heat-map cell, a line each
cells() {
	grep -o '<rect class="cell"[^>]*>' "$1" |
		sed 's/.* data-t="\([^"]*\)" data-slot="\([0-9]*\)" data-count="\([0-9]*\)".*/\1 \2 \3/'
}

# bars PAGE: "slot count" of each bar of the run's histogram
bars() {
	grep -o '<rect class="bar"[^>]*>' "$1" |
		sed 's/.* data-slot="\([0-9]*\)" data-count="\([0-9]*\)".*/\1 \2/'
}

total() {	# total: the sum of stdin's last field
	awk '{ s += $NF } END { print s + 0 }'
}

# busiest: the slot of "time slot count" lines that holds the most
busiest() {
	awk '{ n[$2] += $3 } END { for (s in n) if (n[s] > m) { m = n[s]; b = s }; print b }'
}

# slot_of NS: the log2 slot of microseconds that NS nanoseconds fall in
slot_of() {
	_v=$(($1 / 1000))
	_s=0
	while [ "$_v" -gt 1 ]; do
		_v=$((_v / 2))
		_s=$((_s + 1))
	done
	echo $_s
}

interval_seen() {	# an interval with a count on tracex3's stdout
	grep -q '^{"type":"interval".*"count":[1-9]' "$T_TMP/out"
}

# What every page must be: one file, nothing fetched.
self_contained() {
	test -s "$1" && ! grep -Eiq 'https?:|src=|<link' "$1"
}
page_whole() {	# page_whole PAGE: self-contained, and ends as a page ends
	self_contained "$1" && [ "$(tail -n 1 "$1")" = "</html>" ]
}

# --- bad input: one line, a non-zero exit, before tracing starts
"$S" --heatmap /nonexistent/dir/x.html -d "$DEV" --duration 0.1 >/dev/null 2>"$T_TMP/bad.err"
rc=$?
check "$t: an unwritable --heatmap file exits non-zero (rc $rc)" test "$rc" -ne 0
is "$(wc -l <"$T_TMP/bad.err" | tr -d ' ')" 1 "$t: ... with one line: $(head -n 1 "$T_TMP/bad.err")"
"$HM" "$T_TMP/none.jsonl" 2>"$T_TMP/bad.err"
rc=$?
check "$t: scripts/heatmap on no file exits non-zero (rc $rc)" test "$rc" -ne 0
is "$(wc -l <"$T_TMP/bad.err" | tr -d ' ')" 1 "$t: ... with one line: $(head -n 1 "$T_TMP/bad.err")"
printf 'Events: rq_start 1, rq_done 1\n{"type":"summary"}\n' >"$T_TMP/text.jsonl"
"$HM" "$T_TMP/text.jsonl" 2>"$T_TMP/bad.err"
rc=$?
check "$t: scripts/heatmap on no usable object exits non-zero (rc $rc)" test "$rc" -ne 0
is "$(wc -l <"$T_TMP/bad.err" | tr -d ' ')" 1 "$t: ... with one line: $(head -n 1 "$T_TMP/bad.err")"

# --- values no run records: inf, nan or a huge time, two runs in one file,
# a count of 2^64 - 1 (or -1), a latency beyond a u64. Each is one line
# naming the file's line, exit 1 and no page (they hung, or drew cells
# off the map). timeout bounds a hang so that it fails, not waits forever.
Z10="0,0,0,0,0,0,0,0,0,0"
iv() {	# iv T_S COUNT: an interval of stage 00, COUNT in slot 10
	printf '{"type":"interval","t_s":%s,"count":0,"slots":[%s,%s,%s,%s,0]}\n' \
		"$1" "$Z10" "$2" "$Z10" "$Z10"
}
ev() {	# ev END_NS LATENCY_NS: a latency event of stage 03
	printf '{"type":"latency","bio":"0x1","start_ns":0,"end_ns":%s,"latency_ns":%s}\n' "$1" "$2"
}
while IFS='|' read -r what key lines; do
	eval "$lines" >"$T_TMP/odd.jsonl"
	rm -f "$T_TMP/odd.html"
	timeout 60 "$HM" -o "$T_TMP/odd.html" "$T_TMP/odd.jsonl" 2>"$T_TMP/odd.err"
	is "$?" 1 "$t: $what: exits 1"
	is "$(wc -l <"$T_TMP/odd.err" | tr -d ' ')" 1 "$t: $what: one line: $(head -n 1 "$T_TMP/odd.err")"
	check "$t: $what: the line names the file's line and $key" \
		grep -q "^heatmap: $T_TMP/odd.jsonl:[12]: .*$key.* out of range" "$T_TMP/odd.err"
	check "$t: $what: no page" test ! -e "$T_TMP/odd.html"
done <<'EOF'
t_s inf|t_s|iv 1 3; iv inf 3
t_s nan|t_s|iv 1 3; iv nan 3
t_s 1e300|t_s|iv 1 3; iv 1e300 3
t_s -1|t_s|iv -1 3
intervals out of time order (two runs)|t_s|iv 5 3; iv 1 3
a count of 2^64 - 1|count|iv 1 18446744073709551615
a count of -1|count|iv 1 -1
a count past 2^64|count|iv 1 99999999999999999999
counts adding up past 2^53|count|iv 1 4503599627370496; iv 2 4503599627370497
end_ns inf|end_ns|ev 5000000000 1000; ev inf 1000
end_ns nan|end_ns|ev 5000000000 1000; ev nan 1000
end_ns 1e300|end_ns|ev 5000000000 1000; ev 1e300 1000
latency_ns 1e300|latency_ns|ev 5000000000 1e300
latency_ns -1|latency_ns|ev 5000000000 -1
EOF

# cells_inside PAGE: every cell within the map's frame (the first frame,
# drawn after the cells)
cells_inside() {
	grep -o '<rect class="\(frame\|cell\)"[^>]*>' "$1" | sed 's/"/ /g' | awk '
		{ for (i = 1; i < NF; i++) v[$i] = $(i + 1) }
		$3 == "frame" && !fw { fx = v["x="]; fy = v["y="]; fw = v["width="]; fh = v["height="] }
		$3 == "cell" { n++; x[n] = v["x="]; y[n] = v["y="]; w[n] = v["width="]; h[n] = v["height="] }
		END {
			for (i = 1; i <= n; i++)
				if (x[i] < fx || x[i] + w[i] > fx + fw + 0.01 ||
				    y[i] < fy || y[i] + h[i] > fy + fh + 0.01)
					bad++
			exit !(fw > 0 && n > 0 && !bad)
		}'
}
# what a run can record, at its edges, draws inside the frame
{ ev 5000000000 1000; ev 6500000000 1000000000000000000; } >"$T_TMP/edge.jsonl"
"$HM" -o "$T_TMP/edge.html" "$T_TMP/edge.jsonl" 2>"$T_TMP/edge.err"
is "$?" 0 "$t: a latency of 1e18 ns (beyond the last slot) draws"
is "$(cells "$T_TMP/edge.html" | awk '{ print $2 }' | sort -n | tail -n 1)" 31 \
	"$t: ... in the last slot, as stage 00 counts it"
check "$t: ... inside the map's frame" cells_inside "$T_TMP/edge.html"
{ iv 1 9007199254740991; iv 1000000000 1; } >"$T_TMP/edge.jsonl"
"$HM" -o "$T_TMP/edge.html" "$T_TMP/edge.jsonl" 2>"$T_TMP/edge.err"
is "$?" 0 "$t: 2^53 counts in all, over 1e9 s, draw"
is "$(cells "$T_TMP/edge.html" | awk '{ print $3 }' | sort | tr '\n' ' ')" "1 9007199254740991 " \
	"$t: ... every count in its cell"
check "$t: ... inside the map's frame" cells_inside "$T_TMP/edge.html"

# --- tracex3 --json --heatmap: 6 reads of known latency, in two columns
# or more (the second 3 after an interval that holds some of the first)
if [ -n "$SLOW_ALL" ]; then
	LAT_NS=$SLOW_NS		# every I/O of the device takes this long
elif [ -n "$SLOW_CG" ]; then
	LAT_NS=$((1000000000 / SLOW_IOPS))	# throttled: one read per 1/IOPS s
else
	LAT_NS=0
fi
start "$S" -d "$DEV" -i 1 --json --heatmap "$P" || skip_all "tracex3 did not start"
slow_io "/dev/$DEV" 0 8 16
wait_for 120 interval_seen
ok $? "$t: an interval with the first reads is printed"
slow_io "/dev/$DEV" 1024 1032 1040
stop
is "$TRC" 0 "$t: tracex3 --json --heatmap exits 0 on Ctrl-C"
cp "$T_TMP/out" "$T_TMP/run.jsonl"
done_n=$(sed -n 's/^{"type":"summary".*"rq_done":\([0-9]*\).*/\1/p' "$T_TMP/run.jsonl")
hist_n=$(sed -n 's/^{"type":"hist","count":\([0-9]*\),.*/\1/p' "$T_TMP/run.jsonl")
is "$done_n" 6 "$t: the summary counts the 6 reads (rq_done)"
check "$t: the page is written, one file that fetches nothing" self_contained "$P"
cells "$P" >"$T_TMP/cells"
is "$(total <"$T_TMP/cells")" "$done_n" "$t: the cells add up to rq_done"
is "$(total <"$T_TMP/cells")" "$hist_n" "$t: the cells add up to the hist object's count"
is "$(bars "$P" | total)" "$hist_n" "$t: the bars add up to it too"
cols=$(awk '{ print $1 }' "$T_TMP/cells" | sort -u | wc -l | tr -d ' ')
check "$t: the reads fill more than one column ($cols)" test "$cols" -ge 2
check "$t: the axes are labelled, the slots in units" \
	sh -c "grep -q 'time since the start (s)' '$P' && grep -q 'latency (log2 slots)' '$P' &&
		grep -Eq '>[0-9]+(us|ms|s)</text>' '$P'"
if [ "$LAT_NS" -gt 0 ]; then
	want=$(slot_of "$LAT_NS")
	got=$(busiest <"$T_TMP/cells")
	check "$t: most requests are in slot ${got:-none}: the one of $LAT_NS ns ($want) or the next" \
		test "${got:-0}" -eq "$want" -o "${got:-0}" -eq $((want + 1))
else
	skip "$t: the busiest slot holds the known latency" "no device of known latency here"
fi

# --- scripts/heatmap on those JSON lines: the same cells
"$HM" -o "$T_TMP/redrawn.html" "$T_TMP/run.jsonl" 2>"$T_TMP/hm.err"
ok $? "$t: scripts/heatmap draws the recorded run"
check "$t: ... one file that fetches nothing" self_contained "$T_TMP/redrawn.html"
cells "$T_TMP/redrawn.html" >"$T_TMP/cells2"
is "$(total <"$T_TMP/cells2")" "$done_n" "$t: ... whose cells add up to rq_done"
check "$t: ... the same cells as tracex3's page" cmp -s "$T_TMP/cells" "$T_TMP/cells2"

# --- -q: no rows, still the page
start "$S" -q -d "$DEV" --heatmap "$T_TMP/quiet.html" || skip_all "tracex3 -q did not start"
io "/dev/$DEV" 64 72 80
stop
is "$TRC" 0 "$t: tracex3 -q --heatmap exits 0"
done_q=$(sed -n 's/^Events: rq_start [0-9]*, rq_done \([0-9]*\)$/\1/p' "$T_TMP/out")
is "$done_q" 3 "$t: -q: 3 reads counted"
is "$(cells "$T_TMP/quiet.html" | total)" "$done_q" "$t: -q: the page's cells add up to them"

# --- ways out keep the page whole: SIGHUP ends the run as Ctrl-C does
start "$S" -d "$DEV" --heatmap "$T_TMP/hup.html" || skip_all "tracex3 did not start"
io "/dev/$DEV" 96 104 112 120
kill -HUP $TPID
wait $TPID
is "$?" 0 "$t: SIGHUP: exit 0"
check "$t: SIGHUP: the summary printed" grep -q '^Events: rq_start [0-9]*, rq_done 4$' "$T_TMP/out"
check "$t: SIGHUP: the page is whole" page_whole "$T_TMP/hup.html"
is "$(cells "$T_TMP/hup.html" | total)" 4 "$t: SIGHUP: its cells add up to the 4 reads"
# stdout closed: the page is opened as fd 1; the screen output must not
# land in it
( "$S" -d "$DEV" --duration 0.5 --heatmap "$T_TMP/closed.html" >&- 2>"$T_TMP/closed.err" )
is "$?" 0 "$t: stdout closed (>&-): exit 0"
check "$t: stdout closed: the page is whole" page_whole "$T_TMP/closed.html"
check "$t: stdout closed: no screen output in it" \
	sh -c "! grep -q '^Request latency\|^Events:\|^Lost:' '$T_TMP/closed.html'"

# --- stage 03's JSON lines: latency events in columns of -i seconds
start "$S3" -j -d "$DEV" || skip_all "stage 03 did not start"
io "/dev/$DEV" 128 136 144 152 160
stop
cp "$T_TMP/out" "$T_TMP/s03.jsonl"
lat=$(grep -c '^{"type":"latency",' "$T_TMP/s03.jsonl")
is "$lat" 5 "$t: stage 03 -j prints a latency event per read"
"$HM" -i 0.5 -o "$T_TMP/s03.html" "$T_TMP/s03.jsonl" 2>"$T_TMP/hm.err"
ok $? "$t: scripts/heatmap draws stage 03's events"
is "$(cells "$T_TMP/s03.html" | total)" "$lat" "$t: ... whose cells add up to the latency events"

# --- the page in headless Chromium
if ! chrome_find; then
	skip "$t: the page renders" "no chromium here (Debian: apt-get install chromium)"
	done_testing
	exit 0
fi
chrome --dump-dom "file://$P" >"$T_TMP/dom"
ok $? "$t: $CHROME --dump-dom loads the page"
check "$t: the DOM has the time axis in seconds" grep -q 'time since the start (s)' "$T_TMP/dom"
check "$t: the DOM has the latency axis, its slots in units" \
	sh -c "grep -q 'latency (log2 slots)' '$T_TMP/dom' && grep -Eq '>[0-9]+(us|ms|s)</text>' '$T_TMP/dom'"
is "$(cells "$T_TMP/dom" | total)" "$done_n" "$t: the DOM's cells add up to rq_done"
chrome --window-size=1000,1000 --screenshot="$T_TMP/page.png" "file://$P" >/dev/null
check "$t: a screenshot is taken" test -s "$T_TMP/page.png"
not_blank "$t: the screenshot is not blank" "$T_TMP/page.png"
done_testing
