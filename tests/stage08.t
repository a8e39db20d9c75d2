#!/bin/sh
# Stage 08: page-cache hits and misses, against a file this test reads
# cold (dropped from the cache, checked with mincore) and then warm.
. "$(dirname "$0")/lib.sh"
S=$ROOT/stage08_pagecache/pagecache_trace
R=$BIN/pc_reader
need_bin "$S"
need_bin "$R"
need_root
scratch_fs || skip_all "no real filesystem (set TEST_FS_DIR, or install e2fsprogs)"

F=$FS_DIR/bwb-pc08.$$
W=$FS_DIR/bwb-pc08w.$$
PAGES=4096			# 16 MiB of 4 KiB pages
# One readahead window (128 KiB, 32 pages): the most the tracepoint door
# can misplace when the kernel hands a read a batch without an event.
SLACK=32
dd if=/dev/urandom of="$F" bs=1M count=16 2>/dev/null || skip_all "cannot write $F"
INO=$(ls -i "$F" | awk '{ print $1 }')

# totals FILE: "TOTAL HIT MISS ADDED" from the summary
totals() {
	sed -n 's/^\[Total \([0-9]*\) Hit \([0-9]*\) miss \([0-9]*\)\]$/\1 \2 \3/p;
		s/^Added \([0-9]*\) pages.*/\1/p' "$1" | tr '\n' ' '
}

resident() {
	"$R" -m "$1" | awk '{ print $2 }'
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
	"$R" -b 131072 "$F" >"$T_TMP/read"
	stop
	is "$TRC" 0 "$t: exits 0 on Ctrl-C"
	is "$(resident "$F")" $PAGES "$t: ground truth: the cold read brought all $PAGES pages in"
	set -- $(totals "$T_TMP/out")
	diag "cold: Total $1 Hit $2 miss $3 Added $4"
	is "$1" $PAGES "$t: cold: Total = pages read (-d: no other file on this filesystem)"
	check "$t: cold: miss $3 >= $PAGES - $SLACK" test "${3:-0}" -ge $((PAGES - SLACK))
	check "$t: cold: hit $2 <= $SLACK" test "${2:-99999}" -le $SLACK
	check "$t: cold: added $4 >= misses" test "${4:-0}" -ge "${3:-1}"
	check "$t: per-event lines name the file's inode" \
		grep -q "filemap_get_pages (ino=$INO pages=" "$T_TMP/out"
	check "$t: cold: nothing lost" grep -qx "Lost: none" "$T_TMP/out"
	check "$t: says which lookup and door it uses" \
		grep -q "^filemap_get_pages: $door door, " "$T_TMP/err"

	# Warm: the file is resident, so every page is a hit and none is added.
	start "$S" -a "$door" -d "$FS_DISK" -q || { ok 1 "$t: starts (-q)"; continue; }
	"$R" -b 131072 "$F" >"$T_TMP/read"
	stop
	set -- $(totals "$T_TMP/out")
	diag "warm: Total $1 Hit $2 miss $3 Added $4"
	is "$1" $PAGES "$t: warm: Total = pages read"
	is "$3" 0 "$t: warm: no miss (nothing was added: the file was resident)"
	is "$2" $PAGES "$t: warm: every page a hit"
	check "$t: -q prints no per-event lines" sh -c "! grep -q 'filemap_get_pages (' '$T_TMP/out'"

	# Writes add pages to the cache but are no lookups: no hit, no miss.
	rm -f "$W"
	start "$S" -a "$door" -d "$FS_DISK" -q || { ok 1 "$t: starts (write)"; continue; }
	dd if=/dev/zero of="$W" bs=1M count=4 2>/dev/null
	stop
	set -- $(totals "$T_TMP/out")
	diag "write: Total $1 Hit $2 miss $3 Added $4"
	is "$1" 0 "$t: a 4 MiB write is no read: Total 0"
	check "$t: the write added its 1024 pages ($4)" test "${4:-0}" -ge 1024
done
rm -f "$F" "$W"
done_testing
