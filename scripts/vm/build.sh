#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Build the classroom VM from Debian packages only, cached under build/vm/:
#
#   scripts/vm/build.sh [KERNEL...]     (default: cloud)
#   VM_ARCH=arm64 scripts/vm/build.sh   an aarch64 VM (default: this host's)
#
# KERNEL is "cloud" (linux-image-cloud-amd64, today 6.1), "6.12"
# (linux-image-6.12-cloud-amd64) or a linux-image-* package name; -arm64
# for VM_ARCH=arm64; or another suite's, through a private apt
# configuration (scripts/vm/apt.sh, its lists in <VM folder>/apt/):
# "5.10" (bullseye's cloud), "7.2" (sid's cloud), "7.2-16k" (sid's
# arm64-16k: 16 KiB pages, arm64 only). For each, in the VM folder
# (build/vm, or build/<arch>/vm for another architecture than the host's):
#   <kver>/vmlinuz, initrd.img   kernel, busybox + modules + init (and
#                                scripts/vm/guest/resize)
#   <KERNEL> -> <kver>           the name the scripts boot by
# and, shared by all kernels:
#   arch         x86 or arm64: which QEMU run.sh starts
#   disk.img     ext4: /workbook (built stages, tests, helpers), /tools
#                (fio, setpriv, uftrace, mkfs.ext4, bpftool and their
#                libraries, uftrace's libmcount)
#   scratch.img  empty ext4, the page-cache stages' filesystem
# Another architecture's VM takes its programs from build/<arch>/ (make
# ARCH=arm64) and its busybox and tools from that architecture's Debian
# packages (dpkg --add-architecture: scripts/install-deps.sh --vm-arm64).
# Each piece is rebuilt only when a hash of its inputs changes. Exit 3:
# this host cannot build it (no package, no network, a tool missing).
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/scripts/vm/arch.sh"
. "$ROOT/scripts/vm/apt.sh"

# Modules the guest loads, in dependency order after resolution (those
# built into a kernel are left out). The disks are NVMe with ext4: built
# into the cloud kernels, modules in the others (arm64-16k). arm64's
# results channel is a virtio console (QEMU's virt machine has one
# serial port for Linux).
MODULES="nvme ext4 configfs null_blk loop dm_mod"
[ "$VM_ARCH" = arm64 ] && MODULES="$MODULES virtio_pci virtio_console"
# Modules modprobe loads when a test asks (in /lib/modules/<kver>, with a
# modules.dep of their own; what they need is in MODULES). Not at boot:
# 6.12's dm_flakey has a clone_endio() of its own, and while it is loaded
# ctracer, which looks up dm_mod's, cannot load (the name is ambiguous).
LAZY_MODULES="dm_flakey"
BUSYBOX=${BUSYBOX:-/bin/busybox}	# the host's, for its xzcat

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
		sed -n 's/^ *Depends: \(linux-image-[^ :]*\)\(:[a-z0-9]*\)\{0,1\}$/\1/p' | head -n 1)
	echo "${_p:-${1%:*}}"
}

# kernel_suite KERNEL: the Debian suite whose kernel KERNEL names, when
# the host's package lists (bookworm: 6.1, 6.12) do not have it.
kernel_suite() {
	case $1 in
	5.10) echo bullseye ;;
	7.2 | 7.2-16k) echo sid ;;
	esac
}

# flavour KERNEL: cloud (virtio and NVMe, no firmware: a small package),
# or arm64-16k (16 KiB pages: sid's arm64 has it, in no cloud build).
flavour() {
	case $1 in
	*-16k) echo arm64-16k ;;
	*) echo "cloud-$DEB_ARCH" ;;
	esac
}

# newest VERSION FLAVOUR: the linux-image packages of kernel VERSION
# (5.10, 7.2) and FLAVOUR in the package lists, newest first (a suite
# carries several, and has no meta package per version).
newest() {
	apt-cache pkgnames "linux-image-$1" 2>/dev/null |
		grep -xE "linux-image-$(echo "$1" | sed 's/\./\\./g')[-.+][^ ]*-$2" |
		sort -rV
}

