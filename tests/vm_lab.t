#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The lab (make vm-lab, run.sh --lab): a student's work inside it is built
# there and survives. Boots run.sh --lab on a pseudo-terminal, as
# tests/vm_power.t does, and types:
#   an edit of stage 03's printed line, make -C stage03_latency_map, the
#   stage against a read of nullb0: the new line is printed; make check
#   EX=03.1 fails, passes with the solution copied in; poweroff
#   a second boot, with run.sh --share: the edit is still there; the
#   host's folder is at /root/share; poweroff
#   run.sh --reset, a third boot: the edit is gone
# On a lab disk of its own (VM_LAB_DISK), not the student's lab-disk.img.
# In make test a SKIP where the lab image is not built (CI); by hand:
#   make vm-lab && prove -v --exec sh tests/vm_lab.t
# VM_ARCH=arm64 (tests/vm_lab_arm64.t): the aarch64 lab, build/arm64/vm/.
# VM_LAB_KERNEL (default cloud); each step within VM_LAB_LIMIT s (300).
# VM_LAB_RUN=DIR/run.sh: an unpacked hand-out (make vm-lab-image) as it
# is, booted with ./run.sh as its README says.
# vm: skip it boots the VM
. "$(dirname "$0")/lib.sh"
. "$ROOT/scripts/vm/arch.sh"

LIMIT=${VM_LAB_LIMIT:-300}
RUN=${VM_LAB_RUN:-$ROOT/scripts/vm/run.sh}
k=${VM_LAB_KERNEL:-cloud}
lab_arg=--lab
if [ -n "${VM_LAB_RUN:-}" ]; then	# a hand-out, booted as its README says
	VM=$(cd "$(dirname "$RUN")" && pwd)
	QEMU=qemu-system-x86_64
	[ "$(cat "$VM/arch" 2>/dev/null)" = arm64 ] && QEMU=qemu-system-aarch64
	lab_arg=
fi

# make's words for this architecture's lab (VM_ARCH=arm64: vm_lab_arm64.t)
mk="make vm-lab${FOREIGN:+ VM_ARCH=$VM_ARCH}"
[ -f "$VM/lab.img" ] || skip_all "the $VM_ARCH lab image is not built ($mk)"
[ -L "$VM/$k" ] || skip_all "kernel $k is not built ($mk)"
command -v "$QEMU" >/dev/null 2>&1 || skip_all "$QEMU is absent"
command -v script >/dev/null 2>&1 ||
	skip_all "script (util-linux) is absent: it gives run.sh the terminal shell mode needs"
command -v mkfifo >/dev/null 2>&1 || skip_all "mkfifo is absent"

mkdir -p "$VM"
exec 8>"$VM/.lock"
command -v flock >/dev/null 2>&1 && flock 8

. "$ROOT/tests/vm_term.sh"
. "$ROOT/tests/lab_smoke.sh"
PROMPT='lab:~/workbook# '
export VM_LAB_DISK=$VM/lab-test.img
trap 'rm -f "$VM_LAB_DISK"; cleanup; exit 1' INT TERM

# the init in the initramfs must be this checkout's (lab.img is used as
# built: make vm-lab rebuilds it); a hand-out's as it came
rc=0
[ -n "${VM_LAB_RUN:-}" ] ||
	"$ROOT/scripts/vm/build.sh" "$k" >"$T_TMP/build.log" 2>&1 || rc=$?
[ $rc -eq 3 ] && skip_all "build.sh cannot here: $(tail -n 1 "$T_TMP/build.log")"
[ $rc -eq 0 ] || {
	ok 1 "kernel $k: the initramfs builds"
	sed 's/^/#   /' "$T_TMP/build.log"
	rm -f "$VM_LAB_DISK"
	done_testing
}
kver=$(readlink "$VM/$k")

# lab_boot [ARG...]: boots the lab (run.sh's ARGs too), 0 once it
# prompts (else the VM is stopped)
lab_boot() {
	boot -k "$k" $lab_arg "$@"
	if prompt; then
		ok 0 "$kver: the lab prompts ($(($(now) - T0)) s after run.sh started)"
		return 0
	fi
	ok 1 "$kver: the lab prompts within $LIMIT s"
	show
	stop_vm
	return 1
}

"$RUN" --reset >/dev/null 2>&1
check "run.sh --reset: no lab disk until the next boot" test ! -e "$VM_LAB_DISK"

if lab_boot; then
	lab_smoke "$kver"
	lab_check "$kver"
	type_line poweroff
	left "$kver" poweroff
fi

# the second boot shares a folder of the host's (virtiofsd: as root)
share=
vfsd=
for f in $(command -v virtiofsd) /usr/libexec/virtiofsd /usr/lib/qemu/virtiofsd; do
	[ -x "$f" ] && vfsd=$f
done
if [ "$(id -u)" -eq 0 ] && [ -n "$vfsd" ]; then
	share=$T_TMP/share
	mkdir -p "$share"
	echo from-host >"$share/in"
fi
if lab_boot ${share:+--share "$share"}; then
	type_cmd 'echo "KE""PT=$(grep -c "lab edit" '$SRC')"'
	wait_for '^KEPT=' 30
	is "$(guest KEPT)" 1 "$kver: after poweroff and a new boot the edit is still there"
	if [ -n "$share" ]; then
		type_cmd 'echo from-guest >/root/share/out; echo "SHA""RED=$(cat /root/share/in)"'
		wait_for '^SHARED=' 30
		is "$(guest SHARED)" from-host "$kver: run.sh --share: the host's folder is at /root/share"
		is "$(cat "$share/out" 2>/dev/null)" from-guest "$kver: run.sh --share: and what the guest writes there is on the host"
	else
		skip "run.sh --share" "no virtiofsd here, or not root"
	fi
	type_line poweroff
	left "$kver" "poweroff (second boot)"
fi

"$RUN" --reset >/dev/null 2>&1
if lab_boot; then
	type_cmd 'echo "AFT""ER=$(grep -c "lab edit" '$SRC')"'
	wait_for '^AFTER=' 30
	is "$(guest AFTER)" 0 "$kver: after run.sh --reset the edit is gone"
	type_line poweroff
	left "$kver" "poweroff (after --reset)"
fi
rm -f "$VM_LAB_DISK"
done_testing
