#!/bin/sh
# Stage 09: the PID filter counts one process: two readers of two files,
# both paused at a gate until the tracer runs, then released together.
. "$(dirname "$0")/lib.sh"
S=$ROOT/stage09_pid_filter/pagecache_trace
R=$BIN/pc_reader
need_bin "$S"
need_bin "$R"

# Bad PIDs: one line naming the problem, exit 2 (usage), before any BPF.
badpid() {	# badpid DESCRIPTION PATTERN ARGS...
	_d=$1
	_p=$2
	shift 2
	"$S" "$@" >/dev/null 2>"$T_TMP/err"
	is "$?" 2 "$_d exits 2"
	check "$_d: says '$_p'" grep -q "$_p" "$T_TMP/err"
}
badpid "PID abc" "PID must be a positive number, not 'abc'" abc
badpid "-p -5" "PID must be a positive number, not '-5'" -p -5
badpid "PID 0" "PID must be a positive number, not '0'" 0
sh -c 'exit 0' &
gone=$!
wait $gone
badpid "PID $gone (exited)" "no process with PID $gone is running" "$gone"
badpid "two PIDs" "too many arguments" $$ $$
badpid "-p and a PID" "one PID only" -p $$ $$

need_root
scratch_fs || skip_all "no real filesystem (set TEST_FS_DIR, or install e2fsprogs)"
A=$FS_DIR/bwb-pc09a.$$
B=$FS_DIR/bwb-pc09b.$$
dd if=/dev/urandom of="$A" bs=1M count=16 2>/dev/null || skip_all "cannot write $A"
dd if=/dev/urandom of="$B" bs=1M count=8 2>/dev/null || skip_all "cannot write $B"
# in the kernel's pages, as stage08.t counts them: 16 MiB, and 8 MiB (a
# different size, so a leak shows)
pages() {
	"$BIN/pc_reader" -m "$1" | sed -n 's/^resident [0-9]* of \([0-9]*\) pages$/\1/p'
}
PA=$(pages "$A") PB=$(pages "$B")
[ "${PA:-0}" -gt 0 ] && [ "${PB:-0}" -gt 0 ] || skip_all "pc_reader -m cannot count the pages"
SLACK=$((128 / (16384 / PA)))	# one readahead window, as in stage08.t
mkfifo "$T_TMP/ga" "$T_TMP/gb" || skip_all "cannot make FIFOs"

INOA=$(ls -i "$A" | awk '{ print $1 }')
INOB=$(ls -i "$B" | awk '{ print $1 }')