# kernel_packages KERNEL: the linux-image packages KERNEL may name, best
# first (empty if the lists do not know it). SUITE and SFX: fetch_kernel's.
kernel_packages() {
	case "$1" in
	linux-image-*) resolve "$1$SFX" ;;
	cloud) resolve "linux-image-cloud-$DEB_ARCH$SFX" ;;
	*)
		if [ -n "$SUITE" ]; then
			newest "${1%-16k}" "$(flavour "$1")"
		else
			resolve "linux-image-$1-cloud-$DEB_ARCH$SFX"
		fi
		;;
	esac
}

# parts PKG: the packages that make kernel PKG. Up to 6.x one; sid's
# linux-image-* holds nothing, its pieces depend on: linux-binary-*
# (vmlinuz), linux-modules-*, linux-base-* (modules.builtin).
parts() {
	echo "$1"
	apt-cache depends "$1$SFX" 2>/dev/null |
		sed -n "s/^ *Depends: \(linux-\(binary\|modules\|base\)-${1#linux-image-}\)\(:[a-z0-9]*\)\{0,1\}\$/\1/p"
}

# cached PKG: every part of PKG is in $VM/debs already
cached() {
	for _p in $(parts "$1"); do
		ls "$VM/debs/${_p}_"*.deb >/dev/null 2>&1 || return 1
	done
}

# fetch_parts PKG: the parts of PKG not cached yet into $VM/debs. Fails
# when the archive has not every one (a mirror may lack a suite's
# security pool for one architecture: bullseye-security's arm64 here).
fetch_parts() {
	_get=
	for _p in $(parts "$1"); do
		ls "$VM/debs/${_p}_"*.deb >/dev/null 2>&1 || _get="$_get $_p$SFX"
	done
	[ -n "$_get" ] || return 0
	echo "  FETCH   $_get" >&2
	download "$VM/debs" $_get 2>"$VM/debs/.fetch.err" && return 0
	echo "vm build: $1: $(grep -m 1 'E: ' "$VM/debs/.fetch.err")" >&2
	return 1
}

# pick KERNEL: sets PKG, the best candidate that is cached (a kernel once
# fetched is kept), else the best one the archive serves.
pick() {
	_cands=$(kernel_packages "$1")
	PKG=
	for _c in $_cands; do
		cached "$_c" && PKG=$_c && return 0
	done
	for _c in $_cands; do
		fetch_parts "$_c" && PKG=$_c && return 0
	done
	return 1
}

# fetch_kernel KERNEL: sets DEBS (its cached .debs) and KVER.
fetch_kernel() {
	case $1 in
	*-16k) [ "$DEB_ARCH" = arm64 ] || die "$1: 16 KiB pages are an arm64 flavour (VM_ARCH=arm64)" ;;
	esac
	SUITE=$(kernel_suite "$1")
	SFX=$DEB_SUFFIX
	unset APT_CONFIG
	if [ -n "$SUITE" ]; then
		suite_apt "$SUITE"
		SFX=	# the private lists are VM_ARCH's only
	fi
	mkdir -p "$VM/debs"
	# sid moves on: a list fetched earlier may name only versions gone
	pick "$1" || { [ -n "$SUITE" ] && [ -z "$APT_FRESH" ] && suite_update && pick "$1"; } || true
	if [ -z "$PKG" ]; then
		# Offline: the version this name resolved to last time.
		[ -L "$VM/$1" ] || cannot "cannot fetch kernel $1 (no package lists, nothing cached, or not in the archive)"
		PKG=linux-image-$(readlink "$VM/$1")
		echo "vm build: cannot fetch kernel $1 now, using $PKG from before" >&2
	fi
	KVER=${PKG#linux-image-}
	# its parts: those cached (also offline, when apt knows none)
	DEBS=$(ls "$VM/debs/" | sed -n "s/^\(linux-[a-z]*-$KVER\)_.*/\1/p" | sort -u |
		while read -r _p; do ls "$VM/debs/${_p}_"*.deb | tail -n 1; done)
	[ -n "$DEBS" ] || cannot "no package of $PKG in $VM/debs"
	unset APT_CONFIG
}

# download DIR PACKAGE...: their .debs into DIR (PACKAGE may be name:arch)
download() {
	_d=$1
	shift
	# apt's sandbox user may not be able to write to build/
	(cd "$_d" && apt-get download -q -o APT::Sandbox::User=root "$@" >/dev/null)
}

