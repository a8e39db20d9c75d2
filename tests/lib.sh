# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Shared test functions: POSIX sh, so the same tests run on the host
# (dash, under prove) and in the classroom VM (busybox sh). TAP output.
#
# Environment:
#   TEST_DEV    a scratch block device to use (the VM's null_blk); else
#               the tests make a loop device over a file in /dev/shm
#   TEST_DOORS  doors to test (default: kprobe fentry tracepoint); a door
#               this kernel lacks is reported as SKIP with the reason
#   TEST_SMOKE  set: a file that costs minutes (ctracer's) runs its
#               first check in each door only (the VM's smoke kernels)

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$ROOT/tests/bin
ANSWERS=$ROOT/build/solutions	# the teachers' answers, built (scripts/solution)
TEST_DOORS=${TEST_DOORS:-kprobe fentry tracepoint}
T_N=0
T_FAIL=0
T_TMP=$(mktemp -d "${TMPDIR:-/tmp}/bwb-test.XXXXXX")
T_LOOP=
T_BACKING=

ok() {	# ok COND-EXIT-STATUS DESCRIPTION
	T_N=$((T_N + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $T_N - $2"
	else
		echo "not ok $T_N - $2"
		T_FAIL=$((T_FAIL + 1))
		failed "not ok $T_N - $2"
	fi
}

# failed LINE: also into tests/run.sh's list of failures (TEST_FAILURES),
# which it prints after prove's summary: a CI log's last lines then say
# what failed and why, not only which test numbers did.
# Only this test file's: the tests it may run (check.t: the exercises'
# checks, failing on purpose) are not told of the list.
T_FAILURES=${TEST_FAILURES:-}
unset TEST_FAILURES
failed() {
	[ -n "$T_FAILURES" ] || return 0
	printf '%s: %s\n' "${0##*/}" "$(printf '%s' "$1" | tr '\n' ' ')" |
		cut -c1-240 >>"$T_FAILURES"
}

check() {	# check DESCRIPTION COMMAND...: ok if COMMAND succeeds
	_d=$1
	shift
	"$@"
	ok $? "$_d"
}

is() {	# is GOT WANT DESCRIPTION
	if [ "$1" = "$2" ]; then
		ok 0 "$3"
	else
		ok 1 "$3"
		echo "#   got: '$1'"
		echo "#  want: '$2'"
		failed "  got '$1', want '$2'"
	fi
}

skip() {	# skip DESCRIPTION REASON
	T_N=$((T_N + 1))
	echo "ok $T_N # SKIP $1: $2"
}

diag() {
	echo "# $*"
}

skip_all() {
	echo "1..0 # SKIP $*"
	cleanup
	exit 0
}

done_testing() {
	echo "1..$T_N"
	cleanup
	[ "$T_FAIL" -eq 0 ]
	exit $?
}

cleanup() {
	if [ -n "$T_MNT" ]; then	# scratch_fs: before its loop device
		umount "$T_MNT" 2>/dev/null
		T_MNT=
	fi
	slow_dev_cleanup	# before the loop device it stacks on
	if [ -n "$T_LOOP" ]; then
		losetup -d "/dev/$T_LOOP" 2>/dev/null
		T_LOOP=
	fi
	[ -n "$T_BACKING" ] && rm -f "$T_BACKING"
	[ -n "$T_INST" ] && rmdir "$T_INST" 2>/dev/null	# a test's own trace instance
	T_INST=
	rm -rf "$T_TMP"
}
trap 'cleanup; exit 1' INT TERM

# wait_for SECONDS COMMAND...: run COMMAND every 0.05 s until it succeeds
# (return 0), or give up after SECONDS (return 1). SECONDS bounds a hang,
# it is no pace: a busy machine may take many times longer than an idle
# one, and a generous bound costs nothing when COMMAND succeeds early.
wait_for() {
	_wf_n=$(($1 * 20))
	shift
	until "$@"; do
		[ "$_wf_n" -gt 0 ] || return 1
		sleep 0.05
		_wf_n=$((_wf_n - 1))
	done
	return 0
}

need_root() {
	[ "$(id -u)" -eq 0 ] || skip_all "needs root"
	# One privileged test at a time: they share the kernel's trace events.
	exec 9>"${TMPDIR:-/tmp}/bwb-tests.lock"
	if command -v flock >/dev/null 2>&1; then
		flock 9
	fi
}

need_bin() {	# need_bin PATH: skip everything if a program is not built
	[ -x "$1" ] || skip_all "$1 is not built (run make)"
}

# loop_attach FILE [OPTIONS]: attach FILE to a free loop device, print
# its path. util-linux has --show; busybox's losetup only names the next
# free device with -f (need_root's lock keeps that from racing here), and
# takes few OPTIONS (-P, -r): one it lacks fails the attach.
#
# A loop device keeps the limits once set on its number: a check's 64 KiB
# max_sectors_kb outlived its detach and split the next test's reads on
# the device that took the number. Each starts from its hardware's.
loop_attach() {
	_f=$1
	shift
	_l=$(losetup -f --show "$@" "$_f" 2>/dev/null) || {
		_l=$(losetup -f 2>/dev/null) || return 1
		losetup "$@" "$_l" "$_f" 2>/dev/null || return 1
	}
	_q=/sys/block/${_l#/dev/}/queue
	_m=$(cat "$_q/max_hw_sectors_kb" 2>/dev/null) && echo "$_m" >"$_q/max_sectors_kb" 2>/dev/null
	echo "$_l"
}

# scratch_dev: sets DEV (a name such as loop3) for this test's own I/O.
scratch_dev() {
	if [ -n "$TEST_DEV" ]; then
		DEV=$TEST_DEV
		return 0
	fi
	[ -e /dev/loop-control ] || modprobe loop 2>/dev/null
	_dir=/dev/shm
	[ -d "$_dir" ] || _dir=${TMPDIR:-/tmp}
	T_BACKING=$_dir/bwb-test.$$.img
	dd if=/dev/zero of="$T_BACKING" bs=1M count=${1:-16} 2>/dev/null || return 1
	T_LOOP=$(loop_attach "$T_BACKING") || return 1
	T_LOOP=${T_LOOP#/dev/}
	DEV=$T_LOOP
	# Let udev (where it runs) finish probing the new device first: its
	# reads would be traced as ours. Settle returns once udev is idle; the
	# bound is for a hang (a busy machine probes slowly).
	command -v udevadm >/dev/null 2>&1 && udevadm settle -t 60 2>/dev/null
	return 0
}

# door_ok STAGE_BIN DOOR: 0 if the door attaches here, else prints why.
# Only a door the kernel lacks ("no DOOR door on this kernel") is a SKIP:
# any other failure (a load error, a crash) lets the test run and fail.
door_ok() {
	"$1" -a "$2" -q --duration 0.1 >/dev/null 2>"$T_TMP/door.err" && return 0
	_w=$2
	[ "$_w" = auto ] && _w=working
	grep -q "no $_w door on this kernel" "$T_TMP/door.err" || return 0
	grep -m 1 "no $_w door on this kernel" "$T_TMP/door.err"
	return 1
}

# start PROGRAM ARGS...: run in the background (PID in TPID, output in
# $T_TMP/out and $T_TMP/err) and wait until it says it is tracing (it
# prints that once attached) or has exited. Reading BTF, loading and
# attaching take a moment idle, several times that on a busy machine:
# the bound is for a hang.
start_seen() {
	grep -q "Hit Ctrl-C" "$T_TMP/err" || ! kill -0 $TPID 2>/dev/null
}
start() {
	: >"$T_TMP/out"
	: >"$T_TMP/err"
	"$@" >"$T_TMP/out" 2>"$T_TMP/err" &
	TPID=$!
	wait_for 120 start_seen
	grep -q "Hit Ctrl-C" "$T_TMP/err" && return 0
	diag "did not start: $(cat "$T_TMP/err")"
	return 1
}

# gated FIFO COMMAND... &: COMMAND once a line comes through FIFO (a
# writer held until its tracer runs), in the background: it execs, so
# $! is COMMAND's PID. A gate that opens with no line (an error, an
# empty write) exits 3 and says so: never early.
gated() {
	exec sh -c 'read g <"$1" || { echo "gated: no line through $1" >&2; exit 3; }
		shift; exec "$@"' sh "$@"
}

# stop: Ctrl-C the program started by start; its exit status in TRC.
stop() {
	kill -INT $TPID 2>/dev/null
	wait $TPID
	TRC=$?
}

# io ARGS...: run bio_io, failing the test on error.
io() {
	"$BIN/bio_io" "$@" >"$T_TMP/io.out" 2>"$T_TMP/io.err" || {
		diag "bio_io failed: $(cat "$T_TMP/io.err")"
		return 1
	}
}

count() {	# count PATTERN FILE: lines matching a fixed string
	grep -cF -- "$1" "$2"
}

# hist_sum FILE: the counts of every histogram bucket line, added up
# (tests/solutions.t, and the checker's exercise 03.2)
hist_sum() {
	awk '/^[0-9]+( -> [0-9]+|\+) +: [0-9]+ +\|/ { sub(/^[^:]*: */, ""); n += $1 }
		END { print n + 0 }' "$1"
}

# relay NAME FILE: re-emit the TAP in FILE as tests of this file, each
# description prefixed with NAME (for tests that run other TAP producers).
relay() {
	_why=0	# a failure's first diagnostics go to the list of failures
	while IFS= read -r _l; do
		case "$_l" in
		"ok "*"# SKIP"*) skip "$1" "${_l#*# SKIP }"; _why=0 ;;
		"1..0 # SKIP"*) skip "$1" "${_l#*# SKIP }"; _why=0 ;;
		"ok "*) ok 0 "$1: ${_l#* - }"; _why=0 ;;
		"not ok "*) ok 1 "$1: ${_l#* - }"; _why=3 ;;
		"#"*)
			echo "$_l"
			[ $_why -gt 0 ] && failed "$_l" && _why=$((_why - 1))
			;;
		esac
	done <"$2"
}

