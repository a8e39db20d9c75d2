#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The text tells the truth: the README's quickstart runs, every stage
# README has the workbook's sections and a sample run whose lines the
# stage can print, troubleshooting quotes messages our programs print,
# links resolve, and make diff shows each stage adding only its own
# capability (and is what a README quotes of it). Host only: it needs
# the repository and make.
. "$(dirname "$0")/lib.sh"
[ -e "$ROOT/.git" ] || skip_all "host only: needs the git checkout (not in the VM)"
command -v make >/dev/null 2>&1 || skip_all "host only: needs make"
cd "$ROOT" || exit 1

SECTIONS="Goal|Run it|How it works|What changed|Pitfalls|Exercise"

# section FILE TITLE: the lines under "## TITLE" up to the next "## ".
section() {
	awk -v t="$2" '/^## / { on = (substr($0, 4) == t || index(substr($0, 4), t " ") == 1); next }
		on' "$1"
}

# blocks [LANG]: the lines inside fenced blocks of stdin (only ```LANG
# blocks when given).
blocks() {
	awk -v lang="${1:-}" '/^```/ { if (on) on = 0; else on = (lang == "" || $0 == "```" lang); next }
		on'
}

# runs: the bare fenced blocks of stdin whose first line is a command
# ("$ ..."): sample runs, not code or tables.
runs() {
	awk '/^```/ { if (on) on = 0; else { on = ($0 == "```"); first = 1 }; next }
		on && first { first = 0; keep = /^\$ / }
		on && keep'
}

