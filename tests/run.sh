#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Run every test with prove; the last line is prove's "Result: PASS|FAIL".
# Any argument is passed to prove (e.g. tests/run.sh tests/stage03.t).
# After a failure, what failed and why (each failed test's line, its
# got/want) follows prove's summary, then the Result line again: the end
# of a CI log is often all one reads. All of it: build/test-failures.log.
#
# Two lanes, each in sequence: the aarch64 lane (the cross build, then the
# arm64 classroom VM) and everything else. An emulated VM keeps about one
# core busy, so on two cores the arm64 VM runs beside the host tests and
# the x86 VM instead of after them (CI: an hour becomes about 45 minutes).
# The host tests are built to pass with one core taken (flake-hunt).
# TEST_JOBS=1 runs every file one after the other. --timer: each file's
# end time and duration, to see where CI's hour goes.
cd "$(dirname "$0")/.." || exit 1
[ $# -gt 0 ] || set -- tests/*.t
mkdir -p build
TEST_FAILURES=$PWD/build/test-failures.log
export TEST_FAILURES
: >"$TEST_FAILURES"
prove --exec sh --timer -j "${TEST_JOBS:-2}" \
	--rules='seq=tests/{cross,vm_arm64,vm_power_arm64,vm_lab_arm64,vm_disk_arm64}.t' --rules='seq=**' "$@"
rc=$?
if [ -s "$TEST_FAILURES" ]; then
	n=$(wc -l <"$TEST_FAILURES")
	[ "$n" -gt 12 ] && of=" (the first 12 lines of $n)" || of=
	echo "What failed$of, from build/test-failures.log:"
	head -n 12 "$TEST_FAILURES" | sed 's/^/  /'
	[ $rc -ne 0 ] && echo "Result: FAIL"
fi
exit $rc
