#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The classroom VM: builds the image (scripts/vm/build.sh), boots each kernel
# of VM_KERNELS once under QEMU, and relays the guest's TAP (every test file
# in every door, then the fio overhead smoke check) prefixed with the kernel
# version. Logs: build/vm/log/<kernel>/{results.tap,console.log}.
# vm: skip it boots the VM
. "$(dirname "$0")/lib.sh"

command -v qemu-system-x86_64 >/dev/null 2>&1 ||
	skip_all "QEMU is absent (scripts/install-deps.sh --vm installs it)"

# One VM run at a time: they share build/vm/ and the CPUs.
mkdir -p "$ROOT/build/vm"
exec 8>"$ROOT/build/vm/.lock"
command -v flock >/dev/null 2>&1 && flock 8

for k in ${VM_KERNELS:-cloud 6.12}; do
	"$ROOT/scripts/vm/build.sh" "$k" >"$T_TMP/build.log" 2>&1
	rc=$?
	if [ $rc -eq 3 ]; then
		skip "kernel $k" "cannot build its image here: $(tail -n 1 "$T_TMP/build.log")"
		continue
	fi
	ok $rc "kernel $k: the image builds"
	[ $rc -eq 0 ] || { sed 's/^/#   /' "$T_TMP/build.log"; continue; }
	kver=$(readlink "$ROOT/build/vm/$k")
	out=$ROOT/build/vm/log/$k
	"$ROOT/scripts/vm/run.sh" -k "$k" -o "$out" test 2>"$T_TMP/run.err"
	rc=$?
	# the boot-to-first-test figure and the KVM probe's verdict: on
	# stderr, which prove shows even when it is not verbose
	cat "$T_TMP/run.err" >&2
	first=$(sed -n 's/.*: first test \([0-9.]*\) s after QEMU started.*/\1/p' "$T_TMP/run.err")
	tr -d '\r' <"$out/results.tap" >"$T_TMP/guest.tap"
	relay "$kver" "$T_TMP/guest.tap"
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$T_TMP/guest.tap")
	ran=$(grep -cE '^(not )?ok ' "$T_TMP/guest.tap")
	is "$rc ${plan:-none}" "0 $ran" \
		"$kver: the guest ran its whole plan ($ran tests) and powered off (first test ${first:-never} s after QEMU started)"
	[ $rc -eq 0 ] || tail -n 15 "$out/console.log" | sed 's/^/#   console: /'
done
done_testing