# slow_dev: sets DEV, a device where one chosen read is slow on purpose,
# and SLOW_NS, the least latency the slowdown imposes (0 = none known).
#   TEST_DEV set: DEV=$TEST_DEV; TEST_SLOW_NS names its latency (null_blk
#   irqmode=2 completion_nsec=N makes every I/O that slow), SLOW_ALL=1.
#   Else: a loop device over a second loop device, whose reads are limited
#   (blk-throttle, cgroup v1 blkio or v2 io.max) to SLOW_IOPS per second
#   for slow_io's cgroup only. The lower loop device is where the read
#   waits, so the upper one's bio spans the wait whichever door traces it.
SLOW_IOPS=2
slow_dev() {
	SLOW_NS=0
	SLOW_ALL=
	SLOW_CG=
	if [ -n "$TEST_DEV" ]; then
		DEV=$TEST_DEV
		[ -n "$TEST_SLOW_NS" ] && SLOW_NS=$TEST_SLOW_NS SLOW_ALL=1
		return 0
	fi
	scratch_dev || return 1
	T_LOWER=$T_LOOP
	# The upper device reads through O_DIRECT where losetup can say so
	# (else through the lower one's page cache: slow reads stay uncached).
	T_UPPER=$(loop_attach "/dev/$T_LOWER" --direct-io=on) ||
		T_UPPER=$(loop_attach "/dev/$T_LOWER") || return 1
	T_UPPER=${T_UPPER#/dev/}
	DEV=$T_UPPER
	command -v udevadm >/dev/null 2>&1 && udevadm settle -t 60 2>/dev/null
	SLOW_CG=$(throttled_cg "bwb-slow.$$" "$(cat "/sys/block/$T_LOWER/dev")") || {
		diag "cannot throttle reads of $T_LOWER (no blkio or io controller to use)"
		SLOW_CG=
	}
	# blk-throttle holds the first read of a fresh group about 1/IOPS s
	# (block/blk-throttle.c, tg_within_iops_limit()); claim half of it.
	[ -n "$SLOW_CG" ] && SLOW_NS=$((1000000000 / SLOW_IOPS / 2))
	return 0
}

# throttled_cg NAME MAJ:MIN: make cgroup NAME (cgroup v1 blkio, or v2 io)
# whose tasks' reads of disk MAJ:MIN are limited to SLOW_IOPS a second;
# print its path. 1, and nothing made, where no controller can.
throttled_cg() {
	_v1=$(awk '$3 == "cgroup" && $4 ~ /(^|,)blkio(,|$)/ { print $2; exit }' /proc/mounts)
	_v2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	if [ -n "$_v1" ] && [ -e "$_v1/blkio.throttle.read_iops_device" ]; then
		_cg=$_v1/$1
		_limit="$2 $SLOW_IOPS"
		_file=blkio.throttle.read_iops_device
	elif [ -n "$_v2" ] && grep -qw io "$_v2/cgroup.controllers" 2>/dev/null; then
		grep -qw io "$_v2/cgroup.subtree_control" ||
			echo +io >"$_v2/cgroup.subtree_control" 2>/dev/null
		_cg=$_v2/$1
		_limit="$2 riops=$SLOW_IOPS"
		_file=io.max
	else
		return 1
	fi
	mkdir "$_cg" 2>/dev/null || return 1
	if ! echo "$_limit" 2>/dev/null >"$_cg/$_file"; then
		rmdir "$_cg"
		return 1
	fi
	echo "$_cg"
}

# io_in CG ARGS...: bio_io in cgroup CG (like io otherwise).
io_in() {
	_cg=$1
	shift
	sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh \
		"$_cg" "$BIN/bio_io" "$@" >"$T_TMP/io.out" 2>"$T_TMP/io.err" || {
		diag "bio_io (in $_cg) failed: $(cat "$T_TMP/io.err")"
		return 1
	}
}

# slow_io ARGS...: bio_io in the slowed-down cgroup (like io otherwise).
slow_io() {
	if [ -z "$SLOW_CG" ]; then
		io "$@"
		return
	fi
	io_in "$SLOW_CG" "$@"
}

slow_dev_cleanup() {
	# Both may lag a moment behind: an exiting task leaves its cgroup, a
	# detached loop device lets go of the one below it (later still on a
	# busy machine: the bounds are for a hang).
	[ -n "$SLOW_CG" ] && wait_for 30 rmdir "$SLOW_CG" 2>/dev/null
	SLOW_CG=
	if [ -n "$T_UPPER" ]; then
		losetup -d "/dev/$T_UPPER" 2>/dev/null
		wait_for 30 test ! -e "/sys/block/$T_UPPER/loop"
		T_UPPER=
	fi
}

# page_kb: the kernel's page size in KiB (4; 16 on arm64-16k), from the
# pages mincore() counts in a 64 KiB file (pc_reader -m)
page_kb() {
	dd if=/dev/zero of="$T_TMP/page_kb" bs=65536 count=1 2>/dev/null || return 1
	_n=$("$BIN/pc_reader" -m "$T_TMP/page_kb" | sed -n 's/^resident [0-9]* of \([0-9]*\) pages$/\1/p')
	rm -f "$T_TMP/page_kb"
	[ "${_n:-0}" -gt 0 ] && echo $((64 / _n))
}

# pc_residency FILE: "BEFORE AFTER" from the output of pc_reader -v: the
# file's resident pages right before its first read and right after its
# last, measured by the reader itself ("none" where it printed none).
pc_residency() {
	awk '$1 == "resident" && $2 == "before" { b = $3 }
	     $1 == "resident" && $2 == "after" { a = $3 }
	     END { print (b == "" ? "none" : b), (a == "" ? "none" : a) }' "$1"
}

# JF_AWK: an awk function for JSON lines (-j): jf("key") is the value of
# "key" in the current line, a number or a string without its quotes,
# else "". Use it as: awk "$JF_AWK"' ... jf("bio") ... '
JF_AWK='
function jf(k, r) {
	if (!match($0, "\"" k "\":(\"[^\"]*\"|[0-9]+)")) return ""
	r = substr($0, RSTART + length(k) + 3, RLENGTH - length(k) - 3)
	gsub(/"/, "", r)
	return r
}'

# max_summary FILE: read a stage04+ run (per-event lines and the summary)
# and print shell assignments for eval:
#   M_BIO M_START M_END M_NS  the summary's bio, times and max latency
#   M_SECTOR M_SIZE           its "Bio Info" line (stage05+), else empty
#   M_END_SEEN                1 if an event of that bio was printed with
#                             that duration (and, with -j, that end time)
#   EV_MAX                    the largest per-event duration printed
# With -j (JSON lines) the same from the "latency" and "max" objects.
max_summary() {
	awk "$JF_AWK"'
	function hex(s) { match(s, /bio=0x[0-9a-f]+/); return substr(s, RSTART + 4, RLENGTH - 4) }
	/^\{"type":"latency"/ { d = jf("latency_ns") + 0; if (d > evmax) evmax = d
		seen[jf("bio") " " d " " jf("end_ns")] = 1 }
	/^bio 0x[0-9a-f]+: submit_bio\(\) -> bio_endio\(\) time duration: [0-9]+ ns$/ {
		d = $(NF - 1) + 0; if (d > evmax) evmax = d
		b = $2; sub(/:$/, "", b); seen[b " " d " -"] = 1 }
	/^\{"type":"max"/ { bio = tobio = jf("bio"); start = jf("start_ns"); end = jf("end_ns")
		ns = jf("latency_ns"); sector = jf("sector"); size = jf("size"); json = 1 }
	/^From: submit_bio\(bio=/ { bio = hex($0); start = $NF }
	/^To  : bio_endio \(bio=/ { tobio = hex($0); end = $NF }
	/^Bio Info : Sector \(/ { s = $0; gsub(/[^0-9 ]/, " ", s); split(s, f, " "); sector = f[1]; size = f[2] }
	/^Max latency [0-9]+ ns$/ { ns = $3 }
	END {
		if (tobio != bio) bio = "mismatch:" bio "/" tobio
		printf "M_BIO=%s M_START=%s M_END=%s M_NS=%s M_SECTOR=%s M_SIZE=%s ",
			bio, start, end, ns, sector, size
		printf "M_END_SEEN=%d EV_MAX=%s\n",
			seen[bio " " ns " " (json ? end : "-")], evmax ""
	}' "$1"
}

# chrome_find: sets CHROME to the Chromium here (Debian: apt-get install
# chromium; scripts/install-deps.sh --view), or returns 1.
chrome_find() {
	CHROME=
	for _c in chromium chromium-browser google-chrome; do
		command -v $_c >/dev/null 2>&1 && CHROME=$_c && return 0
	done
	return 1
}

# chrome ARGS...: headless Chromium as root, with its own profile (another
# Chromium may be running); stderr to $T_TMP/chrome.err. The bound is for
# a hang: a busy machine starts it slowly.
chrome() {
	timeout 300 "$CHROME" --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$T_TMP/chrome" "$@" 2>>"$T_TMP/chrome.err"
}

# png_colours PNG: print how many colours the picture holds (a blank page
# has one); returns 1 without python3 to decode it (the VM has none).
png_colours() {
	command -v python3 >/dev/null 2>&1 || return 1
	python3 "$ROOT/tests/helpers/png_colours.py" "$1"
}

# not_blank DESCRIPTION PNG: a test that a screenshot shows something:
# more than 16 colours (text, shapes). A SKIP without python3.
not_blank() {
	if ! command -v python3 >/dev/null 2>&1; then
		skip "$1" "needs python3 to decode the PNG"
		return 0
	fi
	_nc=$(png_colours "$2" 2>"$T_TMP/png.err")
	check "$1 (${_nc:-no} colours)" test "${_nc:-0}" -gt 16
	[ -s "$T_TMP/png.err" ] && sed 's/^/#   /' "$T_TMP/png.err"
	return 0
}

# as_nobody CMD...: run CMD as nobody (uid 65534); 127 if nothing here can
# drop root. Busybox's setpriv has no --reuid (and its sh prefers its own
# applets to PATH), so the VM names util-linux's in TEST_SETPRIV.
as_nobody() {
	_sp=${TEST_SETPRIV:-setpriv}
	"$_sp" --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null || return 127
	"$_sp" --reuid=65534 --regid=65534 --clear-groups "$@"
}

# scratch_fs: sets FS_DIR, a directory on a real filesystem, FS_DISK,
# its disk (for -d), and FS_PART_START, the sector its partition starts
# at (0 for a whole disk; FIEMAP's sectors are the partition's).
# TEST_FS_DIR if set (the VM's ext4 on a block device), else ext4 on a
# loop device over a file in /dev/shm, mounted in this test's temp dir;
# cleanup unmounts it.
scratch_fs() {
	if [ -n "$TEST_FS_DIR" ]; then
		FS_DIR=$TEST_FS_DIR
	else
		command -v mkfs.ext4 >/dev/null 2>&1 || return 1
		_dev=$TEST_DEV
		TEST_DEV=
		scratch_dev 64
		_rc=$?
		TEST_DEV=$_dev
		[ $_rc -eq 0 ] || return 1
		# inode tables and journal written now: no lazy-init thread
		# writing behind the tests' backs while they trace this disk
		mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 \
			"/dev/$DEV" >/dev/null 2>&1 || return 1
		mkdir -p "$T_TMP/mnt" && mount "/dev/$DEV" "$T_TMP/mnt" || return 1
		T_MNT=$T_TMP/mnt
		FS_DIR=$T_MNT
	fi
	_src=$(df -P "$FS_DIR" | awk 'NR == 2 { print $1 }')
	FS_DISK=${_src#/dev/}
	FS_PART_START=$(cat "/sys/class/block/$FS_DISK/start" 2>/dev/null || echo 0)
	[ -b "/dev/$FS_DISK" ]
}

# bad DESCRIPTION PATTERN ARGS...: "$S" ARGS is a usage error: exit 2,
# and its line says PATTERN
bad() {
	_d=$1
	_p=$2
	shift 2
	"$S" "$@" >/dev/null 2>"$T_TMP/err"
	is "$?" 2 "$_d exits 2"
	check "$_d: says '$_p'" grep -q -- "$_p" "$T_TMP/err"
}

# tracepoint_only NAME WHAT: "$S", a WHAT ("stage", "tool") with the
# tracepoint door only, refuses -a fentry and -a kprobe in one line
# ("-" in docs/kernels.md); ends the test (done_testing) where the
# tracepoint door is not to be tested or does not work here.
tracepoint_only() {
	for _door in fentry kprobe; do
		"$S" -a $_door --duration 0.1 >/dev/null 2>"$T_TMP/err"
		_rc=$?
		is "$_rc $(wc -l <"$T_TMP/err")" "1 1" "-a $_door: refused in one line, exit 1"
		check "-a $_door: says the $2 has the tracepoint door only" \
			grep -q "no $_door door in this $2 (tracepoint door only" "$T_TMP/err"
		skip "$1 [$_door]" "$(cat "$T_TMP/err")"
	done
	case " $TEST_DOORS " in
	*" tracepoint "*) ;;
	*)
		skip "$1 [tracepoint]" "the $2 has the tracepoint door only, and TEST_DOORS leaves it out"
		done_testing
		;;
	esac
	if ! _why=$(door_ok "$S" tracepoint); then
		skip "$1 [tracepoint]" "$_why"
		done_testing
	fi
}

# max_run STAGE_BIN DOOR [ARGS...]: trace $DEV through DOOR while reading
# three sectors fast and SLOW_SECTOR slowly (slow_io); then eval
# max_summary and set M_WANT_SECTOR. Returns 1 if the stage does not start.
SLOW_SECTOR=24000
max_run() {
	_s=$1
	_door=$2
	shift 2
	start "$_s" -a "$_door" -d "$DEV" "$@" || return 1
	for _sec in 8 1024 2048; do
		io "/dev/$DEV" $_sec
	done
	slow_io "/dev/$DEV" $SLOW_SECTOR
	stop
	eval "$(max_summary "$T_TMP/out")"
	# the sector the max bio should have read: the slow read's, or, where
	# every read is as slow (or none is made slow), any of ours
	M_WANT_SECTOR=
	if [ "$SLOW_NS" -gt 0 ] && [ -z "$SLOW_ALL" ]; then
		M_WANT_SECTOR=$SLOW_SECTOR
	else
		for _sec in 8 1024 2048 $SLOW_SECTOR; do
			[ "$_sec" = "$M_SECTOR" ] && M_WANT_SECTOR=$_sec
		done
	fi
	return 0
}

# max_checks NAME: what every max-latency stage must show after max_run.
max_checks() {
	is "$TRC" 0 "$1: exits 0 on Ctrl-C"
	if [ -n "$JSON" ]; then
		json_lines "$1" "$T_TMP/out"
		check "$1: one max object" test "$(grep -c '^{"type":"max"' "$T_TMP/out")" = 1
	else
		check "$1: summary framed by = lines" \
			test "$(grep -c '^=====$' "$T_TMP/out")" = 2
	fi
	case $M_BIO in
	0x*) ok 0 "$1: From and To name the same bio ($M_BIO)" ;;
	*) ok 1 "$1: From and To name the same bio ($M_BIO)" ;;
	esac
	is "$M_NS" "$((M_END - M_START))" "$1: max latency = end - start"
	is "$M_NS" "$EV_MAX" "$1: max latency = the largest duration printed"
	is "$M_END_SEEN" 1 "$1: its event was printed with that duration${JSON:+ and end time}"
	if [ "$SLOW_NS" -gt 0 ]; then
		check "$1: max latency ${M_NS:-none} ns >= imposed $SLOW_NS ns" \
			test "${M_NS:-0}" -ge "$SLOW_NS"
	else
		skip "$1: max latency >= imposed delay" "no slowdown on this device"
	fi
	if [ -n "$JSON" ]; then
		check "$1: nothing lost" grep -q '^{"type":"summary",.*"lost":{}}$' "$T_TMP/out"
	else
		check "$1: nothing lost" grep -qx "Lost: none" "$T_TMP/out"
	fi
}

# json_lines NAME FILE: every line of FILE is one JSON object (python3 or
# jq parse it; where neither is, as in the VM, each line at least opens
# with {"type": and closes with }).
json_lines() {
	if command -v python3 >/dev/null 2>&1; then
		python3 -c '
import json, sys
for n, l in enumerate(open(sys.argv[1]), 1):
    o = json.loads(l)
    assert isinstance(o, dict) and "type" in o, "line %d: no type" % n
' "$2" 2>"$T_TMP/json.err"
		ok $? "$1: every line is a JSON object (python3)"
	elif command -v jq >/dev/null 2>&1; then
		jq -e 'type == "object" and has("type")' "$2" >/dev/null 2>"$T_TMP/json.err"
		ok $? "$1: every line is a JSON object (jq)"
	else
		check "$1: every line is {\"type\":… } (no python3 or jq here to parse it)" \
			sh -c "! grep -qv '^{\"type\":.*}\$' '$2'"
	fi
	[ -s "$T_TMP/json.err" ] && tail -n 3 "$T_TMP/json.err" | sed 's/^/#   /'
	return 0
}

# nothing_lost FILE: its summary says "Lost: none", or loses only what
# the kernel counted missed (a kprobe that ran while another did, on an
# emulated CPU now and then) and the starts or ends those misses may have
# left alone; the Lost: lines as diagnostics when it says more.
nothing_lost() {
	grep -qx 'Lost: none' "$1" && return 0
	if grep -q '^Lost: [0-9]* events missed by ' "$1"; then
		grep '^Lost: ' "$1" | grep -v ' events missed by ' |
			grep -Ev ' (completions without a recorded start|starts never seen to complete) ' |
			sed 's/^/#   /' | grep . && return 1
		grep '^Lost: ' "$1" | sed 's/^/# counted by the kernel: /'
		return 0
	fi
	grep '^Lost: ' "$1" | sed 's/^/#   /'
	return 1
}

# lost_count PATTERN: the sum of the summary's Lost: counts matching it
# (in $T_TMP/out, the output of the last stopped tracer).
lost_count() {
	sed -n "s/^Lost: \([0-9]*\) .*\($1\).*/\1/p" "$T_TMP/out" | awk '{ s += $1 } END { print s + 0 }'
}

# in_flight start|exit: the summary's I/O in flight when tracing began
# (completions not timed) or ended (not finished), 0 if it has no line.
in_flight() {
	sed -n "s/^In flight at start: \([0-9]*\) .*; at exit: \([0-9]*\) .*/\1 \2/p" "$T_TMP/out" |
		awk -v w="$1" '{ n = w == "start" ? $1 : $2 } END { print n + 0 }'
}

# starts_unended, ends_unstarted: the summary's starts no end was seen
# for (in flight at exit, replaced, or counted as lost) and ends without
# a start (in flight at start, or counted as lost).
starts_unended() {
	echo $(($(in_flight exit) + $(lost_count "starts never seen to complete\|starts replaced")))
}
ends_unstarted() {
	echo $(($(in_flight start) + $(lost_count "completions without a recorded start")))
}

# kprobe_books NAME STARTS ENDS: in the kprobe door a kprobe program does
# not run while another kprobe-kind BPF program runs on that CPU
# (bpf_prog_active): an end (or start) whose interrupt lands in our other
# program is skipped. Since 6.7 the kernel counts it and the summary
# counts what it leaves (a start never ended, an end without a start), so
# both sides of the books must meet; before 6.7 it may leave no count at
# all: then check only that no end is invented, and show the gap.
kprobe_books() {
	_left=$(starts_unended)
	_nost=$(ends_unstarted)
	_kv=$(uname -r | awk -F. '{ print $1 * 1000 + $2 }')
	if [ "$_kv" -ge 6007 ]; then
		is "$((${3:-0} + _left))" "$((${2:-0} + _nost))" \
			"$1: ends + starts left ($_left) = starts + ends without start ($_nost)"
	else
		check "$1: no more ends (${3:-none}) than starts (${2:-none}) + ends without start ($_nost), kernel before 6.7" \
			test "${3:-0}" -gt 0 -a "${3:-0}" -le "$((${2:-0} + _nost))"
		[ "${3:-0}" -lt "${2:-0}" ] &&
			diag "$1: $((${2:-0} - ${3:-0})) ends not seen and not counted (kprobe skips before 6.7)"
	fi
	return 0
}
