#!/bin/sh
# Stage 10's offline views: ctracer --json and --html for one O_DIRECT
# read of a known sector, through the tracepoint door (every kernel has
# it). The JSON must parse and hold that bio's events; the page must
# render in headless Chromium with the bio's functions in the order the
# terminal tree printed them, and its screenshot must not be blank.
. "$(dirname "$0")/lib.sh"
S=$ROOT/stage10_class_trace/ctracer
need_bin "$S"
need_bin "$BIN/bio_io"
need_root
scratch_dev || skip_all "cannot make a scratch block device"

SECTOR=2048
J=$T_TMP/bios.json
H=$T_TMP/bios.html
t="stage10 views"

# bad input: one line, a non-zero exit
"$S" -a tracepoint --json /nonexistent/dir/x.json --duration 0.1 >/dev/null 2>"$T_TMP/bad.err"
rc=$?
check "$t: an unwritable --json file exits non-zero (rc $rc)" test "$rc" -ne 0
is "$(wc -l <"$T_TMP/bad.err")" 1 "$t: ... with one line: $(cat "$T_TMP/bad.err")"

start "$S" -a tracepoint -d "$DEV" -s $SECTOR --json "$J" --html "$H" ||
	skip_all "ctracer did not start: $(cat "$T_TMP/err")"
io "/dev/$DEV" $SECTOR
stop
is "$TRC" 0 "$t: exits 0 on Ctrl-C"
cp "$T_TMP/out" "$T_TMP/tree"
# The terminal tree of the bio at SECTOR: its functions, in order.
fns=$(awk -v sec="$SECTOR" '
	/^bio 0x/ { want = 0; first = 1; next }
	/^ +[0-9]+\.[0-9]+ us / {
		if (first && $0 ~ ("sector=" sec " ")) want = 1
		first = 0
		if (want) { p = $6; sub(/\(.*/, "", p); printf "%s ", p }
	}' "$T_TMP/tree")
check "$t: the tree shows the bio at sector $SECTOR (${fns:-nothing})" test -n "$fns"
bio=$(awk -v sec="$SECTOR" '/^bio 0x/ { b = $2; sub(/:$/, "", b); next }
	$0 ~ ("sector=" sec " ") { print b; exit }' "$T_TMP/tree")

# --- JSON: parses, and holds the bio's events in its own track
if command -v python3 >/dev/null 2>&1; then
	python3 -m json.tool "$J" >/dev/null 2>"$T_TMP/json.err"
	ok $? "$t: --json parses (python3 -m json.tool)"
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
	ok $? "$t: --json parses (jq)"
	got=$(jq -r --arg b "bio $bio " '.traceEvents as $ev
		| ([$ev[] | select(.ph == "M" and .name == "thread_name"
			and (.args.name | startswith($b))) | .tid][0]) as $tid
		| [$ev[] | select(.tid == $tid and (.ph == "X" or .ph == "i")) | .name] | join(" ")' "$J")
else
	skip "$t: --json parses" "neither python3 nor jq here"
	got=skip
fi
# its btt phases, as the terminal's "btt:" line names them
phases=$(awk '/^  btt: / { for (i = 2; i < NF; i += 3) printf "%s ", $i; exit }' "$T_TMP/tree")
check "$t: the tree says where the bio's time went (btt: ${phases:-none})" test -n "$phases"
if [ "$got" != skip ]; then
	is "$got " "${fns}btt " "$t: --json: the bio's track has its events, in order, then its btt phases"
	if command -v python3 >/dev/null 2>&1; then
		is "$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(" ".join(e["args"]) for e in d["traceEvents"] if e["name"] == "btt"))
' "$J") " "$phases" "$t: --json: the btt event's phases, the terminal's"
	fi
fi

# --- HTML: renders in headless Chromium
if ! chrome_find; then
	skip "$t: --html renders" "no chromium here (Debian: apt-get install chromium)"
	done_testing
	exit 0
fi
check "$t: --html is one self-contained page (no http:, no src=, no link)" \
	sh -c "! grep -Eiq 'https?:|src=|<link' '$H'"
chrome --dump-dom "file://$H" >"$T_TMP/dom"
ok $? "$t: $CHROME --dump-dom loads the page"
# The function cells of the bio's <details data-sector=SECTOR>, in order.
dom_fns=$(sed 's/<details/\n<details/g' "$T_TMP/dom" |
	grep "data-sector=\"$SECTOR\"" | grep -o '<td class="fn"[^>]*>[^<]*</td>' |
	sed 's/<[^>]*>//g; s/(.*//' | tr '\n' ' ')
is "$dom_fns" "$fns" "$t: the page shows the bio's functions in order"
check "$t: the page names the bio" grep -q "$bio" "$T_TMP/dom"

chrome --window-size=1200,800 --screenshot="$T_TMP/page.png" "file://$H" >/dev/null
check "$t: a screenshot is taken" test -s "$T_TMP/page.png"
# Not blank: a white page has one colour, the rendered tables and bars dozens.
not_blank "$t: the screenshot is not blank" "$T_TMP/page.png"
done_testing
