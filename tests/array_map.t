#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The overhead lab's fast stage 03 (bench/stage03_array_map: a hash table
# in an array map, claimed with compare-and-swap, keyed through
# start_key()'s checked per-CPU word) must give stage 03's answers: the
# checks of tests/stage03.t, against the I/O the test issued, in every
# door, fio's many bios in flight included (the races it guards against
# need two CPUs at once).
# Its compare-and-swap is a BPF atomic of Linux 5.12: older verifiers
# refuse it ("BPF_STX uses reserved fields"), in every door.
r=$(uname -r) mi=${r#*.}
mi=${mi%%[!0-9]*}
if [ "${r%%.*}" -lt 5 ] || { [ "${r%%.*}" -eq 5 ] && [ "$mi" -lt 12 ]; }; then
	echo "1..0 # SKIP the array map's compare-and-swap needs Linux 5.12 (BPF atomics); this is $r"
	exit 0
fi
S03_DIR=bench/stage03_array_map
S03_NAME="stage03 array map"
S03_FIO_EVERY_DOOR=1
. "$(dirname "$0")/stage03.t"
