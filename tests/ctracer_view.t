#!/bin/sh
# ctracer's offline views: ctracer --trace-json and --html for three
# O_DIRECT I/Os at known sectors (a read, a write, a bigger read), through
# the tracepoint door (every kernel has it). The JSON must parse and hold
# the read's events. The page must render in headless Chromium, read from
# its DOM after its script ran (tests/helpers/page_dom.py): an overview
# bar for every bio the terminal tree printed, coloured by op, on one
# time axis with tick labels, in the order the I/Os were made and as long
# as the tree says; a key; the read's functions in the tree's order, its
# btt phases coloured with the tree's values and each row's duration the
# time to its next event (this door has no returns); a bar's link opens
# its bio; and the screenshot must not be blank.
. "$(dirname "$0")/lib.sh"
S=$ROOT/tools/ctracer/ctracer
need_bin "$S"
need_bin "$BIN/bio_io"
need_root
scratch_dev || skip_all "cannot make a scratch block device"

SECTOR=2048		# the read the checks follow
WSECTOR=4096		# a write
BSECTOR=8192		# a 64 KiB read
J=$T_TMP/bios.json
H=$T_TMP/bios.html
t="ctracer views"

# bad input: one line, a non-zero exit
"$S" -a tracepoint --trace-json /nonexistent/dir/x.json --duration 0.1 >/dev/null 2>"$T_TMP/bad.err"
rc=$?
check "$t: an unwritable --trace-json file exits non-zero (rc $rc)" test "$rc" -ne 0
is "$(wc -l <"$T_TMP/bad.err")" 1 "$t: ... with one line: $(cat "$T_TMP/bad.err")"

start "$S" -a tracepoint -d "$DEV" -s $SECTOR-$BSECTOR --trace-json "$J" --html "$H" ||
	skip_all "ctracer did not start: $(cat "$T_TMP/err")"
# one after the other: each bio_io waits for its I/O
io "/dev/$DEV" $SECTOR
io -w "/dev/$DEV" $WSECTOR
io -s 65536 "/dev/$DEV" $BSECTOR
stop
is "$TRC" 0 "$t: exits 0 on Ctrl-C"
cp "$T_TMP/out" "$T_TMP/tree"
# The terminal tree of the bio at SECTOR (its header to its btt: line).
awk -v sec="$SECTOR" '
	/^bio 0x/ { hdr = $0; first = 1; want = 0; next }
	/^$/ { want = 0 }
	first && /^ +[0-9]+\.[0-9]+ us / {
		first = 0
		want = $0 ~ ("sector=" sec " ")
		if (want) print hdr
	}
	want' "$T_TMP/tree" >"$T_TMP/read.tree"
# its functions, in order
fns=$(awk '/^ +[0-9]+\.[0-9]+ us / { p = $6; sub(/\(.*/, "", p); printf "%s ", p }' \
	"$T_TMP/read.tree")
check "$t: the tree shows the bio at sector $SECTOR (${fns:-nothing})" test -n "$fns"
bio=$(awk '/^bio 0x/ { b = $2; sub(/:$/, "", b); print b; exit }' "$T_TMP/read.tree")

# --- JSON: parses, and holds the bio's events in its own track
if command -v python3 >/dev/null 2>&1; then
	python3 -m json.tool "$J" >/dev/null 2>"$T_TMP/json.err"
	ok $? "$t: --trace-json parses (python3 -m json.tool)"
	got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
tid = [e["tid"] for e in ev if e.get("ph") == "M" and e["name"] == "thread_name"
       and e["args"]["name"].startswith(sys.argv[2] + " ")]