# formats FILE...: one ERE per printable string in the C or sh sources:
# "F re" must match a whole line, "P re" its start. printf conversions
# become number or text patterns; \n at the end of a literal anchors it.
formats() {
	awk '
	function ere(s,   out, c, i, n, conv, full) {
		full = sub(/\\n$/, "", s)
		out = ""
		n = length(s)
		for (i = 1; i <= n; i++) {
			c = substr(s, i, 1)
			if (c == "\\" && i < n) {
				i++
				c = substr(s, i, 1)
				if (c == "n" || c == "t") { out = out "[[:space:]]"; continue }
			} else if (c == "%" && i < n) {
				if (substr(s, i + 1, 1) == "%") { out = out "%"; i++; continue }
				conv = substr(s, i + 1)
				if (match(conv, /^[-+ #0]*[0-9*]*(\.[0-9*]+)?(hh|h|ll|l|z|j|t)?[diuxXcsp]/)) {
					c = substr(conv, RLENGTH, 1)
					i += RLENGTH
					if (c == "s") out = out ".*"
					else if (c == "c") out = out "."
					else if (c == "x" || c == "X" || c == "p") out = out " *(0x)?[0-9a-fA-F]+ *"
					else out = out " *-?[0-9]+ *"
					continue
				}
			}
			if (index("\\.[](){}*+?|^$/", c)) out = out "\\" c
			else out = out c
		}
		return (full ? "F " : "P ") out
	}
	{
		line = $0
		while (match(line, /"([^"\\]|\\.)*"/)) {
			lit = substr(line, RSTART + 1, RLENGTH - 2)
			line = substr(line, RSTART + RLENGTH)
			if (length(lit) >= 4 && lit ~ /[A-Za-z]/)
				print ere(lit)
		}
	}' "$@"
}

# The lines common/doors.c builds from several pieces, and the demo's
# first line (a shell string with nested quotes). Each is checked
# against its source below, so it cannot drift away silently.
DOOR_LINE='^[a-z_0-9]+: (fentry|kprobe|tracepoint) door, (fentry|fexit|kprobe|kretprobe|tp_btf)/[a-z_0-9]+( \+ (fentry|fexit|kprobe|kretprobe|tp_btf)/[a-z_0-9]+)*( \(passed over: .*\))?$'
EVENTS_LINE='^Events:( [a-z_0-9]+ [0-9]+,?)+$'
DEMO_LINE='^demo: stage[0-9][0-9]_[a-z_0-9]+( on /dev/(loop[0-9]+|nullb0): |: a (cold|warm) read of a 4 MiB file on /dev/[a-z_0-9]+$)'
TRACE_PREFIX='^ *.+-[0-9]+ +\[[0-9]+\] [^ ]+ +[0-9]+\.[0-9]+: (bpf_trace_printk|[0-9]+): '
check "the door line is built in common/doors.c" grep -q '"%s: %s door, "' common/doors.c
check "the Events: line is built in common/summary.c" grep -q '"Events:"' common/summary.c
check "the demo line is printed by scripts/demo.sh" grep -q 'echo "demo: ' scripts/demo.sh
check "and by the VM's scripts/vm/guest/demo.sh" grep -q 'echo "demo: ' scripts/vm/guest/demo.sh

# sample_ok STAGE_DIR FILE: every output line in FILE is one the stage
# (its sources, common/) can print; commands ($ ...) and elisions (...)
# pass. Prints the lines that match nothing.
sample_ok() {
	formats "$1"/*.bpf.c >"$T_TMP/bpf.re"
	formats "$1"/*.c common/*.c >"$T_TMP/user.re"
	_bad=0
	while IFS= read -r _l; do
		case "$_l" in
		'$ '* | '...' | '^C' | '') continue ;;
		esac
		printf '%s\n' "$_l" | grep -Eq "$DOOR_LINE|$EVENTS_LINE|$DEMO_LINE" && continue
		if printf '%s\n' "$_l" | grep -Eq "$TRACE_PREFIX"; then
			_m=$(printf '%s\n' "$_l" | sed -E "s/$TRACE_PREFIX//")
			_re="$T_TMP/bpf.re"
		else
			_m=$_l
			_re="$T_TMP/user.re"
		fi
		if ! line_matches "$_m" "$_re"; then
			echo "#   no format prints: $_l"
			_bad=1
		fi
	done <"$2"
	return $_bad
}

# line_matches LINE RE_FILE: LINE matches one of the F/P patterns.
line_matches() {
	while read -r _k _p; do
		case "$_k" in
		F) printf '%s\n' "$1" | grep -Eq -- "^$_p\$" 2>/dev/null && return 0 ;;
		P) printf '%s\n' "$1" | grep -Eq -- "^$_p" 2>/dev/null && return 0 ;;
		esac
	done <"$2"
	return 1
}

# The checker itself: a line no format prints must fail it.
printf '%s\n' '$ sudo make demo STAGE=03' 'Events: submit_bio 3, bio_endio 3' \
	'   dd-1 [000] ...2. 1.000001: bpf_trace_printk: submit_bio() called: 12' >"$T_TMP/good"
sample_ok stage01_submit_bio "$T_TMP/good" >/dev/null
ok $? "sample check accepts stage 01's lines"
printf '%s\n' '   dd-1 [000] ...2. 1.000001: bpf_trace_printk: submit_bio() called: soon' \
	>"$T_TMP/bad"
! sample_ok stage01_submit_bio "$T_TMP/bad" >/dev/null
ok $? "sample check rejects a line stage 01 cannot print"

# --- the quickstart: README's first sh block under "## Quickstart"
section README.md Quickstart | blocks sh | sed 's/#.*//; s/[[:space:]]*$//' | grep . >"$T_TMP/qs"
check "README has a quickstart with commands" test -s "$T_TMP/qs"
while IFS= read -r cmd; do
	case "$cmd" in
	"make test")
		# This test runs inside make test: check the target, do not recurse.
		make -n test 2>/dev/null | grep -q "tests/run.sh"
		ok $? "quickstart '$cmd': the target runs tests/run.sh (this run is it)"
		;;
	"make check")
		# tests/check.t runs the checks: here the target only
		make -n check 2>/dev/null | grep -q "scripts/check"
		ok $? "quickstart '$cmd': the target runs scripts/check (tests/check.t tests it)"
		;;
	"make demo STAGE="*)
		n=${cmd#make demo STAGE=}
		dir=$(ls -d stage"$n"_* 2>/dev/null | head -n 1)
		if [ "$(id -u)" -ne 0 ]; then
			skip "quickstart '$cmd'" "needs root"
			continue
		fi
		need_root
		$cmd >"$T_TMP/demo.out" 2>&1 </dev/null
		ok $? "quickstart '$cmd' exits 0"
		check "quickstart '$cmd': traced something" grep -Eq "$EVENTS_LINE" "$T_TMP/demo.out"
		# build lines aside, one line of each shape (digits and hex alike)
		grep -v '^ *[A-Z-]*  *[a-z/._0-9-]*$' "$T_TMP/demo.out" | grep -v '^make' |
			awk '{ k = $0; gsub(/[0-9a-f]+/, "0", k) } !seen[k]++' >"$T_TMP/demo.lines"
		sample_ok "$dir" "$T_TMP/demo.lines"
		ok $? "quickstart '$cmd': every line is one $dir prints"
		;;
	*)
		ok 1 "quickstart '$cmd': docs.t does not know how to run it"
		;;
	esac
