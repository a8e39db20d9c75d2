#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The arm64 lab as a bootable disk (make vm-disk VM_ARCH=arm64:
# build/arm64/vm/lab.qcow2): tests/vm_disk.t with VM_ARCH=arm64, as
# vm_lab_arm64.t is to vm_lab.t: the disk booted by QEMU's UEFI firmware
# (qemu-efi-aarch64) through GRUB on its EFI system partition, no
# -kernel, then the lab's smoke test and make check. A SKIP where the
# disk is not built (CI); on an arm64 host tests/vm_disk.t is this test.
# vm: skip it boots the VM
case $(uname -m) in
aarch64 | arm64)
	echo "1..0 # SKIP this host is arm64: tests/vm_disk.t boots the arm64 disk"
	exit 0
	;;
esac
VM_ARCH=arm64 exec sh "$(dirname "$0")/vm_disk.t"
