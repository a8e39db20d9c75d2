# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The lab's smoke test, for a test that has booted a lab (vm_lab.t: by
# run.sh --lab; vm_disk.t: through a disk's own boot loader) and sourced
# tests/vm_term.sh: edit stage 03's line, rebuild it inside, run it
# against a read and see the edit; then make check of an exercise, as it
# is and solved. LIMIT: the build's bound (s).

SRC=stage03_latency_map/bio_trace.c

# guest VAR: the value the guest printed as a line VAR=value (this boot)
guest() {
	this_boot | sed -n "s/^$1=//p" | tail -n 1
}

# type_cmd LINE...: the LINEs as one command line (a tab would be a
# completion, a newline a second prompt); the quotes in them keep the
# typed line (echoed back) from matching what the command prints
type_cmd() {
	type_line "$*"
}

# lab_smoke NAME: the smoke test, its results named NAME
lab_smoke() {
	type_cmd 'echo "BEF""ORE=$(grep -c "lab edit" '$SRC')"'
	wait_for '^BEFORE=' 30
	is "$(guest BEFORE)" 0 "$1: the lab's stage 03 is as built"
	type_cmd 'sed -i "s/time duration: /time duration (lab edit): /" '$SRC' &&' \
		't0=$(date +%s.%N) && make -C stage03_latency_map >/tmp/make.out 2>&1;' \
		'echo "MA""DE=$? $t0 $(date +%s.%N)"'
	wait_for '^MADE=' "$LIMIT"
	set -- "$1" $(guest MADE)
	_secs=$(echo "${3:-0} ${4:-0}" | awk '{ printf "%.1f", $2 - $1 }')
	is "${2:-none}" 0 "$1: make -C stage03_latency_map rebuilds the edited stage ($_secs s)"
	# the stage, once it says it traces, against a direct read of nullb0
	type_cmd 'stage03_latency_map/bio_trace -d nullb0 >/tmp/o 2>&1 & i=0;' \
		'until grep -q Hit /tmp/o || [ $i -gt 600 ]; do sleep 0.2; i=$((i + 1)); done;' \
		'dd if=/dev/nullb0 of=/dev/null bs=4k count=1 skip=7 iflag=direct 2>/dev/null;' \
		'sleep 1; kill -INT %1; wait;' \
		'echo "RA""N=$(grep -c "^bio 0x.*(lab edit): [0-9]* ns" /tmp/o)"'
	wait_for '^RAN=' 180
	_n=$(guest RAN)
	check "$1: the rebuilt stage prints the edited line for the read (${_n:-no} line)" \
		test "${_n:-0}" -ge 1
	[ "${_n:-0}" -ge 1 ] || show
}

# lab_check NAME: make check inside the lab, as a student meets it:
# exercise 03.1's starting point fails its check at the run step (make
# then ends quietly, non-zero), the teacher's answer copied
# into the student's copy passes, and make progress says done
lab_check() {
	type_cmd 'make check EX=03.1 >/tmp/c1 2>&1; r=$?; tail -n 4 /tmp/c1;' \
		'echo "CH""K1=$r $(grep -c "^03.1: not yet, at run" /tmp/c1)"'
	wait_for '^CHK1=' "$LIMIT"
	set -- "$1" $(guest CHK1)
	check "$1: make check EX=03.1: the starting point fails at the run step (exit ${2:-none})" \
		test "${2:-0}" -ne 0 -a "${3:-0}" = 1
	[ "${2:-0}" -ne 0 ] && [ "${3:-0}" = 1 ] || show
	type_cmd 'rm -rf work/03.1 && make -s solution EX=03.1 INTO=work >/dev/null && t0=$(date +%s.%N) &&' \
		'make check EX=03.1 >/tmp/c2 2>&1; r=$?; t1=$(date +%s.%N); tail -n 4 /tmp/c2;' \
		'echo "CH""K2=$r $(grep -c "^03.1: done" /tmp/c2) $(make -s progress | grep -c "^03.1  *done") $t0 $t1"'
	wait_for '^CHK2=' "$LIMIT"
	set -- "$1" $(guest CHK2)
	_secs=$(echo "${5:-0} ${6:-0}" | awk '{ printf "%.1f", $2 - $1 }')
	is "${2:-none} ${3:-none}" "0 1" "$1: make check EX=03.1 passes with the answer put in (make solution INTO=work; $_secs s: build and run)"
	is "${4:-none}" 1 "$1: make progress says 03.1 is done"
	[ "${2:-none}${3:-none}${4:-none}" = 011 ] || show
}
