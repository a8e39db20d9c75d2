#!/bin/sh
# tools/iofollow: sampled write() and read() calls followed from the
# page cache to the disk and back, against ground truth this test makes:
# a writer it starts (its PID) writes pages at known offsets of a new
# file on a fresh ext4 and fsyncs. Each followed page's bio sector is
# that page's sector by FIEMAP (plus the partition's start), its request
# covers that sector, the hops are in time order up to the fsync() that
# waited, and the writes followed are the writes sampled: every one
# (-s 1), then 1 in 3 (numbers 1, 4, 7, 10). A second writer of the same
# name runs beside it and must not show (-p). Then the text output and
# its waterfalls (-c), 1 MiB writes (large folios, split bios), a write
# never fsynced (said apart at exit), SIGTERM, and a cold read (-r): the
# pages mincore() showed missing are the pages followed, at their
# FIEMAP sectors. Tracepoint door only.
. "$(dirname "$0")/lib.sh"
S=$ROOT/tools/iofollow/iofollow
need_bin "$S"
need_bin "$BIN/file_sector"
need_bin "$BIN/pc_reader"

# Usage errors: one line naming the problem, exit 2, before any BPF.
bad "--sample 0" "--sample needs a positive number, not '0'" --sample 0
bad "-s x" "--sample needs a positive number, not 'x'" -s x
bad "-c of 16 characters" "COMM must be 1 to 15 characters" -c abcdefghijklmnop
bad "-p abc" "PID must be a positive number, not 'abc'" -p abc
bad "-q --trace-json" "-q sends no events: nothing for --trace-json" -q --trace-json "$T_TMP/q.json"

need_root
"$S" -a tracepoint --trace-json /nonexistent/dir/t.json --duration 0.1 >/dev/null 2>"$T_TMP/err"
is "$? $(cat "$T_TMP/err")" "1 iofollow: cannot create /nonexistent/dir/t.json: No such file or directory" \
	"--trace-json into a missing directory: exit 1, one line"
tracepoint_only iofollow tool
scratch_fs || skip_all "no real filesystem (set TEST_FS_DIR, or install e2fsprogs)"
# fe_physical is from the filesystem's own device: add its partition's start
PART_START=$FS_PART_START
PAGE=$(($(page_kb) * 1024))
[ "$PAGE" -gt 0 ] || skip_all "cannot tell the page size (pc_reader -m)"
# The writers: shape_io under a name of its own (the task's comm), so
# -c can name them. Each pwrite() is a block, then one fsync() (pages;
# dirty: none); they print nothing, so their only write calls are the
# test's.
W=$T_TMP/iofw
cp "$BIN/shape_io" "$W" || skip_all "cannot copy shape_io"
mkfifo "$T_TMP/gate" "$T_TMP/gate2" || skip_all "cannot make FIFOs"
SEEK=5	# the first page written: pages SEEK .. SEEK + NW - 1

# balanced TAG: the summary object says nothing lost, nothing unlinked
# (else it is shown). A program run the kernel skipped as recursion
# (one program entered again on its CPU; seen once in the VM on 7.2) is
# counted and passes here: the samples' own checks say whether it cost
# one of them a hop.
balanced() {
	if grep -Eq '^\{"type":"summary",.*"unlinked":0,.*"lost":\{("recursion_missed":[0-9]+)?\}\}$' \
		"$T_TMP/out"; then
		grep -q '"recursion_missed"' "$T_TMP/out" &&
			diag "$1: $(grep -o '"lost":{[^}]*}' "$T_TMP/out")"
		ok 0 "$1: nothing lost, nothing unlinked"
	else
		ok 1 "$1: nothing lost, nothing unlinked"
		diag "$1: $(grep '^{"type":"summary"' "$T_TMP/out")"
	fi
}

# summary_counts: "CALLS SAMPLED PRINTED" of the summary object
summary_counts() {
	sed -n 's/^{"type":"summary","calls":\([0-9]*\),"sampled":\([0-9]*\),"printed":\([0-9]*\),.*/\1 \2 \3/p' \
		"$T_TMP/out"
}