print(" ".join(e["name"] for e in ev if tid and e.get("tid") == tid[0] and e["ph"] in "Xi"))
' "$J" "bio $bio")
elif command -v jq >/dev/null 2>&1; then
	jq empty "$J" 2>"$T_TMP/json.err"
	ok $? "$t: --trace-json parses (jq)"
	got=$(jq -r --arg b "bio $bio " '.traceEvents as $ev
		| ([$ev[] | select(.ph == "M" and .name == "thread_name"
			and (.args.name | startswith($b))) | .tid][0]) as $tid
		| [$ev[] | select(.tid == $tid and (.ph == "X" or .ph == "i")) | .name] | join(" ")' "$J")
else
	skip "$t: --trace-json parses" "neither python3 nor jq here"
	got=skip
fi
# its btt phases, as the terminal's "btt:" line names them
phases=$(awk '/^  btt: / { for (i = 2; i < NF; i += 3) printf "%s ", $i; exit }' \
	"$T_TMP/read.tree")
check "$t: the tree says where the bio's time went (btt: ${phases:-none})" test -n "$phases"
if [ "$got" != skip ]; then
	is "$got " "${fns}btt " "$t: --trace-json: the bio's track has its events, in order, then its btt phases"
	if command -v python3 >/dev/null 2>&1; then
		is "$(python3 -c '
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
tid = [e["tid"] for e in ev if e.get("ph") == "M" and e["name"] == "thread_name"
       and e["args"]["name"].startswith(sys.argv[2] + " ")]
print(" ".join(" ".join(e["args"]) for e in ev if e["name"] == "btt" and tid
               and e["tid"] == tid[0]))
' "$J" "bio $bio") " "$phases" "$t: --trace-json: the btt event's phases, the terminal's"
	fi
fi

# has_all GOT WANT: WANT has lines, and each is a line of GOT.
has_all() {
	test -s "$2" && awk 'FILENAME == ARGV[1] { got[$0] = 1; next }
		!($0 in got) { print "#   missing: " $0; bad = 1 } END { exit bad }' "$1" "$2"
}

# page_checks: what the page shows ($T_TMP/dom, page_dom.py's facts)
# against the terminal's tree and the I/Os this test made.
page_checks() {
	if ! command -v python3 >/dev/null 2>&1; then
		skip "$t: the page's overview, key and durations" "needs python3 to read the DOM"
		return 0
	fi
	python3 "$ROOT/tests/helpers/page_dom.py" "$T_TMP/dom" >"$T_TMP/facts" 2>"$T_TMP/py.err"
	ok $? "$t: the rendered page's DOM reads (page_dom.py)"
	F=$T_TMP/facts
	n=$(grep -c '^bio 0x' "$T_TMP/tree")
	is "$(grep -c '^bar ' "$F") $(grep -c '^bio ' "$F")" "$n $n" \
		"$t: the overview has a bar, the page a section, for each of the tree's $n bios"
	awk -v a=$SECTOR -v b=$WSECTOR -v c=$BSECTOR '$1 == "bar" &&
		($3 == a || $3 == b || $3 == c) { print $3 ":" $4 }' "$F" | sort -n >"$T_TMP/ops"
	is "$(tr '\n' ' ' <"$T_TMP/ops")" "$SECTOR:read $WSECTOR:write $BSECTOR:read " \
		"$t: ... among them the test's three I/Os, coloured by op"
	# each bio's span in the tree's header ("4 events in 43.314 us"), by sector
	awk '/^bio 0x/ { span = $6; first = 1; next }
		first && /^ +[0-9]+\.[0-9]+ us / { first = 0
			if (match($0, /sector=[0-9]+ /))
				print substr($0, RSTART + 7, RLENGTH - 8), span }' \
		"$T_TMP/tree" >"$T_TMP/spans"
	# one axis: the I/Os in the order made, apart, each bar as long as its
	# bio over the run; one scale: each timeline as long as its bio
	check "$t: overview: the I/Os' bars in the order made, each as long as its bio" \
		awk -v a=$SECTOR -v b=$WSECTOR -v c=$BSECTOR '
		NR == FNR { span[$1] = $2; next }
		$1 == "bar" { left[$3] = $5; width[$3] = $6
			if (span[$3] + 0 > 0) { r = $6 / span[$3]
				if (!lo || r < lo) lo = r; if (r > hi) hi = r } }
		$1 == "bar" && (least == "" || $5 < least) { least = $5 }
		END { bad = least != 0 || !(left[a] + width[a] <= left[b]) ||
			!(left[b] + width[b] <= left[c]) || !lo || hi > lo * 1.01
			if (bad) printf "#   bars (left, width %%): %s %s, %s %s, %s %s\n",
				left[a], width[a], left[b], width[b], left[c], width[c]
			exit bad }' "$T_TMP/spans" "$F"
	check "$t: every timeline at one scale: as long as its bio, the longest all of it" \
		awk 'NR == FNR { span[$1] = $2; next }
		$1 == "span" && span[$2] + 0 > 0 { r = $3 / span[$2]; if (!lo || r < lo) lo = r
			if (r > hi) hi = r; if ($3 > max) max = $3 }
		END { exit !lo || hi > lo * 1.01 || max != 100 }' "$T_TMP/spans" "$F"
	sed -n 's/^axis //p' "$F" | tr '|' '\n' >"$T_TMP/ticks"
	check "$t: the overview has a time axis with tick labels ($(tr '\n' ' ' <"$T_TMP/ticks"))" \
		awk 'NR == 1 && !/^0 / { bad = 1 } !/^[0-9.]+ (\302\265s|ms|s)$/ { bad = 1 }
			END { exit bad || NR < 2 }' "$T_TMP/ticks"
	# the read's phases, as coloured, and the tree's btt line
	awk -v s=$SECTOR '$1 == "phase" && $2 == s { printf "%s=%.1f\n", $3, $4 }' "$F" >"$T_TMP/ph"
	awk '/^  btt: / { for (i = 2; i < NF; i += 3) if ($i ~ /^(Q2G|G2I|I2D|D2C)$/)
		printf "%s=%s\n", $i, $(i + 1) }' "$T_TMP/read.tree" >"$T_TMP/ph.want"
	check "$t: the read's timeline colours the tree's phases ($(tr '\n' ' ' <"$T_TMP/ph"))" \
		has_all "$T_TMP/ph" "$T_TMP/ph.want"
	sed -n 's/^key //p' "$F" | tr ' ' '\n' >"$T_TMP/key"
	{ printf '%s\n' read write other; sed 's/=.*//' "$T_TMP/ph"; } >"$T_TMP/key.want"
	check "$t: the key names the ops and the read's phases ($(tr '\n' ' ' <"$T_TMP/key"))" \
		has_all "$T_TMP/key" "$T_TMP/key.want"
	# no return in this door: a row's duration is the time to the bio's next event
	want=$(awk '/^ +[0-9]+\.[0-9]+ us / { t = $1; sub(/\./, "", t); ns[n++] = t + 0 }
		END { for (i = 0; i < n; i++) if (i + 1 < n) { d = ns[i + 1] - ns[i]
			printf "%d.%03d:1 ", int(d / 1000), d % 1000 } else printf "-:0 " }' \
		"$T_TMP/read.tree")
	is "$(awk -v s=$SECTOR '$1 == "dur" && $2 == s { printf "%s:%s ", $3, $4 }' "$F")" "$want" \
		"$t: each of the read's rows lasts until its next event (the tree's times)"
	# a bar links to its bio: the page opens it, marks it, here and above
	k=$(awk -v s=$WSECTOR '$1 == "bar" && $3 == s { print $2; exit }' "$F")
	chrome --dump-dom "file://$H#bio-$k" >"$T_TMP/dom.sel"
	python3 "$ROOT/tests/helpers/page_dom.py" "$T_TMP/dom.sel" >"$T_TMP/facts.sel"
	is "$(grep '^sel ' "$F")|$(grep '^sel ' "$T_TMP/facts.sel") $(awk -v k="$k" \
		'$1 == "bio" && $2 == k { print $3, $4, $5 }' "$T_TMP/facts.sel")" \
		"|sel $k $WSECTOR 1 1" "$t: the write's bar (#bio-$k) opens and marks its bio"
}

# --- HTML: renders in headless Chromium
if ! chrome_find; then
	skip "$t: --html renders" "no chromium here (Debian: apt-get install chromium)"
	done_testing
	exit 0
fi
check "$t: --html is one self-contained page (no http:, src=, <link, url(, @import)" \
	sh -c "! grep -Eiq 'https?:|src=|<link|url\(|@import' '$H'"
chrome --dump-dom "file://$H" >"$T_TMP/dom"
ok $? "$t: $CHROME --dump-dom loads the page"
# The function cells of the bio's <details data-sector=SECTOR>, in order.
dom_fns=$(sed 's/<details/\n<details/g' "$T_TMP/dom" |
	grep "data-sector=\"$SECTOR\"" | grep -o '<td class="fn"[^>]*>[^<]*</td>' |
	sed 's/<[^>]*>//g; s/(.*//' | tr '\n' ' ')
is "$dom_fns" "$fns" "$t: the page shows the bio's functions in order"
check "$t: the page names the bio" grep -q "$bio" "$T_TMP/dom"
page_checks

chrome --window-size=1200,800 --screenshot="$T_TMP/page.png" "file://$H" >/dev/null
check "$t: a screenshot is taken" test -s "$T_TMP/page.png"
# Not blank: a white page has one colour, the rendered tables and bars dozens.
not_blank "$t: the screenshot is not blank" "$T_TMP/page.png"
done_testing