# moddeps DIR NAME: NAME and what it depends on, dependencies first;
# nothing if the kernel has it built in. A subshell: it recurses, and sh
# has no local variables.
moddeps() (
	_f=$(find "$1" -name "$2.ko*" -o -name "$(echo "$2" | tr _ -).ko*" | head -n 1)
	if [ -z "$_f" ] && grep -qE "/($2|$(echo "$2" | tr _ -))\.ko\$" "$1"/*/modules.builtin 2>/dev/null; then
		exit 0
	fi
	[ -n "$_f" ] || die "module $2 not found in the kernel package"
	for _d in $(modcat "$_f" | tr '\0' '\n' | sed -n 's/^depends=//p' | tr , ' '); do
		moddeps "$1" "$_d" || exit 1
	done
	echo "$_f"
)

# modcat MODULE: MODULE uncompressed. The guest's busybox insmod may not
# read every compression (zstd: 6.x+ kernels may ship .ko.zst): the host
# decompresses them all.
modcat() {
	case "$1" in
	*.xz) "$BUSYBOX" xzcat "$1" ;;
	*.zst)
		command -v zstd >/dev/null 2>&1 || cannot "zstd missing (apt-get install zstd): $1"
		zstd -dcq "$1"
		;;
	*.gz) gzip -dc "$1" ;;
	*) cat "$1" ;;
	esac
}

# unpack_kernel DIR: DEBS unpacked into DIR (but their docs); sets MODDIR
# (the modules' folder) and moves vmlinuz to $kdir. Up to 6.x: /boot and
# /lib/modules; sid's (merged /usr): /usr/lib/modules/KVER/vmlinuz too.
unpack_kernel() {
	for _d in $DEBS; do
		dpkg-deb --fsys-tarfile "$_d" | tar -x -C "$1" --exclude=./usr/share
	done
	MODDIR=$1/lib/modules
	[ -d "$1/usr/lib/modules/$KVER" ] && MODDIR=$1/usr/lib/modules
	for _v in "$1/boot/vmlinuz-$KVER" "$MODDIR/$KVER/vmlinuz"; do
		[ -f "$_v" ] && mv "$_v" "$kdir/vmlinuz" && return 0
	done
	die "no vmlinuz in $DEBS"
}

build_initrd() {
	kdir=$VM/$KVER
	hash=$({
		echo "$DEBS $MODULES / $LAZY_MODULES"
		cat "$GUEST_BUSYBOX" "$ROOT/scripts/vm/init" "$ROOT/scripts/vm/guest/resize" \
			"$ROOT/scripts/vm/build.sh"
	} | sha256sum)
	[ -f "$kdir/vmlinuz" ] && [ -f "$kdir/initrd.img" ] &&
		fresh "$kdir/.inputs" "$hash" && return 0
	echo "  INITRD   ${kdir#"$ROOT"/}/initrd.img" >&2
	tmp=$VM/tmp.$$
	rm -rf "$tmp" && mkdir -p "$tmp/x" "$kdir"
	unpack_kernel "$tmp/x"
	r=$tmp/root
	mkdir -p "$r/bin" "$r/lib/modules" "$r/proc" "$r/sys" "$r/dev" "$r/tmp" \
		"$r/run" "$r/mnt" "$r/root" "$r/etc" "$r/usr/local/bin"
	cp "$GUEST_BUSYBOX" "$r/bin/busybox"
	chmod 755 "$r/bin/busybox"
	cp "$ROOT/scripts/vm/init" "$r/init"
	chmod 755 "$r/init"
	# the console's size asked of the terminal (busybox has no resize)
	cp "$ROOT/scripts/vm/guest/resize" "$r/usr/local/bin/resize"
	chmod 755 "$r/usr/local/bin/resize"
	# No modules.dep and no kmod in the guest: init insmods in this order.
	mods=$(for m in $MODULES; do
		moddeps "$MODDIR" "$m" || exit 1
	done) || exit 1
	: >"$r/lib/modules/order"
	for f in $mods; do
		n=$(basename "$f" | sed 's/\.ko.*//')
		[ -f "$r/lib/modules/$n.ko" ] && continue
		modcat "$f" >"$r/lib/modules/$n.ko"
		echo "$n" >>"$r/lib/modules/order"
	done
	# busybox's modprobe finds these by modules.dep (nothing to load
	# first: what they depend on is loaded at boot)
	mkdir -p "$r/lib/modules/$KVER"
	: >"$r/lib/modules/$KVER/modules.dep"
	for m in $LAZY_MODULES; do
		deps=$(moddeps "$MODDIR" "$m") || exit 1
		[ -n "$deps" ] || continue	# built in
		for d in $(echo "$deps" | sed '$d'); do
			n=$(basename "$d" | sed 's/\.ko.*//')
			[ -f "$r/lib/modules/$n.ko" ] || die "$m needs $n, which is not in MODULES"
		done
		f=$(echo "$deps" | tail -n 1)
		n=$(basename "$f" | sed 's/\.ko.*//')
		modcat "$f" >"$r/lib/modules/$KVER/$n.ko"
		echo "$n.ko:" >>"$r/lib/modules/$KVER/modules.dep"
	done
	# to a new file, then renamed: a running QEMU keeps the old one
	(cd "$r" && find . | cpio -o -H newc --quiet -R 0:0) | gzip -6 >"$tmp/initrd.img"
	mv "$tmp/initrd.img" "$kdir/initrd.img"
	rm -rf "$tmp"
	echo "$hash" >"$kdir/.inputs"
}

