#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Build the classroom VM's lab disk: a Debian bookworm root filesystem in
# which a student edits, builds and runs the workbook (docs/vm.md, "The
# lab image"). From Debian packages only, cached under build/vm/:
#
#   scripts/vm/lab.sh [KERNEL...]      (default: cloud; make vm-lab)
#   VM_ARCH=arm64 scripts/vm/lab.sh    an aarch64 lab, in build/arm64/vm/
#
#   lab-base.tar   mmdebstrap's system: the toolchain, fio, editors …
#                  (rebuilt only when LAB_PACKAGES or this script change)
#   lab.img        ext4: that system, the modules of each KERNEL (which
#                  build.sh fetched) in /lib/modules, the workbook's
#                  tracked files in /root/workbook, built there
#
# run.sh --lab boots it with build.sh's kernel and initramfs: the
# initramfs's init (scripts/vm/init, wb.lab=1) mounts the lab disk and
# runs the student's shell chrooted into it. lab.img stays as built;
# run.sh works on a copy of it (lab-disk.img) and --reset copies it
# again. Another architecture's lab is made and built the same way, its
# binaries run by qemu-user (binfmt_misc): see foreign(). Exit 3: this
# host cannot build it.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/scripts/vm/arch.sh"

SUITE=bookworm
MIRROR=http://deb.debian.org/debian
# What a lesson uses inside: the build (as scripts/install-deps.sh), the
# tools the tests and stages run, editors. busybox-static gives poweroff,
# reboot and halt that signal the initramfs's init (PID 1).
LAB_PACKAGES="clang llvm libbpf-dev libelf-dev zlib1g-dev bpftool make gcc patch
libc6-dev pkg-config fio uftrace util-linux procps e2fsprogs kmod vim-tiny
nano less inotify-tools busybox-static"

die() {
	echo "vm lab: $*" >&2
	exit 1
}

cannot() {
	echo "vm lab: $*" >&2
	exit 3
}

fresh() {
	[ -f "$1" ] && [ "$(cat "$1")" = "$2" ]
}

# base: lab-base.tar, the Debian system without the workbook. The
# security suite carries bookworm's current bpftool and libraries.
base() {
	hash=$({
		echo "$SUITE $MIRROR $LAB_PACKAGES"
		sed -n '/^base()/,/^}/p' "$0"
	} | sha256sum)
	[ -f "$VM/lab-base.tar" ] && fresh "$VM/.lab-base.inputs" "$hash" && return 0
	echo "  MMDEBSTRAP  ${VM#"$ROOT"/}/lab-base.tar ($SUITE)" >&2
	t0=$(date +%s)
	mmdebstrap --quiet --variant=minbase --architectures="$DEB_ARCH" \
		--include="$(echo $LAB_PACKAGES | tr ' ' ,)" \
		--dpkgopt='path-exclude=/usr/share/doc/*' \
		--dpkgopt='path-exclude=/usr/share/man/*' \
		--dpkgopt='path-exclude=/usr/share/locale/*' \
		--dpkgopt='path-include=/usr/share/locale/locale.alias' \
		--customize-hook='chroot "$1" apt-get clean' \
		--customize-hook='rm -rf "$1"/var/lib/apt/lists/*' \
		"$SUITE" "$VM/tmp.$$.tar" \
		"deb $MIRROR $SUITE main" \
		"deb $MIRROR $SUITE-updates main" \
		"deb http://deb.debian.org/debian-security $SUITE-security main" ||
		cannot "mmdebstrap failed (network? apt-get install mmdebstrap)"
	mv "$VM/tmp.$$.tar" "$VM/lab-base.tar"
	echo "$hash" >"$VM/.lab-base.inputs"
	echo "  MMDEBSTRAP  took $(($(date +%s) - t0)) s" >&2
}

# kernel_debs KERNEL: the cached packages of the kernel build.sh linked
# as KERNEL (its modules go into the lab's /lib/modules)
kernel_debs() {
	_kver=$(readlink "$VM/$1") || cannot "kernel $1 is not built (make vm)"
	ls "$VM/debs/" | sed -n "s/^\(linux-[a-z]*-$_kver\)_.*/\1/p" | sort -u |
		while read -r _p; do ls "$VM/debs/${_p}_"*.deb | tail -n 1; done
}

# in_root COMMAND...: COMMAND chrooted into $r with /proc, /sys and /dev,
# in a mount namespace of its own (nothing to unmount after a failure)
in_root() {
	unshare -m sh -c '
		r=$1
		shift
		mount -t proc proc "$r/proc" && mount -t sysfs sysfs "$r/sys" &&
			mount --rbind /dev "$r/dev" && exec chroot "$r" "$@"' sh "$r" "$@"
}

