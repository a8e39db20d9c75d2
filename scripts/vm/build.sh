#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Build the classroom VM from Debian packages only, cached under build/vm/:
#
#   scripts/vm/build.sh [KERNEL...]     (default: cloud)
#
# KERNEL is "cloud" (linux-image-cloud-amd64, today 6.1), "6.12"
# (linux-image-6.12-cloud-amd64) or a linux-image-* package name. For each:
#   build/vm/<kver>/vmlinuz, initrd.img   kernel, busybox + modules + init
#   build/vm/<KERNEL> -> <kver>           the name the scripts boot by
# and, shared by all kernels:
#   build/vm/disk.img      ext4: /workbook (built stages, tests, helpers),
#                          /tools (fio, setpriv, uftrace and their
#                          libraries, uftrace's libmcount)
#   build/vm/scratch.img   empty ext4, the page-cache stages' filesystem
# Each piece is rebuilt only when a hash of its inputs changes. Exit 3:
# this host cannot build it (no package, no network, a tool missing).
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
VM=$ROOT/build/vm

# Modules the guest loads, in dependency order after resolution.
MODULES="configfs null_blk loop"
BUSYBOX=${BUSYBOX:-/bin/busybox}

die() {
	echo "vm build: $*" >&2
	exit 1
}

# cannot: something this host lacks (exit 3: the tests SKIP, not fail)
cannot() {
	echo "vm build: $*" >&2
	exit 3
}

# fresh STAMP HASH: 0 if the inputs' HASH is the one STAMP recorded.
fresh() {
	[ -f "$1" ] && [ "$(cat "$1")" = "$2" ]
}

# resolve NAME: the versioned linux-image package NAME is (or, a meta
# package, depends on) now; empty if the package lists do not know it.
resolve() {
	if ! apt-cache show "$1" >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
		apt-get update -qq >/dev/null 2>&1 || true
	fi
	apt-cache show "$1" >/dev/null 2>&1 || return 0
	_p=$(apt-cache depends "$1" 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[^ ]*\)$/\1/p' | head -n 1)
	echo "${_p:-$1}"
}

# fetch_kernel KERNEL: sets DEB (a cached .deb) and KVER.
fetch_kernel() {
	case "$1" in
	linux-image-*) meta=$1 ;;
	cloud) meta=linux-image-cloud-amd64 ;;
	*) meta=linux-image-$1-cloud-amd64 ;;
	esac
	pkg=$(resolve "$meta")
	if [ -z "$pkg" ]; then
		# Offline: the version this name resolved to last time.
		[ -L "$VM/$1" ] || cannot "cannot resolve $meta (no package lists, nothing cached)"
		pkg=linux-image-$(readlink "$VM/$1")
		echo "vm build: cannot resolve $meta now, using $pkg from before" >&2
	fi
	mkdir -p "$VM/debs"
	DEB=$(ls "$VM/debs/${pkg}_"*.deb 2>/dev/null | tail -n 1)
	if [ -z "$DEB" ]; then
		echo "  FETCH    $pkg" >&2
		# apt's sandbox user may not be able to write to build/
		(cd "$VM/debs" && apt-get download -q -o APT::Sandbox::User=root "$pkg" \
			>/dev/null) || cannot "cannot download $pkg"
		DEB=$(ls "$VM/debs/${pkg}_"*.deb | tail -n 1)
	fi
	KVER=${pkg#linux-image-}
}

# moddeps DIR NAME: NAME and what it depends on, dependencies first.
# A subshell: it recurses, and sh has no local variables.
moddeps() (
	_f=$(find "$1" -name "$2.ko*" -o -name "$(echo "$2" | tr _ -).ko*" | head -n 1)
	[ -n "$_f" ] || die "module $2 not found in the kernel package"
	for _d in $(modcat "$_f" | tr '\0' '\n' | sed -n 's/^depends=//p' | tr , ' '); do
		moddeps "$1" "$_d" || exit 1
	done
	echo "$_f"
)

modcat() {
	case "$1" in
	*.xz) "$BUSYBOX" xzcat "$1" ;;
	*.zst) zstd -dcq "$1" ;;
	*.gz) gzip -dc "$1" ;;
	*) cat "$1" ;;
	esac
}

build_initrd() {
	kdir=$VM/$KVER
	hash=$({
		echo "$DEB $MODULES"
		cat "$BUSYBOX" "$ROOT/scripts/vm/init" "$ROOT/scripts/vm/build.sh"
	} | sha256sum)
	[ -f "$kdir/vmlinuz" ] && [ -f "$kdir/initrd.img" ] &&
		fresh "$kdir/.inputs" "$hash" && return 0
	echo "  INITRD   build/vm/$KVER/initrd.img" >&2
	tmp=$VM/tmp.$$
	rm -rf "$tmp" && mkdir -p "$tmp/x" "$kdir"
	dpkg-deb --fsys-tarfile "$DEB" | tar -x -C "$tmp/x" ./boot ./lib/modules
	mv "$tmp/x/boot/vmlinuz-$KVER" "$kdir/vmlinuz"
	r=$tmp/root
	mkdir -p "$r/bin" "$r/lib/modules" "$r/proc" "$r/sys" "$r/dev" "$r/tmp" \
		"$r/run" "$r/mnt" "$r/root" "$r/etc"
	cp "$BUSYBOX" "$r/bin/busybox"
	cp "$ROOT/scripts/vm/init" "$r/init"
	chmod 755 "$r/init"
	# No modules.dep and no kmod in the guest: init insmods in this order.
	mods=$(for m in $MODULES; do
		moddeps "$tmp/x/lib/modules" "$m" || exit 1
	done) || exit 1
	for f in $mods; do
		n=$(basename "$f" | sed 's/\.ko.*//')
		[ -f "$r/lib/modules/$n.ko" ] && continue
		modcat "$f" >"$r/lib/modules/$n.ko"
		echo "$n" >>"$r/lib/modules/order"
	done
	# to a new file, then renamed: a running QEMU keeps the old one
	(cd "$r" && find . | cpio -o -H newc --quiet -R 0:0) | gzip -6 >"$tmp/initrd.img"
	mv "$tmp/initrd.img" "$kdir/initrd.img"
	rm -rf "$tmp"
	echo "$hash" >"$kdir/.inputs"
}