# hops FILE: one line per hop of -j's output, "SAMPLE HOP TS FIELDS..."
# (bio_queue: ino index sector; rq_issue: sector bytes)
hops() {
	awk "$JF_AWK"'/^\{"type":"hop"/ {
		h = jf("hop")
		x = h == "bio_queue" ? jf("ino") " " jf("index") " " jf("sector") : \
		    h == "rq_issue" ? jf("sector") " " jf("bytes") : ""
		print jf("sample"), h, jf("ts_ns"), x }' "$1"
}

# write_round TAG N FILE ARGS...: the writer (PID in WPID) writes NW pages
# at SEEK of FILE and fsyncs, a second writer of the same name another
# file, both released once the tracer runs with -s N ARGS (which may
# name $WPID). Returns 1 if the tracer does not start.
write_round() {
	_tag=$1
	_n=$2
	F=$3
	shift 3
	OTHER=$F.other
	gated "$T_TMP/gate" "$W" pages "$F" $SEEK $NW $PAGE &
	WPID=$!
	gated "$T_TMP/gate2" "$W" pages "$OTHER" 1 $NW $PAGE &
	OPID=$!
	eval "set -- $*"
	if ! start "$S" -a tracepoint -s "$_n" "$@"; then
		ok 1 "$_tag: starts"
		echo >"$T_TMP/gate"
		echo >"$T_TMP/gate2"
		wait $WPID $OPID
		return 1
	fi
	echo go >"$T_TMP/gate"
	echo go >"$T_TMP/gate2"
	wait $WPID
	_wrc=$?
	wait $OPID
	# The samples are printed once the fsync() that waited for them
	# returns: wait for them, not for a fixed time.
	wait_for 60 sh -c "test \$(grep -c '$WAIT' '$T_TMP/out') -ge $WANT" ||
		[ "$(cat "$T_TMP/out")" ] || diag "$_tag: no sample printed: $(cat "$T_TMP/err")"
	stop
	is "$_wrc $TRC" "0 0" "$_tag: writer and tracer exit 0"
	INO=$(ls -i "$F" | awk '{ print $1 }')
	OINO=$(ls -i "$OTHER" | awk '{ print $1 }')
	case " $* " in *" -j "*) json_lines "$_tag" "$T_TMP/out" ;; esac
	hops "$T_TMP/out" >"$T_TMP/hops"
	cp "$T_TMP/out" "$T_TMP/out.$_n"
}

