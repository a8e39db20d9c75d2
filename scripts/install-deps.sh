#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Install what the workbook needs from Debian's packages. Idempotent.
#   install-deps.sh          build + run deps (clang, libbpf, bpftool, fio …)
#   install-deps.sh --check  exit 0 if the build deps are all there
#   install-deps.sh --vm     also QEMU, busybox and the VM kernel's tools
#   install-deps.sh --bench  also libbpf-tools and bpftrace for comparisons
#   install-deps.sh --view   also Chromium, fonts and python3: the tests that
#                            render pages (heatmap.t, stage10_view.t)
set -e

BUILD="clang llvm libbpf-dev libelf-dev zlib1g-dev bpftool make gcc pkg-config"
RUN="fio uftrace util-linux perl"
VM="qemu-system-x86 busybox-static e2fsprogs cpio zstd"
BENCH="libbpf-tools bpftrace"
VIEW="chromium fonts-dejavu-core python3"

missing() {
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "ok installed" ||
			echo "$p"
	done
}

pkgs="$BUILD $RUN"
for a in "$@"; do
	case "$a" in
	--check) [ -z "$(missing $BUILD)" ]; exit $? ;;
	--vm) pkgs="$pkgs $VM" ;;
	--bench) pkgs="$pkgs $BENCH" ;;
	--view) pkgs="$pkgs $VIEW" ;;
	*) echo "install-deps.sh: unknown option '$a'" >&2; exit 2 ;;
	esac
done

need=$(missing $pkgs)
[ -z "$need" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "install-deps.sh: need root to install:" $need >&2
	exit 1
fi
echo "Installing:" $need
export DEBIAN_FRONTEND=noninteractive
# Refresh package lists once if they are missing or a day old.
if [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null | head -1)" ]; then
	apt-get update -qq
fi
apt-get install -y -qq --no-install-recommends $need >/dev/null