# foreign: another architecture's binaries run here, for mmdebstrap's
# maintainer scripts and for the build in the chroot (the same make a
# student runs, so make finds the lab's tree up to date). qemu-user through
# binfmt_misc, the F flag set: the kernel opens the emulator when it is
# registered, so it runs inside the chroot too. Registered here if Debian's
# qemu-user-static is installed but nothing did (a host without systemd).
foreign() {
	_q=qemu-$(echo "$TRIPLET" | cut -d- -f1)
	_b=/proc/sys/fs/binfmt_misc
	_hint="scripts/install-deps.sh --lab-$VM_ARCH"
	command -v arch-test >/dev/null 2>&1 || cannot "arch-test missing (mmdebstrap needs it: $_hint)"
	[ -f "/usr/lib/binfmt.d/$_q.conf" ] || [ -e "$_b/$_q" ] ||
		cannot "no $_q for binfmt_misc ($_hint: qemu-user-static)"
	[ -e "$_b/register" ] || mount -t binfmt_misc binfmt_misc "$_b" ||
		cannot "cannot mount binfmt_misc at $_b"
	if [ ! -e "$_b/$_q" ]; then
		echo "  BINFMT   $_q (qemu-user-static)" >&2
		cat "/usr/lib/binfmt.d/$_q.conf" >"$_b/register" ||
			cannot "cannot register $_q with binfmt_misc"
	fi
	grep -q '^flags:.*F' "$_b/$_q" ||
		cannot "$_b/$_q has no F flag: its emulator would not run in a chroot"
	arch-test "$DEB_ARCH" >/dev/null 2>&1 ||
		cannot "$DEB_ARCH binaries do not run here through $_q"
}

[ "$(id -u)" -eq 0 ] || cannot "needs root (mmdebstrap, chroot)"
command -v mmdebstrap >/dev/null 2>&1 || cannot "mmdebstrap missing (apt-get install mmdebstrap)"
[ -z "$FOREIGN" ] || foreign
command -v mkfs.ext4 >/dev/null 2>&1 || cannot "mkfs.ext4 missing (apt-get install e2fsprogs)"
[ $# -gt 0 ] || set -- cloud
mkdir -p "$VM"
trap 'rm -rf "$VM/tmp.$$" "$VM/tmp.$$.tar" "$VM/tmp.$$.img"' EXIT
base

files=$(cd "$ROOT" && git ls-files) || die "$ROOT is not a git checkout"
debs=$(for k in "$@"; do kernel_debs "$k"; done)
[ -n "$debs" ] || cannot "no kernel package cached for $* (make vm)"
# size and mtime, as build.sh's disk: cheap, and what make looks at
hash=$({
	cat "$VM/.lab-base.inputs"
	echo "$debs"
	(cd "$ROOT" && ls -ld --time-style=+%s $files)
	cat "$0" "$ROOT/scripts/vm/guest/resize"
} | sha256sum)
[ -f "$VM/lab.img" ] && fresh "$VM/.lab.inputs" "$hash" && exit 0

echo "  LAB      ${VM#"$ROOT"/}/lab.img" >&2
r=$VM/tmp.$$
rm -rf "$r" && mkdir -p "$r"
tar -x -C "$r" -f "$VM/lab-base.tar"
# (keeping /lib a link: the system's /usr is merged)
for d in $debs; do
	dpkg-deb --fsys-tarfile "$d" |
		tar -x -C "$r" --keep-directory-symlink --exclude=./usr/share --exclude=./boot
done
for k in $(for k in "$@"; do readlink "$VM/$k"; done | sort -u); do
	in_root depmod "$k"
done
# poweroff, reboot, halt: busybox's, which signal PID 1 (no systemd)
for c in poweroff reboot halt; do
	ln -sf /bin/busybox "$r/usr/local/sbin/$c"
done
# resize: the serial console's size asked of the terminal (at boot when
# run.sh gave none, and after the window changes)
install -m 755 "$ROOT/scripts/vm/guest/resize" "$r/usr/local/bin/resize"
echo lab >"$r/etc/hostname"
w=$r/root/workbook
mkdir -p "$w"
(cd "$ROOT" && echo "$files" | cpio -pdm --quiet "$w")
# Built here, natively (the same x86 machine, minutes; another
# architecture under qemu-user, several times that); under TCG at first
# boot it would take many times longer. make test's programs too.
t0=$(date +%s)
in_root sh -c 'cd /root/workbook && make -j"$1" all helpers solutions >/dev/null' \
	sh "$(nproc)" || die "make failed inside the lab's chroot"
echo "  LAB      make took $(($(date +%s) - t0)) s" >&2
# room for a student's builds, on top of what is there
mb=$(($(du -sm "$r" | cut -f1) * 5 / 4 + 512))
mkfs.ext4 -q -F -L lab -E root_owner=0:0 -d "$r" "$VM/tmp.$$.img" "${mb}M" >/dev/null
mv "$VM/tmp.$$.img" "$VM/lab.img"
rm -rf "$r"
echo "$hash" >"$VM/.lab.inputs"
