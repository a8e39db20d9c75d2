#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The lab as a bootable disk (make vm-disk: lab.qcow2, lab.ova): the OVA
# is what VirtualBox and VMware import (its members in the order OVF
# asks: the descriptor, the manifest, the disk; the manifest's sums
# right), and each disk boots in QEMU through its own boot loader (GRUB
# from the MBR; no -kernel): lab.qcow2 on virtio, as virt-manager
# attaches it, the OVA's VMDK on IDE, as its descriptor says. With
# VM_ARCH=arm64 (tests/vm_disk_arm64.t): the arm64 lab.qcow2 (no OVA),
# on virtio, through UEFI (Debian's qemu-efi-aarch64, QEMU_EFI.fd) and
# GRUB on its EFI system partition, the serial console ttyAMA0. On each,
# on a pseudo-terminal as tests/vm_lab.t: an edit of stage 03's printed
# line, make -C stage03_latency_map, the stage against a read of nullb0
# prints the new line; make check EX=03.1 fails, passes with the
# solution copied in; exit gives a new shell; poweroff ends QEMU. Also
# what its init prepared: tracefs, bpffs, cgroup2, the scratch ext4, nullb0, a
# shell on the VGA console (tty1) besides the serial one.
# The disks are opened with snapshot=on: the images stay as built.
# A SKIP where they are not built (CI); by hand:
#   make vm-disk && prove -v --exec sh tests/vm_disk.t
#   make vm-disk VM_ARCH=arm64 && prove -v --exec sh tests/vm_disk_arm64.t
# Under TCG unless VM_ACCEL=kvm; each step within VM_LAB_LIMIT s (300;
# arm64: 600).
# GRUB boots its first entry (6.1) unless VM_DISK_ENTRY=2 (6.12, when
# make vm-disk had both).
# vm: skip it boots the VM
. "$(dirname "$0")/lib.sh"
. "$ROOT/scripts/vm/arch.sh"

# arm64 under TCG: its UEFI firmware alone takes a while
LIMIT=${VM_LAB_LIMIT:-300}
[ "$VM_ARCH" = x86 ] || LIMIT=${VM_LAB_LIMIT:-600}

if [ "$VM_ARCH" = x86 ]; then
	[ -f "$VM/lab.qcow2" ] && [ -f "$VM/lab.ova" ] ||
		skip_all "the lab's bootable disks are not built (make vm-disk)"
else
	[ -f "$VM/lab.qcow2" ] ||
		skip_all "the $VM_ARCH lab's bootable disk is not built (make vm-disk VM_ARCH=$VM_ARCH)"
	# UEFI: Debian's qemu-efi-aarch64 (or its older AAVMF name)
	FIRMWARE=
	for f in /usr/share/qemu-efi-aarch64/QEMU_EFI.fd /usr/share/AAVMF/AAVMF_CODE.fd; do
		[ -f "$f" ] && FIRMWARE=$f && break
	done
	[ -n "$FIRMWARE" ] || skip_all "no UEFI firmware for $QEMU (Debian's qemu-efi-aarch64)"
fi
command -v "$QEMU" >/dev/null 2>&1 || skip_all "$QEMU is absent"
command -v script >/dev/null 2>&1 ||
	skip_all "script (util-linux) is absent: it gives QEMU a terminal"
command -v mkfifo >/dev/null 2>&1 || skip_all "mkfifo is absent"

exec 8>"$VM/.lock"
command -v flock >/dev/null 2>&1 && flock 8

. "$ROOT/tests/vm_term.sh"
. "$ROOT/tests/lab_smoke.sh"
PROMPT='lab:~/workbook# '
RUN=$QEMU
trap 'cleanup; exit 1' INT TERM

# ova_checks: the OVA, a ustar archive in OVF 1.1's and 2.0's order
# (DSP0243): the descriptor, the manifest, then the disk (the References'
# files)
ova=$T_TMP/ova
ova_checks() {
	mkdir -p "$ova"
	is "$(tar -tf "$VM/lab.ova" | tr '\n' ' ')" "lab.ovf lab.mf lab-disk1.vmdk " \
		"lab.ova holds lab.ovf, then lab.mf, then lab-disk1.vmdk"
	tar -xf "$VM/lab.ova" -C "$ova"
	sums=$(sed -n 's/^SHA256(\(.*\))= \([0-9a-f]*\)$/\2  \1/p' "$ova/lab.mf")
	check "lab.mf: the SHA-256 sums of lab.ovf and lab-disk1.vmdk" \
		sh -c 'cd "$1" && [ "$(echo "$2" | wc -l)" -eq 2 ] && echo "$2" | sha256sum -c --quiet' \
		sh "$ova" "$sums"
	if command -v xmllint >/dev/null 2>&1; then
		check "lab.ovf: well-formed XML" xmllint --noout "$ova/lab.ovf"
	else
		skip "lab.ovf: well-formed XML" "no xmllint here"
	fi
	vmdk_size=$(stat -c %s "$ova/lab-disk1.vmdk")
	check "lab.ovf: the disk's file and its size, streamOptimized, on IDE" sh -c '
		grep -q "ovf:href=\"lab-disk1.vmdk\" ovf:size=\"$2\"" "$1" &&
		grep -q "vmdk.html#streamOptimized" "$1" &&
		grep -q "<rasd:ResourceType>5</rasd:ResourceType>" "$1"' sh "$ova/lab.ovf" "$vmdk_size"
	check "lab-disk1.vmdk: a streamOptimized VMDK" \
		sh -c 'qemu-img info "$1" 2>/dev/null | grep -q "create type: streamOptimized" ||
			head -c 2048 "$1" | grep -aq "createType=\"streamOptimized\""' sh "$ova/lab-disk1.vmdk"
}

