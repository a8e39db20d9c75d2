# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Sourced by the VM's host scripts (build.sh, pack.sh, tests/vm.t): which
# architecture the classroom VM is, and where its pieces live.
#   VM_ARCH     x86 or arm64 (also x86_64, aarch64, amd64); default: the
#               host's (make's VM_ARCH, not its ARCH, which cross builds)
# Sets HOST_ARCH, VM_ARCH, FOREIGN (1 if VM_ARCH is not the host's), VM
# (the VM folder: build/vm, or build/<arch>/vm as make ARCH=<arch> puts
# its programs under build/<arch>/), QEMU (the system emulator) and
# QEMU_PKG (Debian's package of it), DEB_ARCH
# and DEB_SUFFIX (":arm64" for another architecture's packages), TRIPLET.
# ROOT must be set.

vm_arch_name() {
	case "$1" in
	x86_64 | amd64 | x86) echo x86 ;;
	aarch64 | arm64) echo arm64 ;;
	*) echo "$1" ;;
	esac
}

HOST_ARCH=$(vm_arch_name "$(uname -m)")
VM_ARCH=$(vm_arch_name "${VM_ARCH:-$HOST_ARCH}")
case "$VM_ARCH" in
x86)
	DEB_ARCH=amd64 TRIPLET=x86_64-linux-gnu
	QEMU=qemu-system-x86_64 QEMU_PKG=qemu-system-x86
	;;
arm64)
	DEB_ARCH=arm64 TRIPLET=aarch64-linux-gnu
	QEMU=qemu-system-aarch64 QEMU_PKG=qemu-system-arm
	;;
*)
	echo "vm: VM_ARCH=$VM_ARCH: no classroom VM for it (x86, arm64)" >&2
	exit 2
	;;
esac
FOREIGN=
DEB_SUFFIX=
VM=$ROOT/build/vm
if [ "$VM_ARCH" != "$HOST_ARCH" ]; then
	FOREIGN=1
	DEB_SUFFIX=:$DEB_ARCH
	VM=$ROOT/build/$VM_ARCH/vm
fi
export VM_ARCH
