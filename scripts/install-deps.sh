#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Install what the workbook needs from Debian's packages. Idempotent.
#   install-deps.sh          build + run deps (clang, libbpf, bpftool, fio …)
#   install-deps.sh --check  exit 0 if the build deps are all there (and
#                            the cross ones, with --cross-arm64)
#   install-deps.sh --vm     also QEMU, busybox and the VM kernel's tools
#   install-deps.sh --vm-arm64  the aarch64 classroom VM on an x86 host:
#                            --vm, qemu-system-arm and --cross-arm64 (its
#                            programs); --vm-x86 the other way round
#   install-deps.sh --lab    also what make vm-lab and vm-disk build the
#                            lab with (mmdebstrap, qemu-utils, GRUB's
#                            BIOS images on x86, its UEFI ones on arm64);
#                            --lab-arm64 the arm64 lab on an x86 host (and
#                            arch-test, qemu-user-static; the UEFI disk's
#                            FAT tools, firmware, and arm64 in dpkg's
#                            architectures for GRUB's arm64 .deb);
#                            --lab-x86 the other way round. make test
#                            does not build the lab: CI needs none of it
#   install-deps.sh --bench  also libbpf-tools and bpftrace for comparisons
#   install-deps.sh --view   also Chromium, fonts and python3: the tests that
#                            render pages (heatmap.t, ctracer_view.t)
#   install-deps.sh --cross-arm64  also Debian's aarch64 cross compiler and
#                            the :arm64 libraries, for make ARCH=arm64 on
#                            an x86 host (adds arm64 to dpkg's architectures;
#                            --cross-x86 is the same the other way round)
set -e

BUILD="clang llvm libbpf-dev libelf-dev zlib1g-dev bpftool make gcc pkg-config patch"
RUN="fio uftrace util-linux perl blktrace"
VM="busybox-static e2fsprogs cpio zstd binutils"
# The lab: mmdebstrap builds it; make vm-disk makes it a bootable disk
# (qemu-img, sfdisk, xz for the kernels' .ko.xz modules, GRUB's BIOS
# images: boot_loader_for). Another architecture's: mmdebstrap runs its
# maintainer scripts, and lab.sh its build, through qemu-user
# (binfmt_misc); mmdebstrap asks arch-test whether that works.
LAB="mmdebstrap qemu-utils fdisk xz-utils"
LAB_FOREIGN="arch-test qemu-user-static"
# The arm64 lab's UEFI disk: grub-mkimage (GRUB's arm64 modules: an arm64
# host's grub-efi-arm64-bin, else its .deb, which disk.sh fetches), the
# EFI system partition's FAT (mkfs.fat, mtools), the firmware that
# tests/vm_disk.t boots it with
UEFI_DISK="grub-common dosfstools mtools qemu-efi-aarch64"
BENCH="libbpf-tools bpftrace"
VIEW="chromium fonts-dejavu-core python3"
# make ARCH=arm64 links the target's own libraries, statically: multiarch
# packages, each the same version as its host twin (so apt may upgrade a
# few host libraries with them).
CROSS_ARM64="gcc-aarch64-linux-gnu libbpf-dev:arm64 libelf-dev:arm64 zlib1g-dev:arm64"
CROSS_X86="gcc-x86-64-linux-gnu libbpf-dev:amd64 libelf-dev:amd64 zlib1g-dev:amd64"

missing() {
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "ok installed" ||
			echo "$p"
	done
}

pkgs="$BUILD $RUN"
build=$BUILD
check=
foreign=

# cross DEBARCH PACKAGES: a cross toolchain for DEBARCH, unless this host
# is one (it then builds for it with its own compiler).
cross() {
	[ "$(dpkg --print-architecture)" = "$1" ] && return 0
	foreign=$1
	pkgs="$pkgs $2"
	build="$build $2"
}

# qemu_for DEBARCH: the package of QEMU's emulator for a DEBARCH guest
qemu_for() {
	case "$1" in
	arm64) echo qemu-system-arm ;;
	*) echo qemu-system-x86 ;;
	esac
}

# boot_loader_for DEBARCH: GRUB for the lab's bootable disk of a DEBARCH
# guest on a DEBARCH host (scripts/vm/disk.sh: x86 BIOS, arm64 UEFI)
boot_loader_for() {
	case "$1" in
	amd64) echo grub-pc-bin ;;
	arm64) echo grub-efi-arm64-bin $UEFI_DISK ;;
	esac
}

for a in "$@"; do
	case "$a" in
	--check) check=1 ;;
	--vm) pkgs="$pkgs $VM $(qemu_for "$(dpkg --print-architecture)")" ;;
	--vm-arm64) pkgs="$pkgs $VM $(qemu_for arm64)" && cross arm64 "$CROSS_ARM64" ;;
	--vm-x86) pkgs="$pkgs $VM $(qemu_for amd64)" && cross amd64 "$CROSS_X86" ;;
	--lab) pkgs="$pkgs $LAB $(boot_loader_for "$(dpkg --print-architecture)")" ;;
	--lab-arm64)
		pkgs="$pkgs $LAB $LAB_FOREIGN $UEFI_DISK"
		[ "$(dpkg --print-architecture)" = arm64 ] || foreign=arm64
		;;
	--lab-x86) pkgs="$pkgs $LAB $LAB_FOREIGN" ;;
	--bench) pkgs="$pkgs $BENCH" ;;
	--view) pkgs="$pkgs $VIEW" ;;
	--cross-arm64) cross arm64 "$CROSS_ARM64" ;;
	--cross-x86) cross amd64 "$CROSS_X86" ;;
	*) echo "install-deps.sh: unknown option '$a'" >&2; exit 2 ;;
	esac
done
if [ -n "$check" ]; then
	[ -z "$(missing $build)" ]
	exit $?
fi

need=$(missing $pkgs)
# A foreign architecture dpkg does not know yet: added even when every
# package is there (--lab-arm64 fetches GRUB's arm64 .deb, installs none).
add_arch=
if [ -n "$foreign" ] && ! dpkg --print-foreign-architectures | grep -qx "$foreign"; then
	add_arch=$foreign
fi
[ -z "$need$add_arch" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "install-deps.sh: need root to install:" $need ${add_arch:+"(and to add $add_arch to dpkg's architectures)"} >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
refresh=
if [ -n "$add_arch" ]; then
	echo "Adding $add_arch to dpkg's architectures"
	dpkg --add-architecture "$add_arch"
	refresh=1	# the lists know no $add_arch package yet
fi
# Refresh package lists once if they are missing or a day old.
if [ -n "$refresh" ] ||
	[ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null | head -1)" ]; then
	apt-get update -qq
fi
[ -z "$need" ] && exit 0
echo "Installing:" $need
apt-get install -y -qq --no-install-recommends $need >/dev/null