# What goes on the disk: every built stage (and solution) program with its
# sources and README, the tests and their static helpers, the guest
# scripts, scripts/heatmap, the docs.
workbook_files() (
	cd "$ROOT"
	for f in stage*/bio_trace stage*/pagecache_trace stage*/tracex3 stage*/ctracer \
		stage*/*.c stage*/*.h stage*/README.md stage*/Makefile \
		solutions/*/bio_trace solutions/*/pagecache_trace solutions/*/*.c \
		bench/*/bio_trace bench/*/README.md \
		tests/*.t tests/lib.sh tests/bin/* scripts/vm/guest/* scripts/heatmap \
		scripts/uftrace-readahead.sh scripts/read.c \
		README.md LICENSE docs/*.md; do
		[ -f "$f" ] && echo "$f"
	done
)

# Dynamic tools and their shared libraries, for /tools on the disk (not
# the initramfs: fio's closure is ~80 MB). util-linux's setpriv: busybox's
# cannot drop root (--reuid), which the tests use. uftrace also needs its
# libmcount*.so, which it preloads into the program it traces: they go to
# /tools/lib/uftrace, with their own libraries (libcapstone) in /tools/lib.
TOOLS=${VM_TOOLS:-fio setpriv uftrace}
tool_files() {
	for t in $TOOLS; do
		f=$(command -v "$t") || continue
		echo "$f"
		[ "$t" = uftrace ] && mcount_libs "$f"
	done | while read -r f; do
		echo "$f"
		ldd "$f" | awk '/=> \// { print $3 } /^\t\/.*ld-linux/ { print $1 }'
	done | awk '!seen[$0]++'
}

# mcount_libs UFTRACE: its libmcount*.so, where its package installs them
# (Debian: /usr/lib/<triplet>/uftrace; a source build: <prefix>/lib/uftrace).
mcount_libs() {
	_pre=$(dirname "$(dirname "$1")")
	for _d in "$_pre"/lib/*/uftrace "$_pre"/lib/uftrace "$_pre"/lib64/uftrace; do
		[ -f "$_d/libmcount.so" ] || continue
		ls "$_d"/libmcount*.so
		return 0
	done
	echo "vm build: no libmcount.so next to $1: uftrace cannot record in the VM" >&2
}

build_disk() {
	files=$(workbook_files)
	tools=$(tool_files)
	# size and mtime: cheap, and what make would look at
	hash=$({
		(cd "$ROOT" && ls -lL --time-style=+%s $files)
		[ -z "$tools" ] || ls -lL --time-style=+%s $tools
		cat "$ROOT/scripts/vm/build.sh"
	} | sha256sum)
	[ -f "$VM/disk.img" ] && fresh "$VM/.disk.inputs" "$hash" && return 0
	echo "  DISK     build/vm/disk.img" >&2
	tmp=$VM/tmp.$$
	rm -rf "$tmp" && mkdir -p "$tmp/workbook" "$tmp/tools/bin" "$tmp/tools/lib"
	(cd "$ROOT" && echo "$files" | cpio -pdm --quiet "$tmp/workbook")
	for l in $tools; do
		case "$l" in
		*/uftrace/libmcount*.so)
			mkdir -p "$tmp/tools/lib/uftrace"
			cp -L "$l" "$tmp/tools/lib/uftrace/"
			;;
		*/bin/* | */sbin/*) cp -L "$l" "$tmp/tools/bin/" ;;
		*) cp -L "$l" "$tmp/tools/lib/" ;;
		esac
	done
	# room for what a lesson writes, on top of what is there
	mb=$(($(du -sm "$tmp" | cut -f1) * 5 / 4 + 64))
	mkfs.ext4 -q -F -L workbook -E root_owner=0:0 -d "$tmp" "$tmp.img" "${mb}M" >/dev/null
	mv "$tmp.img" "$VM/disk.img"
	rm -rf "$tmp"
	echo "$hash" >"$VM/.disk.inputs"
}

build_scratch() {
	[ -f "$VM/scratch.img" ] && return 0
	echo "  DISK     build/vm/scratch.img" >&2
	# no lazy init: no thread writing to it behind the tests' backs
	mkfs.ext4 -q -F -L scratch -E lazy_itable_init=0,lazy_journal_init=0 \
		"$VM/tmp.$$.img" 512M >/dev/null
	mv "$VM/tmp.$$.img" "$VM/scratch.img"
}

[ $# -gt 0 ] || set -- cloud
command -v mkfs.ext4 >/dev/null 2>&1 || cannot "mkfs.ext4 missing (scripts/install-deps.sh --vm)"
command -v cpio >/dev/null 2>&1 || cannot "cpio missing (scripts/install-deps.sh --vm)"
"$BUSYBOX" --help 2>/dev/null | grep -q BusyBox || cannot "$BUSYBOX missing (install busybox-static)"
mkdir -p "$VM"
trap 'rm -rf "$VM/tmp.$$" "$VM/tmp.$$.img"' EXIT
for k in "$@"; do
	fetch_kernel "$k"
	build_initrd
	ln -sfn "$KVER" "$VM/$k"
done
build_disk
build_scratch
