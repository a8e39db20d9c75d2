#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The seed's Stage 08 uftrace scenario (scripts/uftrace-readahead.sh), for
# real: uftrace records tests/bin/pg_read (scripts/read.c built with -pg)
# reading a new file cold, then warm, down into the kernel (-K 30, the
# function-graph tracer), with the script's options. Cold, read_head()'s
# read() must go through readahead (page_cache_sync_ra) and the I/O
# (read_pages, submit_bio); warm, it must find the page in the cache: no
# readahead, no bio. Host kernels without function_graph: a SKIP.
#
# Ground truth from mincore (pc_reader): none of the file resident right
# before the cold read; all of it, locked in memory (pc_reader -L, so no
# reclaim can take it) while the warm read is recorded.
. "$(dirname "$0")/lib.sh"
P=$BIN/pg_read
R=$BIN/pc_reader
command -v uftrace >/dev/null 2>&1 ||
	skip_all "uftrace is not installed (scripts/install-deps.sh; the VM has it when the host that built its disk had it)"
need_bin "$P"
need_bin "$R"
need_root

TRACEFS=/sys/kernel/tracing
[ -e $TRACEFS/available_tracers ] || mount -t tracefs nodev $TRACEFS 2>/dev/null
[ -e $TRACEFS/available_tracers ] || TRACEFS=/sys/kernel/debug/tracing
[ -e $TRACEFS/available_tracers ] || skip_all "no tracefs (mount -t tracefs nodev /sys/kernel/tracing)"
grep -qw function_graph $TRACEFS/available_tracers ||
	skip_all "this kernel ($(uname -r)) has no function_graph tracer (it has: $(cat $TRACEFS/available_tracers)): uftrace -K cannot follow a read into it"
scratch_fs || skip_all "no real filesystem (set TEST_FS_DIR, or install e2fsprogs)"

F=$FS_DIR/bwb-uftrace.$$
# one page: one read() of its head reads all of it
printf 'hello linux filesystem\n' >"$F" || skip_all "cannot write $F"
tracer=$(cat $TRACEFS/current_tracer)

# uftrace's options for kernel depth, the script's own: why each, there
kopts=$(sh "$ROOT/scripts/uftrace-readahead.sh" -k)
[ -n "$kopts" ] || skip_all "scripts/uftrace-readahead.sh -k printed no options"

# record NAME: uftrace records pg_read reading $F as the script does, then
# replays it to $T_TMP/NAME.replay. A uftrace whose child fails before it
# runs (no libmcount, say) waits forever: the bound is for that hang.
record() {
	timeout 600 uftrace record $kopts -d "$T_TMP/$1.data" "$P" "$F" \
		>"$T_TMP/$1.out" 2>"$T_TMP/$1.err" &&
		timeout 600 uftrace replay -d "$T_TMP/$1.data" >"$T_TMP/$1.replay" 2>>"$T_TMP/$1.err"
	_rc=$?
	[ $_rc -eq 0 ] || diag "uftrace ($1): exit $_rc: $(tail -n 5 "$T_TMP/$1.err")"
	return $_rc
}

# within OUTER NAME FILE: the replay in FILE has a call of NAME inside a
# call of OUTER (between "OUTER() {" and "} /* OUTER */"). Either may
# carry a suffix of GCC's (read_pages.part.0).
within() {
	awk -v o="$1" -v n="$2" '
	function named(f, name, rest) {
		return f ~ ("^" name "([.][a-z_]+[.][0-9]+)*" rest)
	}
	index($0, "| ") { f = substr($0, index($0, "| ") + 2); sub(/^ +/, "", f) }
	named(f, o, "[(][)] [{]$") { on = 1; next }
	named(f, "[}] /[*] " o, " [*]/$") { on = 0 }
	on && named(f, n, "[(]") { found = 1 }
	END { exit !found }' "$3"
}