done <"$T_TMP/qs"

# --- every stage: a README with the sections, in the map, a true sample
for dir in stage[0-9][0-9]_*; do
	[ -d "$dir" ] || continue
	n=$(echo "$dir" | sed 's/^stage\([0-9]*\)_.*/\1/')
	check "$dir is in the README's stage map" grep -q "^| \`$dir\` |" README.md
	if [ ! -f "$dir/README.md" ]; then
		skip "$dir/README.md" "not written yet"
		continue
	fi
	missing=$(echo "$SECTIONS" | tr '|' '\n' | while IFS= read -r s; do
		grep -q "^## $s" "$dir/README.md" || printf '%s; ' "$s"
	done)
	is "$missing" "" "$dir/README.md has every section ($SECTIONS)"
	section "$dir/README.md" "Run it" >"$T_TMP/run"
	check "$dir: Run it names the kernel version" grep -Eq "Linux [0-9]+\.[0-9]+" "$T_TMP/run"
	check "$dir: Run it names the door" grep -Eiq "(fentry|kprobe|tracepoint) door" "$T_TMP/run"
	blocks <"$T_TMP/run" >"$T_TMP/sample"
	check "$dir: Run it has a sample run" grep -q '^\$ ' "$T_TMP/sample"
	sample_ok "$dir" "$T_TMP/sample"
	ok $? "$dir: every sample line is one the stage prints"
	# a student's path: everything before the deep dive, read in one sitting
	n=$(awk '/^## Deep dive/ { exit } { n++ } END { print n + 0 }' "$dir/README.md")
	check "$dir: the student's path is $n lines, at most 250 (the rest under ## Deep dive)" \
		test "$n" -le 250
	# the deep dive's runs (bare blocks that start with a command) are
	# lines the stage prints too
	section "$dir/README.md" "Deep dive" | runs >"$T_TMP/sample"
	if [ -s "$T_TMP/sample" ]; then
		sample_ok "$dir" "$T_TMP/sample"
		ok $? "$dir: every line of the deep dive's runs is one the stage prints"
	fi
done

