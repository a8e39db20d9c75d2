#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Pack the classroom VM for hand-out: build/classroom-vm.tar.gz holds
# run.sh, the disks, the architecture's name and, per kernel, vmlinuz and
# initrd.img. On a classroom machine with QEMU:
#   tar xzf classroom-vm.tar.gz && classroom-vm/run.sh
#   scripts/vm/pack.sh [KERNEL...]     (default: cloud; built by make vm)
# VM_ARCH=arm64 (the default on an arm64 host): the arm64 VM, as
# build/classroom-vm-arm64.tar.gz (classroom-vm-arm64/).
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/scripts/vm/arch.sh"
name=classroom-vm
[ "$VM_ARCH" = x86 ] || name=$name-$VM_ARCH
out=$ROOT/build/$name.tar.gz
[ $# -gt 0 ] || set -- cloud
what="an x86-64 VM"
[ "$VM_ARCH" = arm64 ] && what="an arm64 (aarch64) VM"

tmp=$ROOT/build/vm-pack.$$
trap 'rm -rf "$tmp"' EXIT
d=$tmp/$name
mkdir -p "$d"
# copies: make vm may replace the originals while tar reads
cp --sparse=always "$VM/disk.img" "$VM/scratch.img" "$d/"
cp "$VM/arch" "$d/"
cp "$ROOT/scripts/vm/run.sh" "$d/"
for k in "$@"; do
	kver=$(readlink "$VM/$k") || { echo "pack: kernel $k is not built (make vm)" >&2; exit 1; }
	mkdir -p "$d/$kver"
	cp "$VM/$kver/vmlinuz" "$VM/$kver/initrd.img" "$d/$kver/"
	ln -s "$kver" "$d/$k"
done
cat >"$d/README.txt" <<END
Classroom VM of the BPF storage-stack workbook: $what.
Needs only QEMU's $QEMU
(Debian/Ubuntu: apt-get install $QEMU_PKG). On a host of the same
architecture with /dev/kvm it runs at full speed; elsewhere QEMU
emulates it (TCG), slower but the same VM.

  ./run.sh              boot $1 ($(readlink "$VM/$1")) with a shell
  ./run.sh -k KERNEL    another kernel: $*
  ./run.sh test         run every test headless (TAP in log/…)

Inside: the workbook is in /workbook; /dev/nullb0 is a scratch disk whose
every I/O takes a known time, /mnt/scratch an ext4 on its own disk.
Leave with poweroff (or exit, or Ctrl-D), or press Ctrl-A then X.
reboot boots a fresh VM. Every boot starts from the images as they came:
what you change inside is discarded when you leave or reboot.
END
tar -C "$tmp" --sparse --owner=0 --group=0 -czf "$out.tmp" "$name"
mv "$out.tmp" "$out"
echo "  PACK     build/$(basename "$out") ($(du -h "$out" | cut -f1))" >&2