accel=tcg
cpu=max
[ "${VM_ACCEL:-}" = kvm ] && accel=kvm cpu=host
# the machine: x86's pc (SeaBIOS) with a VGA card; arm64's virt with its
# UEFI firmware (it prints on the serial port), a GIC and a CPU as
# run.sh gives them under TCG; no display device. NOPORT: a serial
# console with no port behind it.
if [ "$VM_ARCH" = x86 ]; then
	MACHINE="-machine pc -vga std" NOPORT=ttyS3
else
	MACHINE="-machine virt,gic-version=max -bios $FIRMWARE" NOPORT=ttyAMA1
	[ "$accel" = tcg ] && cpu=max,pauth-impdef=on
fi

# smoke NAME FORMAT IF FILE: boots FILE through its boot loader, the
# smoke test in it, poweroff
smoke() {
	boot -nodefaults -no-user-config $MACHINE -accel "$accel" -cpu "$cpu" \
		-m 1024 -smp 2 -no-reboot -display none \
		-chardev stdio,id=con,mux=on,signal=off -serial chardev:con \
		-mon chardev=con,mode=readline \
		-drive "file=$4,format=$2,if=$3,snapshot=on"
	# GRUB's menu on the serial console, then the kernel it boots
	# (VM_DISK_ENTRY: down arrows to another kernel's entry, and Enter:
	# GRUB says "Booting" only when its timeout chose)
	t_grub=
	_e=${VM_DISK_ENTRY:-1}
	if [ "$_e" -gt 1 ]; then
		wait_for "GNU GRUB" 120
		while [ "$_e" -gt 1 ]; do
			printf '\033[B' >&3
			_e=$((_e - 1))
		done
		printf '\r' >&3
		t_grub=$(($(now) - T0))
	else
		wait_for "Booting .Workbook lab, Linux" && t_grub=$(($(now) - T0))
	fi
	if ! prompt; then
		ok 1 "$1: boots through GRUB to the lab's prompt within $LIMIT s"
		show
		stop_vm
		return
	fi
	ok 0 "$1: boots through GRUB (it boots Linux after ${t_grub:-?} s) to the lab's prompt in $(($(now) - T0)) s"
	# the kernel's share of the boot: its uptime at the prompt
	type_cmd 'echo "RO""OT=$(findmnt -no SOURCE /) $(uname -r), up $(cut -d" " -f1 /proc/uptime) s"'
	wait_for '^ROOT=' 30
	diag "$1: root $(guest ROOT)"
	# what init prepared: the file systems the stages use, the
	# scratch ext4, and a shell on the VGA console too
	type_cmd 'for m in /sys/kernel/tracing /sys/fs/bpf /sys/kernel/debug /sys/fs/cgroup /mnt/scratch;' \
		'do mountpoint -q $m || echo "no $m"; done >/tmp/m;' \
		'echo "MO""UNTS=$(cat /tmp/m)/$(ps -o comm= -t tty1)/$(ls /dev/nullb0)"'
	wait_for '^MOUNTS=' 30
	is "$(guest MOUNTS)" "/bash//dev/nullb0" \
		"$1: tracefs, bpffs, debugfs, cgroup2, /mnt/scratch mounted, nullb0 there, a shell on tty1"
	# a console without its port (VirtualBox has no serial port by
	# default): lab-rc waits there rather than exiting (init would
	# start it again and again); ttyS3 has no UART in QEMU's pc,
	# ttyAMA1 none in its virt
	# (until it sleeps or is gone: a loaded guest takes its time)
	type_cmd "/usr/local/sbin/lab-rc console $NOPORT & i=0;" \
		'until [ "$(ps -o comm= -p $!)" = sleep ] || ! kill -0 $! 2>/dev/null ||' \
		'[ $i -gt 300 ]; do sleep 0.2; i=$((i + 1)); done;' \
		'echo "NO""PORT=$(ps -o comm= -p $!)"; kill $!; wait'
	wait_for '^NOPORT=' 90
	is "$(guest NOPORT)" sleep "$1: lab-rc's shell on a console with no port waits (sleep), not exits"
	lab_smoke "$1"
	lab_check "$1"
	# exit: init starts a new shell (its banner again), not a power-off
	type_line exit
	_end=$(($(now) + 60))
	until [ "$(this_boot | grep -c 'Classroom lab, kernel')" -ge 2 ] || [ "$(now)" -gt $_end ]; do
		sleep 0.2
	done
	check "$1: exit gives a new shell on the console" \
		test "$(this_boot | grep -c 'Classroom lab, kernel')" -ge 2
	type_cmd 'echo "AG""AIN=$(pwd)"'
	wait_for '^AGAIN=' 30
	is "$(guest AGAIN)" /root/workbook "$1: the new shell is in /root/workbook"
	type_line poweroff
	if ended; then
		is "$ERC" 0 "$1: poweroff ends QEMU ($SECS s after), exit 0"
		this_boot | grep -q "reboot: Power down"
		ok $? "$1: the kernel powered off"
	else
		ok 1 "$1: poweroff ends QEMU within $LIMIT s"
		show
	fi
}

if [ "$VM_ARCH" = x86 ]; then
	ova_checks
	smoke lab.qcow2 qcow2 virtio "$VM/lab.qcow2"
	smoke "lab.ova's VMDK" vmdk ide "$ova/lab-disk1.vmdk"
else
	smoke "$VM_ARCH lab.qcow2" qcow2 virtio "$VM/lab.qcow2"
fi
done_testing
