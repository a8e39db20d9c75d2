#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Run every test with prove; the last line is prove's "Result: PASS|FAIL".
# Any argument is passed to prove (e.g. tests/run.sh tests/stage03.t).
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
exec prove --exec sh --timer -j "${TEST_JOBS:-2}" \
	--rules='seq=tests/{cross,vm_arm64,vm_power_arm64}.t' --rules='seq=**' "$@"
