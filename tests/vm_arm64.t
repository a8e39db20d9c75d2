#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The aarch64 classroom VM on an x86 host: tests/vm.t with VM_ARCH=arm64
# (programs cross built by make ARCH=arm64, Debian's cloud-arm64 kernels
# under qemu-system-aarch64, every test in every door they have). SKIPs
# without qemu-system-arm or the cross toolchain (scripts/install-deps.sh
# --vm-arm64); on an arm64 host tests/vm.t boots that VM itself.
# vm: skip it boots the VM
case $(uname -m) in
aarch64 | arm64)
	echo "1..0 # SKIP this host is arm64: tests/vm.t boots the arm64 VM"
	exit 0
	;;
esac
VM_ARCH=arm64 exec sh "$(dirname "$0")/vm.t"