# What goes on the disk: the sources and README of every stage and of
# tools/ctracer (its page's .css and .js too), the answers' patches, the
# tests, the guest scripts, the docs, the checker and its exercises
# (tests/check.t runs the built programs' run step); the programs come
# from program_files.
workbook_files() (
	cd "$ROOT"
	for f in stage*/*.c stage*/*.h stage*/README.md stage*/Makefile \
		tools/*/*.c tools/*/*.h tools/*/*.css tools/*/*.js tools/*/README.md \
		tools/*/Makefile solutions/*.patch bench/*/README.md \
		tests/*.t tests/lib.sh scripts/vm/guest/* \
		scripts/check scripts/check.d/* exercises/*/* \
		scripts/uftrace-readahead.sh scripts/read.c \
		README.md LICENSE docs/*.md; do
		[ -f "$f" ] && echo "$f"
	done
)

# program_files: "PATH-ON-DISK BUILT-FILE" for every built program: each
# stage's, tool's (tools/ctracer/ctracer, tools/iofollow/iofollow), answer's (build/solutions/ID/)
# and bench variant's, the test helpers, scripts/heatmap.
# This host's in the source tree; another architecture's (make ARCH=arm64)
# under build/<arch>/, a folder per stage or tool (build/arm64/ctracer/)
# and tests/bin, scripts.
program_files() (
	cd "$ROOT"
	if [ -z "$FOREIGN" ]; then
		for f in stage*/bio_trace stage*/pagecache_trace stage*/tracex3 stage*/class_trace \
			stage*/full_stack \
			tools/*/ctracer tools/*/iofollow \
			build/solutions/*/bio_trace build/solutions/*/pagecache_trace \
			build/solutions/*/tracex3 build/solutions/*/ctracer build/solutions/*/full_stack \
			bench/*/bio_trace \
			tests/bin/* scripts/heatmap; do
			[ -f "$f" ] && echo "$f $ROOT/$f"
		done
		exit 0
	fi
	xb=$ROOT/build/$VM_ARCH
	for f in "$xb"/solutions/*/bio_trace "$xb"/solutions/*/pagecache_trace \
		"$xb"/solutions/*/tracex3 "$xb"/solutions/*/ctracer "$xb"/solutions/*/full_stack; do
		[ -f "$f" ] && echo "build/${f#"$xb"/} $f"
	done
	for d in stage*/ tools/*/ bench/*/; do
		for n in bio_trace pagecache_trace tracex3 class_trace full_stack ctracer iofollow; do
			f=$xb/$(basename "$d")/$n
			[ -f "$f" ] && echo "$d$n $f"
		done
	done
	for f in "$xb"/tests/bin/* "$xb"/scripts/heatmap; do
		[ -f "$f" ] && echo "${f#"$xb"/} $f"
	done
)

# Dynamic tools and their shared libraries, for /tools on the disk (not
# the initramfs: fio's closure is ~80 MB). util-linux's setpriv: busybox's
# cannot drop root (--reuid), which the tests use. e2fsprogs' mkfs.ext4
# (its name tells mke2fs the type) and bpftool: the checks that make a
# filesystem (08.2, 09.1, 09.2) or read a program's xlated code (05.3).
# uftrace also needs its libmcount*.so, which it preloads into the
# program it traces: they go to /tools/lib/uftrace, with their own
# libraries (libcapstone) in /tools/lib.
# This host's tools, found by ldd; another architecture's come from its
# packages (tool_sysroot), found by their ELF headers.
TOOLS=${VM_TOOLS:-fio setpriv uftrace mkfs.ext4 bpftool}
tool_files() {
	if [ -n "$FOREIGN" ]; then
		foreign_tool_files
		return
	fi
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

tool_package() {
	case "$1" in
	setpriv) echo util-linux ;;
	mkfs.ext4) echo e2fsprogs ;;
	*) echo "$1" ;;
	esac
}

# tool_sysroot: SYSROOT, the tools' packages for VM_ARCH and every library
# package they depend on, unpacked (not installed) under the VM folder.
# Without the other architecture's package lists: no tools (their tests
# SKIP in the guest).
tool_sysroot() {
	SYSROOT=$VM/sysroot
	_want=$(for t in $TOOLS; do tool_package "$t"; done | sort -u)
	# every Depends, recursively; of them the libraries and the tools
	_pk=$(apt-cache depends --recurse --no-recommends --no-suggests \
		--no-conflicts --no-breaks --no-replaces --no-enhances \
		$(for p in $_want; do echo "$p$DEB_SUFFIX"; done) 2>/dev/null |
		sed -n "s/^\([a-z0-9][^ <]*\)$DEB_SUFFIX\$/\1/p" |
		grep -xE "lib.*|zlib.*|$(echo $_want | tr ' ' '|')" | sort -u)
	if [ -z "$_pk" ]; then
		echo "vm build: no $DEB_ARCH packages known (dpkg --add-architecture $DEB_ARCH; apt-get update): no fio, setpriv, uftrace in the VM" >&2
		return 0
	fi
	_h=$(echo "$_pk" | sha256sum)
	[ -d "$SYSROOT" ] && fresh "$VM/.sysroot.inputs" "$_h" && return 0
	echo "  SYSROOT  $(echo "$_pk" | wc -l) $DEB_ARCH packages for $TOOLS" >&2
	mkdir -p "$VM/debs/tools"
	_get=$(for p in $_pk; do
		ls "$VM/debs/tools/${p}_"*.deb >/dev/null 2>&1 || echo "$p$DEB_SUFFIX"
	done)
	[ -z "$_get" ] || download "$VM/debs/tools" $_get ||
		cannot "cannot download the $DEB_ARCH tool packages"
	rm -rf "$SYSROOT"
	mkdir -p "$SYSROOT"
	for p in $_pk; do
		dpkg-deb -x "$(ls "$VM/debs/tools/${p}_"*.deb | tail -n 1)" "$SYSROOT"
	done
	echo "$_h" >"$VM/.sysroot.inputs"
}

# sysroot_lib NAME: the path of shared library NAME in SYSROOT (also in
# a private folder, which its users find by their RUNPATH: ceph's)
sysroot_lib() {
	for _d in lib/$TRIPLET usr/lib/$TRIPLET lib usr/lib; do
		[ -e "$SYSROOT/$_d/$1" ] && echo "$SYSROOT/$_d/$1" && return 0
	done
	_p=$(find "$SYSROOT" -name "$1" | head -n 1)
	[ -n "$_p" ] && echo "$_p"
}

# elf_closure FILE...: the files and every library they load, their
# loader too, by the NEEDED entries of their ELF headers.
elf_closure() {
	_todo="$*"
	_seen=" "
	while [ -n "$_todo" ]; do
		set -- $_todo
		_f=$1
		shift
		_todo="$*"
		case "$_seen" in *" $_f "*) continue ;; esac
		_seen="$_seen$_f "
		echo "$_f"
		_i=$(readelf -l "$_f" 2>/dev/null |
			sed -n 's/.*program interpreter: \(.*\)\]$/\1/p')
		for _n in $(readelf -d "$_f" 2>/dev/null |
			sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p') ${_i:+$(basename "$_i")}; do
			if _l=$(sysroot_lib "$_n"); then
				_todo="$_todo $_l"
			else
				echo "vm build: $_n, which $(basename "$_f") needs, is in no unpacked package" >&2
			fi
		done
	done
}

foreign_tool_files() {
	tool_sysroot
	[ -d "$SYSROOT" ] || return 0
	for t in $TOOLS; do
		for f in "$SYSROOT"/usr/bin/$t "$SYSROOT"/bin/$t "$SYSROOT"/usr/sbin/$t \
			"$SYSROOT"/sbin/$t; do
			[ -f "$f" ] || continue
			echo "$f"
			[ "$t" = uftrace ] && mcount_libs "$f"
			break
		done
	done | while read -r f; do
		elf_closure "$f"
	done | awk '!seen[$0]++'
}

# guest_busybox: GUEST_BUSYBOX, the busybox the initramfs gets: this
# host's, or the one of VM_ARCH's busybox-static package.
guest_busybox() {
	GUEST_BUSYBOX=$BUSYBOX
	[ -n "$FOREIGN" ] || return 0
	GUEST_BUSYBOX=$VM/busybox
	[ -f "$GUEST_BUSYBOX" ] && return 0
	mkdir -p "$VM/debs"
	_d=$(ls "$VM/debs/busybox-static_"*.deb 2>/dev/null | tail -n 1)
	if [ -z "$_d" ]; then
		download "$VM/debs" "busybox-static$DEB_SUFFIX" ||
			cannot "cannot download busybox-static$DEB_SUFFIX (scripts/install-deps.sh --vm-$VM_ARCH)"
		_d=$(ls "$VM/debs/busybox-static_"*.deb | tail -n 1)
	fi
	dpkg-deb --fsys-tarfile "$_d" | tar -xO ./bin/busybox >"$GUEST_BUSYBOX.tmp"
	mv "$GUEST_BUSYBOX.tmp" "$GUEST_BUSYBOX"
}

build_disk() {
	files=$(workbook_files)
	progs=$(program_files)
	tools=$(tool_files)
	# size and mtime: cheap, and what make would look at
	hash=$({
		(cd "$ROOT" && ls -lL --time-style=+%s $files)
		[ -z "$progs" ] || echo "$progs" | while read -r _to _from; do
			echo "$_to $(ls -lL --time-style=+%s "$_from")"
		done
		[ -z "$tools" ] || ls -lL --time-style=+%s $tools
		cat "$ROOT/scripts/vm/build.sh"
	} | sha256sum)
	[ -f "$VM/disk.img" ] && fresh "$VM/.disk.inputs" "$hash" && return 0
	echo "  DISK     ${VM#"$ROOT"/}/disk.img ($VM_ARCH)" >&2
	tmp=$VM/tmp.$$
	rm -rf "$tmp" && mkdir -p "$tmp/workbook" "$tmp/tools/bin" "$tmp/tools/lib"
	(cd "$ROOT" && echo "$files" | cpio -pdm --quiet "$tmp/workbook")
	# none before make has built them (echo would give one empty line)
	[ -z "$progs" ] || echo "$progs" | while read -r _to _from; do
		mkdir -p "$tmp/workbook/$(dirname "$_to")"
		cp -p "$_from" "$tmp/workbook/$_to"
	done
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
	echo "  DISK     ${VM#"$ROOT"/}/scratch.img" >&2
	# no lazy init: no thread writing to it behind the tests' backs
	mkfs.ext4 -q -F -L scratch -E lazy_itable_init=0,lazy_journal_init=0 \
		"$VM/tmp.$$.img" 512M >/dev/null
	mv "$VM/tmp.$$.img" "$VM/scratch.img"
}

[ $# -gt 0 ] || set -- cloud
command -v mkfs.ext4 >/dev/null 2>&1 || cannot "mkfs.ext4 missing (scripts/install-deps.sh --vm)"
command -v cpio >/dev/null 2>&1 || cannot "cpio missing (scripts/install-deps.sh --vm)"
"$BUSYBOX" --help 2>/dev/null | grep -q BusyBox || cannot "$BUSYBOX missing (install busybox-static)"
if [ -n "$FOREIGN" ]; then
	command -v readelf >/dev/null 2>&1 || cannot "readelf missing (install binutils)"
	[ -f "$ROOT/build/$VM_ARCH/stage01_submit_bio/bio_trace" ] ||
		cannot "no $VM_ARCH programs: make ARCH=$VM_ARCH (scripts/install-deps.sh --vm-$VM_ARCH first)"
fi
mkdir -p "$VM"
echo "$VM_ARCH" >"$VM/arch"
trap 'rm -rf "$VM/tmp.$$" "$VM/tmp.$$.img" "$VM/busybox.tmp"' EXIT
guest_busybox
for k in "$@"; do
	fetch_kernel "$k"
	build_initrd
	ln -sfn "$KVER" "$VM/$k"
done
build_disk
build_scratch
