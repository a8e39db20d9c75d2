#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Pack the classroom VM for hand-out: build/classroom-vm.tar.gz holds
# run.sh, the disks, the architecture's name and, per kernel, vmlinuz and
# initrd.img. On a classroom machine with QEMU:
#   tar xzf classroom-vm.tar.gz && classroom-vm/run.sh
#   scripts/vm/pack.sh [KERNEL...]     (default: cloud; built by make vm)
#   scripts/vm/pack.sh --lab [KERNEL...]   the lab (make vm-lab) instead:
#                      build/classroom-lab.tar.gz, lab.img in disk.img's
#                      place; classroom-lab/run.sh boots it (run.sh --lab)
# VM_ARCH=arm64 (the default on an arm64 host): the arm64 VM, as
# build/classroom-vm-arm64.tar.gz (classroom-vm-arm64/).
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/scripts/vm/arch.sh"
name=classroom-vm
title=VM
disk=disk.img
how="make vm"
if [ "${1:-}" = --lab ]; then
	shift
	name=classroom-lab
	title=lab
	disk=lab.img
	how="make vm-lab"
fi
case "${1:-}" in
-*) echo "usage: pack.sh [--lab] [KERNEL...]" >&2; exit 2 ;;
esac
[ "$VM_ARCH" = x86 ] || name=$name-$VM_ARCH
out=$ROOT/build/$name.tar.gz
[ $# -gt 0 ] || set -- cloud
what="an x86-64 VM"
[ "$VM_ARCH" = arm64 ] && what="an arm64 (aarch64) VM"
[ -f "$VM/$disk" ] || { echo "pack: $VM/$disk missing ($how)" >&2; exit 1; }

tmp=$ROOT/build/vm-pack.$$
trap 'rm -rf "$tmp"' EXIT
d=$tmp/$name
mkdir -p "$d"
# copies: make vm may replace the originals while tar reads
cp --sparse=always "$VM/$disk" "$VM/scratch.img" "$d/"
cp "$VM/arch" "$d/"
cp "$ROOT/scripts/vm/run.sh" "$d/"
for k in "$@"; do
	kver=$(readlink "$VM/$k") || { echo "pack: kernel $k is not built ($how)" >&2; exit 1; }
	mkdir -p "$d/$kver"
	cp "$VM/$kver/vmlinuz" "$VM/$kver/initrd.img" "$d/$kver/"
	ln -s "$kver" "$d/$k"
done
# what run.sh does here, and what stays
if [ "$disk" = lab.img ]; then
	use="  ./run.sh              boot $1 ($(readlink "$VM/$1")) with a shell
  ./run.sh -k KERNEL    another kernel: $*
  ./run.sh --share DIR  DIR of this machine at /root/share too (as root,
                        with virtiofsd installed)
  ./run.sh --reset      your lab disk fresh again (your changes go)

Inside: a Debian system with the toolchain; the workbook is in
/root/workbook, built: edit a stage, make, run it, make check an
exercise. /dev/nullb0 is a scratch disk whose every I/O takes a known
time, /mnt/scratch an ext4. Leave with poweroff (or exit), or press
Ctrl-A then X. What you change stays, in lab-disk.img next to run.sh
(made at the first boot), until ./run.sh --reset. The console has this
terminal's size; after resizing the window, type resize."
else
	use="  ./run.sh              boot $1 ($(readlink "$VM/$1")) with a shell
  ./run.sh -k KERNEL    another kernel: $*
  ./run.sh test         run every test headless (TAP in log/…)

Inside: the workbook is in /workbook; /dev/nullb0 is a scratch disk whose
every I/O takes a known time, /mnt/scratch an ext4 on its own disk.
Leave with poweroff (or exit, or Ctrl-D), or press Ctrl-A then X.
reboot boots a fresh VM. Every boot starts from the images as they came:
what you change inside is discarded when you leave or reboot. The console
has this terminal's size; after resizing the window, type resize."
fi
cat >"$d/README.txt" <<END
Classroom $title of the BPF storage-stack workbook: $what.
Needs only QEMU's $QEMU
(Debian/Ubuntu: apt-get install $QEMU_PKG). On a host of the same
architecture with /dev/kvm it runs at full speed; elsewhere QEMU
emulates it (TCG), slower but the same VM.

$use
END
tar -C "$tmp" --sparse --owner=0 --group=0 -czf "$out.tmp" "$name"
mv "$out.tmp" "$out"
echo "  PACK     build/$(basename "$out") ($(du -h "$out" | cut -f1))" >&2