# --- each tool (tools/ctracer): a README whose sample runs are lines
# the tool prints
for dir in tools/*; do
	[ -f "$dir/Makefile" ] || continue
	check "$dir has a README" test -f "$dir/README.md"
	section "$dir/README.md" "Run it" | blocks >"$T_TMP/sample"
	check "$dir: Run it has a sample run" grep -q '^\$ ' "$T_TMP/sample"
	sample_ok "$dir" "$T_TMP/sample"
	ok $? "$dir: every sample line is one the tool prints"
done

# --- troubleshooting quotes real messages (its ```text blocks)
T=docs/troubleshooting.md
if [ -f "$T" ]; then
	blocks text <"$T" >"$T_TMP/msgs"
	check "$T quotes messages" test -s "$T_TMP/msgs"
	formats common/*.c stage*/*.c tools/*/*.c scripts/*.sh >"$T_TMP/all.re"
	bad=0
	while IFS= read -r l; do
		case "$l" in
		'$ '* | '...' | '') continue ;;
		libbpf:*) continue ;;	# libbpf's own, with -v
		esac
		printf '%s\n' "$l" | grep -Eq "$DOOR_LINE" && continue
		line_matches "$l" "$T_TMP/all.re" || { echo "#   not ours: $l"; bad=1; }
	done <"$T_TMP/msgs"
	ok $bad "$T: every quoted message is one our programs print"
else
	skip "$T" "not written yet"
fi

# --- the docs describe the workbook as it is, never its history: no
# issue numbers ("issue 24"), no "part 2", no commit hashes.
# names_history FILE... prints each line that names one, as
# "FILE:LINE: what: text".
# A hash: 7 to 12 lowercase hex digits, a letter and a digit among them,
# standing alone (not in a 0x... number, a longer hex or decimal run or
# an identifier). Fenced blocks (sample output, diffs) are left out.
names_history() {
	awk '/^ *```/ { on = !on; next }
	on { next }
	{
		l = " " $0 " "
		why = ""
		if (l ~ /[^A-Za-z0-9_][Ii]ssues? #?[0-9]/) why = "an issue"
		else if (l ~ /[^A-Za-z0-9_][Pp]arts? [0-9]/) why = "a part"
		else {
			t = l
			gsub(/[^0-9A-Za-z_]+/, " ", t)
			n = split(t, w, " ")
			for (i = 1; i <= n; i++)
				if (length(w[i]) >= 7 && length(w[i]) <= 12 && w[i] !~ /[^0-9a-f]/ &&
				    w[i] ~ /[a-f]/ && w[i] ~ /[0-9]/) { why = "a commit hash (" w[i] ")"; break }
		}
		if (why != "") print FILENAME ":" FNR ": " why ": " $0
	}' "$@"
}
# The checker itself: it catches each of these lines, and none of the
# next file's (hex numbers, sample output, identifiers).
printf '%s\n' 'As issue 24 asked.' 'See drift.md, part 2.' 'Issues 3 and 4.' \
	'all pass (2026-11-26, at 7ebf128)' 'at f44987e,c76fffc' '(cb1b79f; the host)' \
	>"$T_TMP/hist.bad"
names_history "$T_TMP/hist.bad" >"$T_TMP/hist.out"
check "history check: catches issues, parts and commit hashes" \
	test "$(wc -l <"$T_TMP/hist.out")" -eq 6
printf '%s\n' 'a mask of 0xff55aa1234, sector 350499320, 12345678 bytes' \
	'sha256 481ab54a27246579aadeb372315c56de02f2fe0cba4e09b387946269fff2f415' \
	'rq_issue 172, `block_rq_issue_btf` 60, the deadbeef key' 'in three parts, `Lesson#3`' \
	'```' 'all pass (2026-11-26, at 7ebf128)' '```' >"$T_TMP/hist.good"
names_history "$T_TMP/hist.good" >"$T_TMP/hist.out"
sed 's/^/#   caught: /' "$T_TMP/hist.out"
check "history check: passes hex numbers, identifiers and fenced blocks" test ! -s "$T_TMP/hist.out"
for f in README.md docs/*.md solutions/README.md tools/*/README.md bench/*/README.md \
	exercises/README.md stage*/README.md common/*/README.md; do
	[ -f "$f" ] && names_history "$f"
done >"$T_TMP/hist.out" 2>&1
sed 's/^/#   /' "$T_TMP/hist.out"
check "the docs name no issue, part or commit hash (they describe the workbook, not its history)" \
	test ! -s "$T_TMP/hist.out"

# --- relative links in the workbook's Markdown resolve
bad=0
for f in README.md docs/*.md stage*/README.md tools/*/README.md solutions/README.md bench/*/README.md; do
	[ -f "$f" ] || continue
	d=$(dirname "$f")
	for l in $(grep -o '](\([^)#:]*\))' "$f" | sed 's/^](//; s/)$//'); do
		[ -n "$l" ] || continue
		[ -e "$d/$l" ] && continue
		echo "#   $f: broken link $l"
		bad=1
	done
done
ok $bad "relative links in the Markdown files resolve"

# --- make diff: each stage against its base changes only its capability.
# bounds NN prints FILES|LINES|WORD: the files a stage may change, the
# most lines it may add and remove, a word its added lines must contain.
bounds() {
	case "$1" in
	02) echo "bio_trace.bpf.c bio_trace.c|75|bio_endio" ;;
	03) echo "bio_trace.bpf.c bio_trace.c bio_trace.h|120|map" ;;
	04) echo "bio_trace.bpf.c bio_trace.c bio_trace.h|160|max" ;;
	05) echo "bio_trace.bpf.c bio_trace.c bio_trace.h|80|sector" ;;
	06) echo "bio_trace.bpf.c bio_trace.c bio_trace.h|160|stack" ;;
	07) echo "bio_trace.bpf.c bio_trace.c bio_trace.h|170|rq" ;;
	09) echo "pagecache_trace.bpf.c pagecache_trace.c pagecache_trace.h|120|pid" ;;
	esac
}
make -s diff STAGE=01 >"$T_TMP/d" 2>&1
check "make diff STAGE=01 says stage 01 starts a program" grep -q "starts a new program" "$T_TMP/d"
for n in 00 02 03 04 05 06 07 08 09 10; do
	dir=$(ls -d stage"$n"_* 2>/dev/null | head -n 1)
	if [ -z "$dir" ]; then
		skip "make diff STAGE=$n" "stage $n is not in the workbook yet"
		continue
	fi
	make -s diff STAGE="$n" >"$T_TMP/d" 2>&1
	rc=$?
	b=$(bounds "$n")
	if [ -z "$b" ]; then
		is "$rc" 0 "make diff STAGE=$n exits 0"
		check "make diff STAGE=$n says $dir starts a new program" \
			grep -q "starts a new program" "$T_TMP/d"
		continue
	fi
	base=$(scripts/stage-diff.sh --base "$n")
	if [ -z "$base" ]; then
		skip "make diff STAGE=$n" "its base is not in the workbook yet"
		continue
	fi
	is "$rc" 0 "make diff STAGE=$n exits 0"
	files=$(sed -n 's|^+++ [^/]*/||p' "$T_TMP/d" | sort | tr '\n' ' ')
	allowed=${b%%|*}
	max=${b#*|}
	word=${max#*|}
	max=${max%%|*}
	extra=$(for f in $files; do
		case " $allowed " in *" $f "*) ;; *) printf '%s ' "$f" ;; esac
	done)
	is "$extra" "" "make diff STAGE=$n: $dir changes only its sources ($files)"
	lines=$(grep -c '^[-+][^-+]' "$T_TMP/d")
	check "make diff STAGE=$n: $lines changed lines, at most $max" test "$lines" -le "$max"
	check "make diff STAGE=$n: the change is about '$word'" \
		sh -c "grep '^+' '$T_TMP/d' | grep -qi '$word'"
