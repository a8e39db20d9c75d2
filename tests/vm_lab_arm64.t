#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The aarch64 lab (make vm-lab VM_ARCH=arm64): tests/vm_lab.t with
# VM_ARCH=arm64, the same edit, rebuild, run, poweroff and --reset under
# qemu-system-aarch64. A SKIP where build/arm64/vm/lab.img is not built
# (CI); on an arm64 host tests/vm_lab.t is this test.
# vm: skip it boots the VM
case $(uname -m) in
aarch64 | arm64)
	echo "1..0 # SKIP this host is arm64: tests/vm_lab.t boots the arm64 lab"
	exit 0
	;;
esac
VM_ARCH=arm64 exec sh "$(dirname "$0")/vm_lab.t"