# followed_checks TAG IDS: the samples are IDS (the sampled writes'
# numbers), each one page, SEEK + ID - 1, at its FIEMAP sector, in a
# request that covers it, every hop in order; the books balance.
followed_checks() {
	_tag=$1
	_ids=$2
	_got=$(sed -n 's/^{"type":"sample","sample":\([0-9]*\),.*"state":"done".*/\1/p' \
		"$T_TMP/out" | sort -n | tr '\n' ' ')
	is "$_got" "$_ids" "$_tag: followed to the disk and back: writes $_ids"
	[ "$_got" = "$_ids" ] || sed 's/^/#   out: /' "$T_TMP/out" "$T_TMP/err" | head -n 40
	_bad=
	_nsec=0
	for id in $_ids; do
		idx=$((SEEK + id - 1))
		want=$(($("$BIN/file_sector" "$F" $((idx * PAGE))) + PART_START))
		set -- $(awk -v s="$id" '$1 == s && $2 == "bio_queue" { print $4, $5, $6 }' \
			"$T_TMP/hops")
		if [ "$*" != "$INO $idx $want" ]; then
			_bad="$_bad write $id: bio page (ino index sector) '$*', FIEMAP '$INO $idx $want';"
			continue
		fi
		_nsec=$((_nsec + 1))
		set -- $(awk -v s="$id" '$1 == s && $2 == "rq_issue" { print $4, $5 }' "$T_TMP/hops")
		if [ $# -ne 2 ] || [ "$want" -lt "$1" ] ||
		   [ $((want + PAGE / 512)) -gt $(($1 + $2 / 512)) ]; then
			_bad="$_bad write $id: request '$*' does not cover sector $want;"
		fi
	done
	is "$_nsec" "$(echo $_ids | wc -w)" \
		"$_tag: each page's bio sector is its FIEMAP sector (+ partition start $PART_START)"
	is "$_bad" "" "$_tag: each page's request covers its sector"
	# enter <= folio <= return <= bio_queue <= getrq|merge <= issue <= done <= fsync return
	_order=$(awk "$JF_AWK"'
		/^\{"type":"sample"/ { s = jf("sample"); n[s] = 0
			t[s, n[s]++] = jf("enter_ns"); ret[s] = jf("return_ns"); fs[s] = jf("fsync_return_ns") }
		/^\{"type":"hop"/ { s = jf("sample"); h = jf("hop"); t[s, n[s]++] = jf("ts_ns")
			if (h == "folio") t[s, n[s]++] = ret[s] }
		END { for (s in n) {
			if (fs[s] != "") t[s, n[s]++] = fs[s]; else print "sample " s ": no fsync"
			for (i = 1; i < n[s]; i++) if (t[s, i] + 0 < t[s, i - 1] + 0) print "sample " s ": hop " i " early"
			if (n[s] < 8) print "sample " s ": " n[s] " times, not 8" } }' "$T_TMP/out")
	is "$_order" "" "$_tag: enter, folio, return, bio, request, issue, done, fsync in time order"
	check "$_tag: nothing of the other writer (ino $OINO) shows" \
		sh -c "! awk '\$2 == \"bio_queue\" && \$4 == $OINO' '$T_TMP/hops' | grep -q ."
	balanced "$_tag"
}

# trace_checks TAG IDS: $T_TMP/trace.json is Chrome trace events (ph,
# ts, pid, tid; X slices with a dur; every flow id an "s" and an "f",
# each bound to a slice of its thread, s before f), with a call slice for
# each sample of IDS and a flow chain from its folio to its request's end
trace_checks() {
	if ! command -v python3 >/dev/null 2>&1; then
		skip "$1: the trace's events and flows" "no python3 here to read it"
		return
	fi
	python3 - "$T_TMP/trace.json" >"$T_TMP/trace.chk" 2>&1 <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
bad, xs, flows = [], {}, {}
for e in ev:
    ph = e.get("ph")
    if ph not in ("M", "X", "s", "f"):
        bad.append("ph %s" % ph)
    if not isinstance(e.get("pid"), int) or not isinstance(e.get("tid"), int):
        bad.append("pid/tid of %s" % e.get("name"))
    if ph != "M" and not isinstance(e.get("ts"), (int, float)):
        bad.append("ts of %s" % e.get("name"))
    if ph == "X":
        if not isinstance(e.get("dur"), (int, float)) or e["dur"] < 0:
            bad.append("dur of %s" % e.get("name"))
        xs.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"]))
for e in ev:
    if e.get("ph") in ("s", "f"):
        flows.setdefault(e["id"], {})[e["ph"]] = e
        if not any(a <= e["ts"] <= b for a, b in xs.get((e["pid"], e["tid"]), [])):
            bad.append("flow %s: its %s binds to no slice" % (e["id"], e["ph"]))
for i, f in flows.items():
    if sorted(f) != ["f", "s"]:
        bad.append("flow %s has %s" % (i, sorted(f)))
    elif f["s"]["ts"] > f["f"]["ts"]:
        bad.append("flow %s runs backwards" % i)
x = [e for e in ev if e.get("ph") == "X"]
print(" ".join(bad[:4]) or "ok")
print(" ".join(str(s) for s in sorted(e["args"]["sample"] for e in x if " #" in e["name"])))
print(" ".join(str(s) for s in sorted({e["args"]["sample"] for e in x if e["name"] == "request done"})))
PY
	is "$(sed -n 1p "$T_TMP/trace.chk")" ok "$1: trace events with ph, ts, pid, tid; every flow's s and f bound"
	is "$(sed -n 2p "$T_TMP/trace.chk")" "$2" "$1: a call slice per sample"
	is "$(sed -n 3p "$T_TMP/trace.chk")" "$2" "$1: each sample's chain reaches its request's end"
}

# page_checks TAG LABELS: $T_TMP/page.html, opened in headless Chromium,
# shows the three timelines and a line for each sample, named LABELS
page_checks() {
	if ! chrome_find; then
		skip "$1: the page renders" "no chromium here (Debian: apt-get install chromium)"
		return
	fi
	chrome --dump-dom "file://$T_TMP/page.html" >"$T_TMP/dom"
	is "$(grep -o '<text x="4"[^>]*>[a-z ]*</text>' "$T_TMP/dom" | sed 's/.*>\(.*\)<.*/\1/' |
		paste -sd, -)" "page cache,bio,request" "$1: the three timelines"
	is "$(grep -o 'class="label"[^>]*>S[0-9]*<' "$T_TMP/dom" | sed 's/.*>\(S[0-9]*\)<$/\1/' |
		sort -k1.2n | paste -sd' ' -)" "$2" "$1: a sample's name for each"
	is "$(grep -c '<polyline class="path"' "$T_TMP/dom")" "$(echo $2 | wc -w)" \
		"$1: a line through each sample's hops"
	chrome --screenshot="$T_TMP/page.png" --window-size=1200,700 "file://$T_TMP/page.html" \
		>/dev/null
	not_blank "$1: the screenshot shows it" "$T_TMP/page.png"
}

NW=10
WAIT='^{"type":"sample"'
WANT=10
write_round "-s 1 -p [tracepoint]" 1 "$FS_DIR/bwb-fs11a.$$" -j -p '$WPID' \
	--trace-json "$T_TMP/trace.json" --html "$T_TMP/page.html" &&
{
	is "$(summary_counts)" "$NW $NW $NW" \
		"-s 1 [tracepoint]: sampled all $NW of the writer's $NW calls, none of the other's (calls, sampled, printed)"
	followed_checks "-s 1 -p [tracepoint]" "1 2 3 4 5 6 7 8 9 10 "
	trace_checks "--trace-json [tracepoint]" "1 2 3 4 5 6 7 8 9 10"
	page_checks "--html [tracepoint]" "S1 S2 S3 S4 S5 S6 S7 S8 S9 S10"
}

# 1 in 3 of ten: writes 1, 4, 7 and 10, by -p; their pages SEEK + 0, 3, 6, 9
WANT=4
write_round "-s 3 -p [tracepoint]" 3 "$FS_DIR/bwb-fs11b.$$" -j -p '$WPID' &&
{
	is "$(summary_counts)" "$NW 4 4" "-s 3 [tracepoint]: sampled 4 of the writer's $NW calls (calls, sampled, printed)"
	followed_checks "-s 3 -p [tracepoint]" "1 4 7 10 "
}

# The text: one waterfall per sample, hop times in order, the summary.
WAIT='^  waterfall: '
WANT=20
write_round "text -c [tracepoint]" 1 "$FS_DIR/bwb-fs11c.$$" -c iofw &&
{
	# -c names both writers: twenty writes, each a page of its own
	is "$(grep -c '^  waterfall: page cache [0-9.]* us | queued [0-9.]* us | device [0-9.]* us | completing [0-9.]* us$' "$T_TMP/out")" \
		$((2 * NW)) "text -c [tracepoint]: a waterfall for each of both writers' $((2 * NW)) writes"
	# The lines are sorted by time: in the order of the chain if its
	# times are (each sample here has one folio of its own).
	_order=$(awk '/^write\(\) #/ { if (s) print s, o; s = $2; o = "" }
		/^ +[0-9]+\.[0-9]+ us cpu/ { h = $5 " " $6
			if (h == "request new" || $6 == "merge") h = "joined"
			o = o (h ~ /^(folio|bio|request) |^joined$/ ? h : $5) "," }
		END { print s, o }' "$T_TMP/out" | sort -u | awk '{ $1 = ""; print }' | sort -u)
	is "$_order" " write(),folio dirtied,write(),bio queued,joined,request issued,request done,fsync()," \
		"text -c [tracepoint]: each sample's hops: entered, dirtied, returned, queued, request (new or merged), issued, done, fsync()"
	check "text -c [tracepoint]: Sampled: 20 of 20" grep -qx 'Sampled: 20 of 20 write() calls (1 in 1)' "$T_TMP/out"
	check "text -c [tracepoint]: Unlinked: none" grep -qx 'Unlinked: none' "$T_TMP/out"
	check "text -c [tracepoint]: Lost: none" grep -qx 'Lost: none' "$T_TMP/out"
}

# Big writes: 1 MiB each, a large folio or many small ones, bios that
# the device may split (a loop device here takes 1280 KiB at most, so a
# 2 MiB bio is split): every followed page's bio sector is its FIEMAP
# sector, and the request that follows it in its chain covers it.
NW=4
WAIT='^{"type":"sample"'
WANT=4
PAGE0=$PAGE
PAGE=1048576	# write_round's block size
SEEK=1
write_round "1 MiB writes [tracepoint]" 1 "$FS_DIR/bwb-fs11d.$$" -j -p '$WPID' &&
{
	PAGE=$PAGE0
	awk "$JF_AWK"'/^\{"type":"hop"/ && jf("hop") == "bio_queue" { print jf("index"), jf("sector") }' \
		"$T_TMP/out" >"$T_TMP/pages"
	_bad=
	while read -r idx sec; do
		want=$(($("$BIN/file_sector" "$F" $((idx * PAGE))) + PART_START))
		[ "$sec" = "$want" ] || _bad="$_bad page $idx: bio sector $sec, FIEMAP $want;"
	done <"$T_TMP/pages"
	is "$(grep -c '^{"type":"sample",.*"state":"done"' "$T_TMP/out") $(wc -l <"$T_TMP/pages")" \
		"4 $(grep -c '^{"type":"hop",.*"hop":"bio_queue"' "$T_TMP/out")" \
		"1 MiB writes [tracepoint]: all 4 followed to the disk and back"
	check "1 MiB writes [tracepoint]: their pages in bios ($(wc -l <"$T_TMP/pages"), at least 4)" \
		test "$(wc -l <"$T_TMP/pages")" -ge 4
	is "$_bad" "" "1 MiB writes [tracepoint]: each of $(wc -l <"$T_TMP/pages") followed pages' bio sector is its FIEMAP sector"
	_bad=$(awk "$JF_AWK"'/^\{"type":"hop"/ { h = jf("hop") }
		h == "bio_queue" { sec = jf("sector"); end = sec + 8 * '"$PAGE"' / 4096 }
		h == "rq_issue" && (jf("sector") + 0 > sec + 0 || jf("sector") + jf("bytes") / 512 < end) {
			print "sector " sec ": request " jf("sector") "+" jf("bytes") }' "$T_TMP/out")
	is "$_bad" "" "1 MiB writes [tracepoint]: each page's request covers it ($(grep -c '"hop":"split"' "$T_TMP/out") split hops)"
	balanced "1 MiB writes [tracepoint]"
}
PAGE=$PAGE0

# A write with no fsync(): its page stays dirty for a while (30 s by
# default, vm.dirty_expire_centisecs) and the run ends first: said apart.
F=$FS_DIR/bwb-fs11e.$$
gated "$T_TMP/gate" "$W" dirty "$F" 1 1 $PAGE &
WPID=$!
if start "$S" -a tracepoint -s 1 -p $WPID; then
	echo go >"$T_TMP/gate"
	wait $WPID
	stop
	if grep -q '^write() #1 .*, 1 folio followed$' "$T_TMP/out"; then
		skip "no fsync() [tracepoint]: not written back at exit" "written back during the run (a sync elsewhere?)"
	else
		check "no fsync() [tracepoint]: write #1 is printed as not written back at exit" \
			grep -q "^write() #1 by iofw-[0-9]* .*: $PAGE bytes, 1 folio followed, not written back at exit\$" \
			"$T_TMP/out"
		check "no fsync() [tracepoint]: and counted so" \
			grep -qx 'Followed: 1 printed: 0 to the disk and back, 1 not written back at exit, 0 in flight at exit' \
			"$T_TMP/out"
	fi
else
	ok 1 "no fsync() [tracepoint]: starts"
	echo >"$T_TMP/gate"
	wait $WPID
fi

# SIGTERM ends a run like Ctrl-C: the summary printed, exit 0, and no
# program of the tool left loaded (its block_getrq program is the
# workbook's only one).
: >"$T_TMP/term.err"
"$S" -s 1 -c iofw --trace-json "$T_TMP/term.json" --html "$T_TMP/term.html" \
	>"$T_TMP/term.out" 2>"$T_TMP/term.err" &
TPID=$!
if wait_for 120 grep -q "Hit Ctrl-C" "$T_TMP/term.err"; then
	kill -TERM $TPID
	wait $TPID
	is "$?" 0 "SIGTERM [tracepoint]: exits 0"
	check "SIGTERM [tracepoint]: the summary is printed" grep -qx "Lost: none" "$T_TMP/term.out"
	check "SIGTERM [tracepoint]: the trace is complete" sh -c "tail -n 1 '$T_TMP/term.json' | grep -qx ']}'"
	check "SIGTERM [tracepoint]: the page is complete" sh -c "tail -n 1 '$T_TMP/term.html' | grep -qx '</html>'"
	if command -v bpftool >/dev/null 2>&1; then
		# the kernel frees a program after a grace period: wait for it
		check "SIGTERM [tracepoint]: no program left loaded" \
			wait_for 30 sh -c '! bpftool prog show 2>/dev/null | grep -q block_getrq'
	else
		skip "SIGTERM [tracepoint]: no program left loaded" "no bpftool"
	fi
else
	ok 1 "SIGTERM [tracepoint]: starts"
	kill $TPID 2>/dev/null
	wait $TPID
fi

# A cold read: a file of NR pages written and synced, dropped from the
# page cache; the reader (pc_reader, a page per read()) says how many of
# its pages mincore() found resident right before its first read. Every
# read() is sampled: the folios they add (readahead included) are the
# file's NR pages, each once, each in a bio at its FIEMAP sector, and
# every sample whose folios reached the disk is followed to its end.
NR=16
R=$FS_DIR/bwb-fs11r.$$
dd if=/dev/zero of="$R" bs=$PAGE count=$NR 2>/dev/null && sync
"$BIN/pc_reader" -D "$R" >/dev/null
rm -f "$T_TMP/gate"
mkfifo "$T_TMP/gate"
"$BIN/pc_reader" -g "$T_TMP/gate" -v -b $PAGE "$R" >"$T_TMP/reader" 2>&1 &
WPID=$!
if start "$S" -a tracepoint -r -s 1 -j -p $WPID; then
	echo go >"$T_TMP/gate"
	wait $WPID
	_wrc=$?
	wait_for 60 sh -c "grep -q '^{\"type\":\"hop\".*\"hop\":\"rq_complete\"' '$T_TMP/out'"
	stop
	set -- $(pc_residency "$T_TMP/reader")
	is "$_wrc $TRC" "0 0" "-r [tracepoint]: reader and tracer exit 0"
	if [ "$1" != 0 ]; then
		skip "-r [tracepoint]: the pages followed are the pages missing" \
			"$1 of $NR pages resident before the first read (pc_reader -D could not drop them)"
	else
		json_lines "-r [tracepoint]" "$T_TMP/out"
		# the pages of the folios added, from their first page and size
		is "$(awk "$JF_AWK"'/^\{"type":"hop"/ && jf("hop") == "folio" {
				for (i = 0; i < jf("pages"); i++) print jf("index") + i }' "$T_TMP/out" |
			sort -n | paste -sd' ' -)" "$(seq 0 $((NR - 1)) | paste -sd' ' -)" \
			"-r [tracepoint]: the folios added are the file's $NR pages, none resident before, each once"
		hops "$T_TMP/out" >"$T_TMP/hops"
		_n=0
		_bad=
		while read -r s h ts ino idx sec; do
			[ "$h" = bio_queue ] || continue
			_n=$((_n + 1))
			want=$(($("$BIN/file_sector" "$R" $((idx * PAGE))) + PART_START))
			[ "$sec" = "$want" ] || _bad="$_bad page $idx: bio sector $sec, FIEMAP $want;"
		done <"$T_TMP/hops"
		# a folio in a bio: its first page's hop (the reads here are not split)
		is "$(awk '$2 == "bio_queue" { print $5 }' "$T_TMP/hops" | sort -n | paste -sd' ' -)" \
			"$(awk "$JF_AWK"'/^\{"type":"hop"/ && jf("hop") == "folio" { print jf("index") }' \
				"$T_TMP/out" | sort -n | paste -sd' ' -)" \
			"-r [tracepoint]: each folio added reached the disk in a bio ($_n folios)"
		is "$_bad" "" "-r [tracepoint]: each followed folio's bio sector is its FIEMAP sector"
		is "$(awk "$JF_AWK"'/^\{"type":"sample"/ && jf("folios") > 0 && jf("state") != "done"' \
			"$T_TMP/out")" "" "-r [tracepoint]: every sample that added folios is followed to its end"
		balanced "-r [tracepoint]"
	fi
else
	ok 1 "-r [tracepoint]: starts"
	echo >"$T_TMP/gate"
	wait $WPID
fi
rm -f "$FS_DIR"/bwb-fs11?.$$ "$FS_DIR"/bwb-fs11?.$$.other "$R"
done_testing
