#!/bin/sh
# Stage 08: page-cache hits and misses, against a file this test reads
# cold (dropped from the cache, checked with mincore) and then warm.
#
# The page cache is no still pond: reclaim, DAMON's pageout (kdamond) and
# a memory balloon drop idle file pages whenever they like (one host lost
# 14 % of a file's pages 2 s after reading it). So residency is measured
# by the reader itself right before its first read and right after its
# last (pc_reader -v), and the warm read's file is locked in memory
# (pc_reader -L, mlock: unevictable) from before the tracer starts until
# the read is done; the pages the kernel drops during the cold read are
# counted from its own event (mm_filemap_delete_from_page_cache).
. "$(dirname "$0")/lib.sh"
S=$ROOT/stage08_pagecache/pagecache_trace
R=$BIN/pc_reader
need_bin "$S"
need_bin "$R"
need_root
scratch_fs || skip_all "no real filesystem (set TEST_FS_DIR, or install e2fsprogs)"

F=$FS_DIR/bwb-pc08.$$
W=$FS_DIR/bwb-pc08w.$$
dd if=/dev/urandom of="$F" bs=1M count=16 2>/dev/null || skip_all "cannot write $F"
# 16 MiB in the kernel's pages, as mincore() counts them: 4096 of 4 KiB,
# 1024 of 16 KiB (arm64-16k)
PAGES=$("$BIN/pc_reader" -m "$F" | sed -n 's/^resident [0-9]* of \([0-9]*\) pages$/\1/p')
[ "${PAGES:-0}" -gt 0 ] || skip_all "pc_reader -m cannot count the pages of $F"
PAGE_KB=$((16384 / PAGES))
# One readahead window (128 KiB, 32 pages of 4 KiB): the most the
# tracepoint door can misplace when the kernel hands a read a batch
# without an event.
SLACK=$((128 / PAGE_KB))
INO=$(ls -i "$F" | awk '{ print $1 }')

# totals FILE: "TOTAL HIT MISS ADDED" from the summary
# (-j: from the pages object)
totals() {
	sed -n 's/^\[Total \([0-9]*\) Hit \([0-9]*\) miss \([0-9]*\)\]$/\1 \2 \3/p;
		s/^Added \([0-9]*\) pages.*/\1/p;
		s/^{"type":"pages","total":\([0-9]*\),"hit":\([0-9]*\),"miss":\([0-9]*\),"added":\([0-9]*\)}$/\1 \2 \3 \4/p' \
		"$1" | tr '\n' ' '
}

