#!/bin/sh
# Stage 00: tracex3's histogram counts every request the test issued.
. "$(dirname "$0")/lib.sh"
S=$ROOT/stage00_tracex3/tracex3
need_bin "$S"
need_bin "$BIN/bio_io"
need_root
scratch_dev || skip_all "cannot make a scratch block device"

"$S" -i 0 >/dev/null 2>"$T_TMP/usage.err"
is "$?" 2 "tracex3 -i 0: usage error, exit 2"
is "$(wc -l <"$T_TMP/usage.err" | tr -d ' ')" 2 "usage error: one line and the --help hint"

# rows FILE: the sum of the "# N" ends of the heat-map rows
rows() {
	awk '/^[0-9][0-9]:[0-9][0-9]:[0-9][0-9] \|.*\| # [0-9]+$/ { n++; s += $NF }
	END { print (n ? s : "none") }' "$1"
}

# bars FILE WHICH: the sum of the count column of the bar histograms,
# "interval" ones (-b) or the "summary" one after "All requests:"
bars() {
	awk -v which="$2" '
	/^All requests:$/ { part = "summary" }
	/^ *[0-9]+ -> [0-9]+ +: [0-9]+ +\|/ {
		if ((part == "summary") == (which == "summary")) { n++; s += $5 } }
	END { print (n ? s : "none") }' "$1"
}

# below FILE US: summary counts in slots that end below US microseconds
below() {
	awk -v us="$2" '/^All requests:$/ { part = 1 }
	part && /^ *[0-9]+ -> [0-9]+ +: [0-9]+ +\|/ && $3 < us + 0 { s += $5 }
	END { print s + 0 }' "$1"
}

events() {	# events FILE: request ends the BPF side counted
	sed -n 's/^Events: rq_start [0-9]*, rq_done \([0-9]*\)$/\1/p' "$1"
}

for door in $TEST_DOORS; do
	t="stage00 [$door]"
	if ! why=$(door_ok "$S" "$door"); then
		skip "$t" "$why"
		continue
	fi
	# 6 reads and 2 writes, one request each, with a row boundary between
	start "$S" -a "$door" -d "$DEV" -i 1 || { ok 1 "$t: starts"; continue; }
	io "/dev/$DEV" 0 8 16 24 100 2048
	sleep 1
	io -w "/dev/$DEV" 4000 5000
	stop
	is "$TRC" 0 "$t: exits 0 on Ctrl-C"
	# the door lines name what it listens at: the header names the same
	first=$(sed -n 's|^rq_start: [a-z_]* door, [a-z_]*/\([A-Za-z0-9_]*\).*|\1|p' "$T_TMP/err")
	last=$(sed -n 's|^rq_done: [a-z_]* door, [a-z_]*/\([A-Za-z0-9_]*\).*|\1|p' "$T_TMP/err")
	check "$t: names the request start and end it probes (${first:-none} -> ${last:-none})" \
		grep -q "^Request latency: ${first:-none} -> ${last:-none}, " "$T_TMP/out"
	is "$(rows "$T_TMP/out")" 8 "$t: heat-map rows add up to the 8 issued I/Os"
	is "$(bars "$T_TMP/out" summary)" 8 "$t: summary histogram adds up to 8"
	is "$(events "$T_TMP/out")" 8 "$t: 8 request ends counted"
	check "$t: plain rows when stdout is not a terminal" \
		sh -c "! grep -q \"$(printf '\033')\" '$T_TMP/out'"
	check "$t: nothing lost" nothing_lost "$T_TMP/out"
	# A device whose every I/O takes TEST_SLOW_NS: no request below it.
	if [ -n "$TEST_DEV" ] && [ -n "$TEST_SLOW_NS" ]; then
		is "$(below "$T_TMP/out" $((TEST_SLOW_NS / 1000)))" 0 \
			"$t: no request faster than the device's $TEST_SLOW_NS ns"
	fi

	# -b: a bar histogram per interval instead of a row
	start "$S" -a "$door" -d "$DEV" -b || { ok 1 "$t: starts (-b)"; continue; }
	io "/dev/$DEV" 0 8 16
	stop
	is "$(bars "$T_TMP/out" interval)" 3 "$t: -b: interval histograms add up to 3 I/Os"
	is "$(bars "$T_TMP/out" summary)" 3 "$t: -b: summary adds up to 3"
done
done_testing
