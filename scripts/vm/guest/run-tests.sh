#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# In the classroom VM (busybox sh): run every tests/*.t that belongs in
# the guest (each covers every door in TEST_DOORS), then the overhead
# smoke check, as one TAP stream on stdout: "<file>: <its description>".
# A test file with a line "# vm: skip REASON" is host-only.
WB=$(cd "$(dirname "$0")/../../.." && pwd)
. "$WB/tests/lib.sh"
ROOT=$WB
BIN=$ROOT/tests/bin
limit=${VM_TEST_LIMIT:-900}
# Each load takes seconds under TCG: robust.t tries its ways out in turn
# (each signal, each full output), the host tries them all for each stage.
export TEST_ROTATE=1

# The host measures boot-to-first-test by this first line's arrival.
diag "kernel $(uname -r), first test $(cut -d' ' -f1 /proc/uptime) s after boot"
diag "TEST_DEV=$TEST_DEV TEST_SLOW_NS=$TEST_SLOW_NS TEST_FS_DIR=$TEST_FS_DIR doors: $TEST_DOORS"
[ -n "${VM_TESTS:-}" ] && diag "test files: $VM_TESTS${TEST_SMOKE:+ (the smoke set)}"
# /init's hold on the system-call tracepoints (its comment says why)
diag "system-call tracepoints held: $(cat /sys/kernel/tracing/instances/vm-syscalls-*/events/syscalls/sys_*_getppid/enable 2>/dev/null | tr -d '\n')"

# run NAME COMMAND...: one test file, its TAP relayed, then its exit
# status and plan checked as one more test.
run() {
	_name=$1
	shift
	_t0=$(cut -d' ' -f1 /proc/uptime)
	echo "run-tests: $_name" >&2	# on the console: where a hung guest was
	# its own process group, so a time-out also ends the tracers it started
	setsid "$@" >"$T_TMP/t.out" 2>"$T_TMP/t.err" </dev/null &
	_p=$!
	(sleep "$limit" && echo "# $_name: killed after $limit s" >>"$T_TMP/t.out" &&
		kill -TERM -$_p && sleep 2 && kill -KILL -$_p) 2>/dev/null &
	_w=$!
	wait $_p
	_rc=$?
	kill $_w 2>/dev/null
	relay "$_name" "$T_TMP/t.out"
	grep -q '^1\.\.0 # SKIP' "$T_TMP/t.out" && return 0
	_plan=$(sed -n 's/^1\.\.\([0-9]*\).*/\1/p' "$T_TMP/t.out")
	_ran=$(grep -cE '^(not )?ok ' "$T_TMP/t.out")
	is "$_rc ${_plan:-none}" "0 $_ran" "$_name: exits 0 after its whole plan"
	[ $_rc -eq 0 ] || sed 's/^/#   stderr: /' "$T_TMP/t.err" | tail -n 20
	diag "$_name: $(echo "$_t0 $(cut -d' ' -f1 /proc/uptime)" | awk '{ printf "%.1f", $2 - $1 }') s"
}

for t in "$ROOT"/tests/*.t; do
	name=$(basename "$t")
	# VM_TESTS (wb.tests= on the kernel command line): only those files
	if [ -n "${VM_TESTS:-}" ] && ! echo " $VM_TESTS " | grep -q " ${name%.t} "; then
		continue
	fi
	if grep -q '^# vm: skip' "$t"; then
		why=$(sed -n 's/^# vm: skip *//p' "$t" | head -n 1)
		skip "$name" "host-only${why:+: $why}"
		continue
	fi
	run "$name" sh "$t"
done
[ -z "${VM_TESTS:-}" ] || echo " $VM_TESTS " | grep -q ' overhead ' &&
	run overhead "$ROOT/scripts/vm/guest/overhead.sh"
done_testing