# show NAME: what uftrace said and read_head()'s part of the replay, for
# a failed check
show() {
	sed 's/^/#   uftrace: /' "$T_TMP/$1.err" | head -n 20
	awk '/read_head\(\) \{/ { on = 1 } on { print "#   replay: " $0 } /\/\* read_head \*\// { exit }' \
		"$T_TMP/$1.replay" | head -n 60
}

resident() {	# resident: "N of M" pages of $F in the page cache now
	"$R" -m "$F" | sed -n 's/^resident \([0-9]* of [0-9]*\) pages$/\1/p'
}

# Cold: dropped from the cache (written back first), checked by mincore.
"$R" -D "$F" >"$T_TMP/drop" 2>&1
rc=$?
is "$rc $(resident)" "0 0 of 1" "ground truth: cold, none of the file resident before its read"
record cold
ok $? "uftrace records the cold read with kernel depth (-K 30)"
is "$(cat "$T_TMP/cold.out")" "hello linux filesystem" "cold: pg_read printed the file's head"
is "$(resident)" "1 of 1" "ground truth: the cold read brought the page in"
check "cold: read_head() is in the replay" grep -q '| *read_head() {' "$T_TMP/cold.replay"
bad=0
# The page-cache lookup: filemap_get_pages() since 5.11, before it
# generic_file_buffered_read() did the same in one function.
LOOKUP=filemap_get_pages
grep -q ' filemap_get_pages$' /proc/kallsyms || LOOKUP=generic_file_buffered_read
# outer inner: read_head() > read() > vfs_read() > ... > filemap_get_pages()
# > page_cache_sync_ra() > ... > read_pages() > ... > submit_bio()
for pair in "read_head vfs_read" "vfs_read $LOOKUP" \
	"$LOOKUP page_cache_sync_ra" "page_cache_sync_ra read_pages" \
	"read_pages submit_bio"; do
	set -- $pair
	within "$1" "$2" "$T_TMP/cold.replay"
	rc=$?
	ok $rc "cold: $1() calls $2()"
	[ $rc -eq 0 ] || bad=1
done
[ $bad -eq 0 ] || show cold

# Warm: locked in memory by a reader that holds it until the gate opens
# (it reads the file itself then, unrecorded).
mkfifo "$T_TMP/gate" || skip_all "cannot make a FIFO"
"$R" -L -g "$T_TMP/gate" "$F" >"$T_TMP/lock" 2>&1 &
LPID=$!
locked() {
	grep -q "^locked " "$T_TMP/lock" || ! kill -0 $LPID 2>/dev/null
}
wait_for 120 locked
is "$(sed -n 's/^locked //p' "$T_TMP/lock")" "1 of 1 pages" \
	"ground truth: warm, the file locked in memory before its read"
record warm
ok $? "uftrace records the warm read with kernel depth (-K 30)"
kill -0 $LPID 2>/dev/null && echo go >"$T_TMP/gate"
wait $LPID
is "$(cat "$T_TMP/warm.out")" "hello linux filesystem" "warm: pg_read printed the file's head"
check "warm: read_head() is in the replay" grep -q '| *read_head() {' "$T_TMP/warm.replay"
# the kernel was followed this time too, so what is absent is absent
within read_head $LOOKUP "$T_TMP/warm.replay"
rc=$?
ok $rc "warm: read_head() reaches $LOOKUP()"
[ $rc -eq 0 ] || show warm
for fn in page_cache_sync_ra read_pages submit_bio; do
	! within read_head "$fn" "$T_TMP/warm.replay"
	ok $? "warm: read_head() reaches no $fn() (the page is in the cache)"
done

took() {	# took NAME: how long read_head() took in that replay
	sed -n 's/^ *\([0-9.]* [a-z]*\) .*| *} \/\* read_head \*\/$/\1/p' "$T_TMP/$1.replay"
}
diag "read_head() took $(took cold) cold, $(took warm) warm"
is "$(cat $TRACEFS/current_tracer)" "$tracer" "uftrace put the kernel's tracer back ($tracer)"
rm -f "$F"
done_testing