# events FILE: one line per event the tracer printed, text or -j alike:
# "TYPE PID COMM INO FIRST LAST HIT MISS", TYPE lookup or add; an add's
# FIRST..LAST is its folio, its HIT and MISS are "-".
events() {
	awk "$JF_AWK"'
	/^\{"type":"lookup",/ {
		print "lookup", jf("pid"), jf("comm"), jf("ino"), jf("first"), jf("last"), jf("hit"), jf("miss")
		next
	}
	/^\{"type":"add",/ {
		print "add", jf("pid"), jf("comm"), jf("ino"), jf("index"), jf("index") + jf("pages") - 1, "-", "-"
		next
	}
	/-[0-9]+: filemap_(get_pages|add_folio) \(ino=/ {
		task = $0
		sub(/: filemap_.*/, "", task)
		pid = task
		sub(/.*-/, "", pid)
		sub(/-[0-9]+$/, "", task)
		msg = $0
		sub(/.*: filemap_/, "", msg)
		gsub(/[(=)-]/, " ", msg)
		split(msg, f, " ")
		# get_pages ino I pages A B hit H miss M / add_folio ino I index X pages N
		if (f[1] == "get_pages")
			print "lookup", pid, task, f[3], f[5], f[6], f[8], f[10]
		else
			print "add", pid, task, f[3], f[5], f[5] + f[7] - 1, "-", "-"
	}' "$1"
}

# covered TYPE FILE: how many of the file's pages 0..PAGES-1 the events
# of TYPE for its inode cover, and the largest page they name
covered() {
	awk -v t="$1" -v ino="$INO" -v n=$PAGES '$1 == t && $4 == ino {
		for (p = $5; p <= $6; p++)
			if (p < n && !seen[p]++)
				c++
		if ($6 > max)
			max = $6
	} END { print c + 0, max + 0 }' "$2"
}

TRACEFS=/sys/kernel/tracing
[ -e "$TRACEFS/trace_pipe" ] || TRACEFS=/sys/kernel/debug/tracing
# evict_watch: from now on, record every page of $F the kernel removes
# from the page cache, in a trace instance of this test's own (the kernel's
# dev_t is MAJOR << 20 | MINOR). Returns 1 if it cannot.
EV_EVENT=events/filemap/mm_filemap_delete_from_page_cache
evict_watch() {
	T_INST=$TRACEFS/instances/bwb-pc08.$$
	[ -d "$T_INST" ] || mkdir "$T_INST" 2>/dev/null || return 1
	echo 0 >"$T_INST/$EV_EVENT/enable" || return 1
	_filter="i_ino == $INO"
	_mm=$(cat "/sys/class/block/$FS_DISK/dev" 2>/dev/null) &&
		_filter="$_filter && s_dev == $(( (${_mm%:*} << 20) | ${_mm#*:} ))"
	echo 1024 >"$T_INST/buffer_size_kb" &&
		echo "$_filter" >"$T_INST/$EV_EVENT/filter" &&
		: >"$T_INST/trace" && echo 1 >"$T_INST/$EV_EVENT/enable"
}
# evicted: the pages evict_watch recorded (folios of 2^order pages), and
# stop recording; "none" if nothing was watched.
evicted() {
	if [ -z "$T_INST" ] || ! echo 0 >"$T_INST/$EV_EVENT/enable" 2>/dev/null; then
		echo none
		return
	fi
	awk '/mm_filemap_delete_from_page_cache:/ && match($0, /order=[0-9]+/) {
		o = substr($0, RSTART + 6, RLENGTH - 6)
		for (p = 1; o > 0; o--)
			p *= 2
		n += p
	} END { print n + 0 }' "$T_INST/trace"
}
mkfifo "$T_TMP/gate" || skip_all "cannot make a FIFO"
# locked: the warm reader has locked the file in memory, or has exited
locked() {
	grep -q "^locked " "$T_TMP/read" || ! kill -0 $RPID 2>/dev/null
}

for door in $TEST_DOORS; do
	t="stage08 [$door]"
	if ! why=$(door_ok "$S" "$door"); then
		skip "$t" "$why"
		continue
	fi
	"$R" -D "$F" >"$T_TMP/drop" 2>&1
	ok $? "$t: file dropped from the cache ($(cat "$T_TMP/drop"))"

	# Cold: every page is a miss the reader's own readahead brought in.
	start "$S" -a "$door" -d "$FS_DISK" || { ok 1 "$t: starts"; continue; }
	evict_watch || diag "$t: cannot watch the kernel drop pages of the file"
	"$R" -v -b 131072 "$F" >"$T_TMP/read" 2>"$T_TMP/read.err" &
	RPID=$!
	wait $RPID
	rrc=$?
	ev=$(evicted)
	stop
	is "$TRC" 0 "$t: exits 0 on Ctrl-C"
	set -- $(pc_residency "$T_TMP/read")
	diag "cold: resident before the read $1, after it $2; dropped by the kernel meanwhile: $ev"
	is "$rrc $1" "0 0" "$t: ground truth: cold, none of the file resident right before its read"
	# all brought in: resident right after the read, or dropped by the
	# kernel since it came in (a page dropped before it is read is read
	# in again, and counted in both)
	after=$2
	case $after in *[!0-9]*) after=0 ;; esac
	[ "$ev" = none ] && ev=0
	check "$t: ground truth: the cold read brought all $PAGES pages in ($2 resident right after it, $ev dropped)" \
		test "$after" -le $PAGES -a $((after + ev)) -ge $PAGES
	set -- $(totals "$T_TMP/out")
	diag "cold: Total $1 Hit $2 miss $3 Added $4"
	is "$1" $PAGES "$t: cold: Total = pages read (-d: no other file on this filesystem)"
	check "$t: cold: miss $3 >= $PAGES - $SLACK" test "${3:-0}" -ge $((PAGES - SLACK))
	check "$t: cold: hit $2 <= $SLACK" test "${2:-99999}" -le $SLACK
	check "$t: cold: added $4 >= misses" test "${4:-0}" -ge "${3:-1}"
	check "$t: cold: nothing lost" nothing_lost "$T_TMP/out"
	# The events, against the same ground truth: the reader (its PID),
	# its file (the inode), every page of it.
	events "$T_TMP/out" >"$T_TMP/ev"
	check "$t: cold: per-read lines name the file's inode and its reader ($(grep -c '^lookup ' "$T_TMP/ev") lookups)" \
		awk -v ino="$INO" -v pid=$RPID '$1 == "lookup" { n++; if ($4 != ino || $2 != pid || $3 != "pc_reader") bad++ }
			END { exit !(n > 0 && !bad) }' "$T_TMP/ev"
	set -- $(covered lookup "$T_TMP/ev")
	is "$*" "$PAGES $((PAGES - 1))" "$t: cold: the lookups cover the file's $PAGES pages, up to its last"
	set -- $(covered add "$T_TMP/ev")
	is "$1" $PAGES "$t: cold: the adds cover every page (none was resident)"
	set -- $(totals "$T_TMP/out")
	added=$4
	set -- $(awk '$1 == "add" { n++; p += $6 - $5 + 1 } END { print n + 0, p + 0 }' "$T_TMP/ev")
	check "$t: cold: one add line per filemap_add_folio event ($1)" \
		grep -qE "^Events: .*filemap_add_folio $1(,|\$)" "$T_TMP/out"
	is "$2" "$added" "$t: cold: the add lines' pages sum to Added"
	check "$t: says which lookup and door it uses" \
		grep -q "^filemap_get_pages: $door door, " "$T_TMP/err"

	# Warm: the file is resident, so every page is a hit and none is added.
	# The reader locks it in memory first (reading in what the kernel
	# dropped since), untraced; it reads once the tracer runs (gate).
	"$R" -L -v -g "$T_TMP/gate" -b 131072 "$F" >"$T_TMP/read" 2>"$T_TMP/read.err" &
	RPID=$!
	wait_for 120 locked
	if ! grep -q "^locked " "$T_TMP/read"; then
		ok 1 "$t: warm: the reader locks the file in memory"
		diag "$(cat "$T_TMP/read.err")"
		kill $RPID 2>/dev/null
		wait $RPID
		continue
	fi
	# -j: the warm events and totals come as JSON objects
	if ! start "$S" -a "$door" -d "$FS_DISK" -j; then
		ok 1 "$t: starts (-j)"
		echo go >"$T_TMP/gate"
		wait $RPID
		continue
	fi
	echo go >"$T_TMP/gate"
	wait $RPID
	rrc=$?
	stop
	set -- $(pc_residency "$T_TMP/read")
	before=$1
	diag "warm: locked $(sed -n 's/^locked //p' "$T_TMP/read"); resident before the read $1, after it $2"
	is "$rrc $before" "0 $PAGES" "$t: ground truth: warm, all $PAGES pages resident right before the read"
	case $before in *[!0-9]*) before=0 ;; esac
	set -- $(totals "$T_TMP/out")
	diag "warm: Total $1 Hit $2 miss $3 Added $4"
	is "$1" $PAGES "$t: warm: Total = pages read"
	is "$3" $((PAGES - before)) "$t: warm: misses = pages not resident right before the read (nothing added)"
	is "$2" "$before" "$t: warm: hits = pages resident right before the read"
	json_lines "$t: warm, -j" "$T_TMP/out"
	check "$t: warm, -j: nothing lost" grep -q '^{"type":"summary",.*"lost":{}}$' "$T_TMP/out"
	events "$T_TMP/out" >"$T_TMP/ev"
	check "$t: warm, -j: lookup objects name the file's inode and its reader ($(grep -c '^lookup ' "$T_TMP/ev"))" \
		awk -v ino="$INO" -v pid=$RPID '$1 == "lookup" { n++; if ($4 != ino || $2 != pid || $3 != "pc_reader") bad++ }
			END { exit !(n > 0 && !bad) }' "$T_TMP/ev"
	set -- $(covered lookup "$T_TMP/ev")
	is "$*" "$PAGES $((PAGES - 1))" "$t: warm, -j: the lookups cover the file's $PAGES pages, up to its last"
	is "$(awk '$1 == "lookup" { m += $8 } END { print m + 0 }' "$T_TMP/ev")" $((PAGES - before)) \
		"$t: warm, -j: the lookups' misses add up to the pages not resident before the read"
	set -- $(totals "$T_TMP/out")
	is "$(awk '$1 == "add" { p += $6 - $5 + 1 } END { print p + 0 }' "$T_TMP/ev")" "$4" \
		"$t: warm, -j: the add objects' pages sum to added ($4)"

	# Writes add pages to the cache but are no lookups: no hit, no miss.
	rm -f "$W"
	start "$S" -a "$door" -d "$FS_DISK" -q || { ok 1 "$t: starts (write)"; continue; }
	dd if=/dev/zero of="$W" bs=1M count=4 2>/dev/null
	stop
	check "$t: -q prints no per-event lines" \
		sh -c "! grep -Eq ': filemap_(get_pages|add_folio) \\(' '$T_TMP/out'"
	set -- $(totals "$T_TMP/out")
	diag "write: Total $1 Hit $2 miss $3 Added $4"
	is "$1" 0 "$t: a 4 MiB write is no read: Total 0"
	check "$t: the write added its $((4096 / PAGE_KB)) pages ($4)" test "${4:-0}" -ge $((4096 / PAGE_KB))
done
rm -f "$F" "$W"
done_testing
