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
if [ "$got" != skip ]; then
	is "$got " "$fns" "$t: --json: the bio's track has its events, in order"
fi

# --- HTML: renders in headless Chromium
CHROME=
for c in chromium chromium-browser google-chrome; do
	command -v $c >/dev/null 2>&1 && CHROME=$c && break
done
if [ -z "$CHROME" ]; then
	skip "$t: --html renders" "no chromium here (Debian: apt-get install chromium)"
	done_testing
	exit 0
fi
check "$t: --html is one self-contained page (no http:, no src=, no link)" \
	sh -c "! grep -Eiq 'https?:|src=|<link' '$H'"
# Its own profile directory: another Chromium may be running.
chrome() {
	timeout 300 "$CHROME" --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$T_TMP/chrome" "$@" 2>>"$T_TMP/chrome.err"
}
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
# Not blank: decode the PNG (zlib, then each row's filter) and count its
# colours; a white page has one, the rendered tables and bars dozens.
if command -v python3 >/dev/null 2>&1 && [ -s "$T_TMP/page.png" ]; then
	colours=$(python3 -c '
import struct, sys, zlib
b = open(sys.argv[1], "rb").read()
assert b[:8] == b"\x89PNG\r\n\x1a\n"
pos, idat = 8, b""
while pos < len(b):
    n, kind = struct.unpack(">I4s", b[pos:pos + 8])
    data = b[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", data[:10])
    elif kind == b"IDAT":
        idat += data
    pos += 12 + n
assert depth == 8 and ctype in (2, 6), (depth, ctype)
bpp = 3 if ctype == 2 else 4
raw, stride = zlib.decompress(idat), w * bpp
prev, seen, i = bytearray(stride), set(), 0
for y in range(h):
    f, row = raw[i], bytearray(raw[i + 1:i + 1 + stride])
    i += 1 + stride
    for x in range(stride):
        a = row[x - bpp] if x >= bpp else 0
        up = prev[x]
        c = prev[x - bpp] if x >= bpp else 0
        if f == 1:
            row[x] = (row[x] + a) & 255
        elif f == 2:
            row[x] = (row[x] + up) & 255
        elif f == 3:
            row[x] = (row[x] + (a + up) // 2) & 255
        elif f == 4:
            p = a + up - c
            pa, pb, pc = abs(p - a), abs(p - up), abs(p - c)
            row[x] = (row[x] + (a if pa <= pb and pa <= pc else up if pb <= pc else c)) & 255
    for x in range(0, stride, bpp):
        seen.add(bytes(row[x:x + 3]))
    prev = row
print(len(seen))
' "$T_TMP/page.png" 2>"$T_TMP/png.err")
	check "$t: the screenshot is not blank (${colours:-?} colours)" test "${colours:-0}" -gt 16
	[ -s "$T_TMP/png.err" ] && sed 's/^/#   /' "$T_TMP/png.err"
else
	skip "$t: the screenshot is not blank" "needs python3 to decode the PNG"
fi
done_testing