# events FILE: "TYPE PID INO" of each per-read event, text or -j alike
events() {
	sed -n 's/^.*-\([0-9]*\): filemap_get_pages (ino=\([0-9]*\) .*/lookup \1 \2/p;
		s/^.*-\([0-9]*\): filemap_add_folio (ino=\([0-9]*\) .*/add \1 \2/p;
		s/^{"type":"lookup","pid":\([0-9]*\),.*"ino":\([0-9]*\),.*/lookup \1 \2/p;
		s/^{"type":"add","pid":\([0-9]*\),.*"ino":\([0-9]*\),.*/add \1 \2/p' "$1"
}

# only_pid NAME FILE PID INO: every event carries PID, the process whichever
# of its threads ran, and every lookup is of INO, the file it read (its
# adds may be of another: its output written to a file)
only_pid() {
	events "$2" >"$T_TMP/ev"
	_n=$(grep -c '^lookup ' "$T_TMP/ev")
	_other=$(awk -v pid="$3" -v ino="$4" '$2 != pid || ($1 == "lookup" && $3 != ino)' "$T_TMP/ev" |
		sort | uniq -c | head -n 3)
	check "$1: $(wc -l <"$T_TMP/ev") events ($_n lookups), each of PID $3; the lookups of its file" \
		test "$_n" -gt 0 -a -z "$_other"
	[ -z "$_other" ] || diag "$1: other events (count type pid ino): $_other"
}

totals() {	# totals FILE: "TOTAL HIT MISS", from the text or the -j pages object
	sed -n 's/^\[Total \([0-9]*\) Hit \([0-9]*\) miss \([0-9]*\)\]$/\1 \2 \3/p;
		s/^{"type":"pages",.*"total":\([0-9]*\),"hit":\([0-9]*\),"miss":\([0-9]*\),.*/\1 \2 \3/p' "$1"
}

# round DOOR TAG ARGS...: readers of A (its reading thread not the main
# one) and B wait at their gates; the tracer starts with ARGS (which name
# a PID through $PIDA/$PIDB, set here first); both go; totals in TOT.
# Each reader measures its file's resident pages right before its first
# read (-v): the ground truth of "cold" is taken when the read begins,
# not at the drop (the kernel can only drop more since, but a test must
# not take that on trust).
round() {
	_door=$1
	_tag=$2
	shift 2
	"$R" -D "$A" >/dev/null && "$R" -D "$B" >/dev/null || { ok 1 "$_tag: drop"; return 1; }
	"$R" -v -t -g "$T_TMP/ga" "$A" >"$T_TMP/ra" &
	PIDA=$!
	"$R" -v -g "$T_TMP/gb" "$B" >"$T_TMP/rb" &
	PIDB=$!
	eval "set -- $*"
	if ! start "$S" -a "$_door" "$@"; then
		ok 1 "$_tag: starts"
		echo >"$T_TMP/ga"
		echo >"$T_TMP/gb"
		wait $PIDA $PIDB
		return 1
	fi
	echo go >"$T_TMP/ga"
	echo go >"$T_TMP/gb"
	wait $PIDA
	_ra=$?
	wait $PIDB
	_rb=$?
	stop
	is "$_ra $_rb $TRC" "0 0 0" "$_tag: both readers and the tracer exit 0"
	set -- $(pc_residency "$T_TMP/ra") $(pc_residency "$T_TMP/rb")
	is "$1 $3" "0 0" \
		"$_tag: ground truth: A and B cold, none resident right before their reads"
	TOT=$(totals "$T_TMP/out")
	diag "$_tag: A=$PIDA B=$PIDB: $TOT"
}

for door in $TEST_DOORS; do
	t="stage09 [$door]"
	if ! why=$(door_ok "$S" "$door"); then
		skip "$t" "$why"
		continue
	fi
	# The seed's form, PID as the argument: the threaded reader of A.
	round "$door" "$t: PID A" '$PIDA' || continue
	check "$t: pid_filter_map update: (pid=A)" grep -qx "pid_filter_map update: (pid=$PIDA)" "$T_TMP/out"
	check "$t: Filtered PID : A" grep -qx "Filtered PID : $PIDA" "$T_TMP/out"
	set -- $TOT
	is "$1" $PA "$t: only A's $PA pages, read by a second thread (none of B's $PB)"
	only_pid "$t: PID A" "$T_TMP/out" "$PIDA" "$INOA"
	check "$t: A was cold: miss $3 >= $PA - $SLACK" test "${3:-0}" -ge $((PA - SLACK))

	# -p, the other reader; -j: its totals as a JSON object
	round "$door" "$t: -p B -j" -p '$PIDB' -j || continue
	json_lines "$t: -j" "$T_TMP/out"
	check "$t: -j: the pages object names B" grep -q "^{\"type\":\"pages\",\"pid\":$PIDB," "$T_TMP/out"
	set -- $TOT
	is "$1" $PB "$t: -p B: only B's $PB pages (none of A's $PA)"
	only_pid "$t: -p B -j" "$T_TMP/out" "$PIDB" "$INOB"
	check "$t: B was cold: miss $3 >= $PB - $SLACK" test "${3:-0}" -ge $((PB - SLACK))
done
rm -f "$A" "$B"
done_testing