done

# What changed may quote the diff (```diff blocks): every line quoted
# must be one of make diff's, so the quote cannot drift from the code.
for dir in stage[0-9][0-9]_*; do
	[ -f "$dir/README.md" ] || continue
	section "$dir/README.md" "What changed" | blocks diff | grep -vx '\.\.\.' >"$T_TMP/quote"
	[ -s "$T_TMP/quote" ] || continue
	n=$(echo "$dir" | sed 's/^stage\([0-9]*\)_.*/\1/')
	make -s diff STAGE="$n" >"$T_TMP/d" 2>&1
	grep -vxF -f "$T_TMP/d" "$T_TMP/quote" | sed 's/^/#   not in make diff: /'
	check "$dir: What changed quotes make diff STAGE=$n line for line" \
		sh -c "! grep -qvxF -f '$T_TMP/d' '$T_TMP/quote'"
done

# The repository holds sources: a built program checked in goes stale
# with the next change to its source.
git ls-files -z | xargs -0 sh -c 'for f; do
	[ -f "$f" ] && [ "$(head -c 4 "$f" | od -An -c | tr -d " ")" = "177ELF" ] && echo "$f"
done; true' sh >"$T_TMP/elf"
sed 's/^/#   checked in: /' "$T_TMP/elf"
check "no built program is checked in (.gitignore)" test ! -s "$T_TMP/elf"

# The stage map's minimum kernels are docs/kernels.md's measured facts:
# per stage, the oldest kernel of its x86 table on which the stage's
# tests pass in a function door (K, F), then in the tracepoint door (T).
awk '/^<!-- kernels-table -->$/ { on = 1 } /^<!-- \/kernels-table -->$/ { on = 0 }
	on && /^### / { x86 = ($2 == "x86") }
	on && x86 && /^\| test file \|/ { n = split($0, h, "|"); next }
	on && x86 && /^\| stage[0-9][0-9] \|/ {
		split($0, c, "|"); s = c[2]; gsub(/ /, "", s); f = t = "-"
		for (i = 3; i < n; i++) {
			k = h[i]; gsub(/ /, "", k)
			if (f == "-" && c[i] ~ /[KF]/) f = k
			if (t == "-" && c[i] ~ /T/) t = k
		}
		print s, f " · " t
	}' docs/kernels.md | sort >"$T_TMP/measured"
awk -F'|' '/^\| `stage[0-9][0-9]_/ { s = $2; gsub(/[ `]/, "", s); s = substr(s, 1, 7)
	m = $(NF - 1); gsub(/^ +| +$/, "", m); print s, m }' README.md | sort >"$T_TMP/claimed"
check "docs/kernels.md has an x86 row per stage" \
	test "$(wc -l <"$T_TMP/measured")" -eq "$(ls -d "$ROOT"/stage[0-9][0-9]_* | wc -l)"
diff "$T_TMP/measured" "$T_TMP/claimed" | sed -n 's/^[<>]/#   &/p'
check "README's min kernels are docs/kernels.md's (function · tracepoint)" \
	cmp -s "$T_TMP/measured" "$T_TMP/claimed"
done_testing
