#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The classroom VM's shell, left the ways a student leaves it. For each
# kernel of VM_KERNELS, boots scripts/vm/run.sh shell on a pseudo-terminal
# (script(1), whose input is a FIFO this test types into) and checks:
#   poweroff  QEMU exits (also with a job left running in the background),
#             after Ctrl-C has stopped a command in the foreground
#   reboot    run.sh boots the VM again, fresh (a file written before is
#             gone); halt then ends it like poweroff
#   Ctrl-D    leaving the shell ends the VM
# Each end within VM_POWER_LIMIT seconds (default 120; TCG boots in ~5).
# Uses the images make vm built (refreshed first, as in vm.t), or with
# VM_POWER_RUN=DIR/run.sh an unpacked hand-out (make vm-image) as it is.
# VM_ARCH=arm64 (tests/vm_power_arm64.t): the aarch64 VM's shell.
# vm: skip it boots the VM
. "$(dirname "$0")/lib.sh"
. "$ROOT/scripts/vm/arch.sh"

LIMIT=${VM_POWER_LIMIT:-120}
RUN=${VM_POWER_RUN:-$ROOT/scripts/vm/run.sh}
if [ -n "${VM_POWER_RUN:-}" ]; then
	VM=$(cd "$(dirname "$RUN")" && pwd)
	QEMU=qemu-system-x86_64
	[ "$(cat "$VM/arch" 2>/dev/null)" = arm64 ] && QEMU=qemu-system-aarch64
fi

command -v "$QEMU" >/dev/null 2>&1 ||
	skip_all "$QEMU is absent (scripts/install-deps.sh --vm${FOREIGN:+-$VM_ARCH} installs it)"
command -v script >/dev/null 2>&1 ||
	skip_all "script (util-linux) is absent: it gives run.sh the terminal shell mode needs"
command -v mkfifo >/dev/null 2>&1 || skip_all "mkfifo is absent"
[ -f "$VM/disk.img" ] && [ -f "$VM/scratch.img" ] ||
	skip_all "the VM images are not built (make vm)"

# One run per VM folder at a time: they share its images. The x86 and
# arm64 VMs may run together (tests/run.sh: two lanes).
mkdir -p "$VM"
exec 8>"$VM/.lock"
command -v flock >/dev/null 2>&1 && flock 8

. "$ROOT/tests/vm_term.sh"

for k in ${VM_KERNELS:-cloud 6.12}; do
	if [ ! -L "$VM/$k" ]; then
		skip "kernel $k" "not built (make vm)"
		continue
	fi
	# the init in the image must be this checkout's
	rc=0
	[ -n "${VM_POWER_RUN:-}" ] ||
		"$ROOT/scripts/vm/build.sh" "$k" >"$T_TMP/build.log" 2>&1 || rc=$?
	if [ $rc -eq 3 ]; then
		skip "kernel $k" "cannot refresh its image here: $(tail -n 1 "$T_TMP/build.log")"
		continue
	fi
	if [ $rc -ne 0 ]; then
		ok 1 "kernel $k: the image builds (exit $rc: $(tail -n 1 "$T_TMP/build.log"))"
		sed 's/^/#   /' "$T_TMP/build.log"
		continue
	fi
	kver=$(readlink "$VM/$k")

	# poweroff, with Ctrl-C first and a job left running
	boot -k "$k" shell
	if prompt; then
		ok 0 "$kver: the shell prompts ($(($(now) - T0)) s after run.sh started)"
		# the quotes keep the typed line (echoed back) from matching
		type_line 'sleep 300 & echo "STAR""TED"; sleep 100'
		wait_for '^STARTED' 30 && sleep 2
		printf '\003' >&3
		prompt
		type_line 'echo "R""C=$?"'
		wait_for '^RC=' 30
		rc=$(this_boot | sed -n 's/^RC=\([0-9]*\).*/\1/p' | head -n 1)
		is "${rc:-none}" 130 "$kver: Ctrl-C stops the command in the foreground"
		type_line poweroff
		left "$kver" "poweroff (a job left running)"
	else
		ok 1 "$kver: the shell prompts within $LIMIT s"
		show
		stop_vm
		continue
	fi

	# reboot: a fresh VM, then halt
	boot -k "$k" shell
	prompt && type_line 'touch /mnt/scratch/before-reboot && echo "TOUC""HED"'
	wait_for '^TOUCHED' 30
	type_line reboot
	_end=$(($(now) + LIMIT))
	while [ "$(boots)" -lt 2 ] && kill -0 "$SPID" 2>/dev/null && [ "$(now)" -le $_end ]; do
		sleep 0.2
	done
	if [ "$(boots)" -ge 2 ] && prompt; then
		check "$kver: reboot boots the VM again" \
			grep -q "^vm: the guest rebooted" "$CON"
		type_line 'ls /mnt/scratch; echo "LIS""TED"'
		wait_for '^LISTED' 30
		this_boot >"$T_TMP/boot2"
		grep -q lost+found "$T_TMP/boot2"
		rc=$?
		ok $rc "$kver: after the reboot, the scratch disk is mounted"
		[ $rc -eq 0 ] || show
		! grep -q before-reboot "$T_TMP/boot2"
		ok $? "$kver: and fresh (the file written before the reboot is gone)"
		type_line halt
		left "$kver" "halt"
	else
		ok 1 "$kver: reboot boots the VM again (within $LIMIT s)"
		show
		stop_vm
	fi

	# Ctrl-D: leaving the shell
	boot -k "$k" shell
	prompt && printf '\004' >&3
	left "$kver" "Ctrl-D (leaving the shell)"
done
done_testing
