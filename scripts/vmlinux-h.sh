#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Make a committed vmlinux.h (common/vmlinux/README.md says which is which):
#
#   scripts/vmlinux-h.sh ARCH [KERNEL] [-o FILE]
#
# ARCH is x86 or arm64. KERNEL is "running" (this host's
# /sys/kernel/btf/vmlinux; its architecture must be ARCH), "cloud" (the
# default: Debian's cloud kernel of ARCH, linux-image-cloud-amd64 or
# -arm64, resolved to today's versioned package) or a linux-image-*
# package name. A package is downloaded, not installed (apt-get download,
# cached in build/vmlinux-h/); its BTF is cut out of /boot/vmlinuz, which
# is no ELF file: an arm64 Image (raw or gzip) or an x86 bzImage (a
# compressed vmlinux inside). Output: common/vmlinux/ARCH/vmlinux.h,
# or FILE. Exit 3: this host cannot (no package lists for ARCH, offline).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=$ROOT/build/vmlinux-h
BPFTOOL=${BPFTOOL:-$(command -v bpftool || echo /usr/sbin/bpftool)}

die() {
	echo "vmlinux-h: $*" >&2
	exit 1
}

cannot() {
	echo "vmlinux-h: $*" >&2
	exit 3
}

usage() {
	sed -n 's/^#   //p' "$0" >&2
	exit 2
}

# is_btf FILE: bpftool reads it as BTF, and it describes a whole kernel.
is_btf() {
	"$BPFTOOL" btf dump file "$1" 2>/dev/null | grep -q "^\[[0-9]*\] STRUCT 'task_struct'"
}

# u32s FILE OFFSET N: N little-endian u32 values from OFFSET, one a line.
u32s() {
	od -An -v -t u4 --endian=little -j "$2" -N "$(($3 * 4))" "$1" | tr -s ' ' '\n' | grep .
}

# find_btf IMAGE OUT: the first struct btf_header in IMAGE that starts a
# whole BTF blob, copied to OUT. The header: magic 0xeB9F (bytes 9f eb),
# version 1, flags 0, hdr_len 24; then type_off, type_len, str_off,
# str_len. The blob is hdr_len + str_off + str_len bytes (strings last).
find_btf() {
	_img=$1 _out=$2
	for _off in $(LC_ALL=C grep -obUaP '\x9f\xeb\x01\x00\x18\x00\x00\x00' "$_img" | cut -d: -f1); do
		set -- $(u32s "$_img" $((_off + 8)) 4)
		# type_off type_len str_off str_len: types, then strings, back to back
		[ $# -eq 4 ] && [ "$1" -eq 0 ] && [ "$3" -eq "$2" ] || continue
		dd if="$_img" of="$_out" bs=64K iflag=skip_bytes,count_bytes \
			skip="$_off" count=$((24 + $3 + $4)) status=none
		is_btf "$_out" && return 0
	done
	return 1
}

# image_btf VMLINUZ OUT: the kernel's BTF, wherever it is in VMLINUZ.
image_btf() {
	find_btf "$1" "$2" && return 0
	# arm64 Image.gz: the whole file is one gzip stream
	if gzip -t "$1" 2>/dev/null; then
		gzip -dc "$1" >"$2.raw"
		find_btf "$2.raw" "$2" && return 0
	fi
	# x86 bzImage: the vmlinux ELF is a compressed stream inside; try each
	# format's magic where it occurs (Debian's amd64 kernels use lz4).
	for _f in 'lz4 -dc:\x02\x21\x4c\x18' 'zstd -dcq:\x28\xb5\x2f\xfd' \
		'xz -dcq:\xfd\x37\x7a\x58\x5a\x00' 'gzip -dc:\x1f\x8b\x08'; do
		_cmd=${_f%%:*}
		command -v "${_cmd%% *}" >/dev/null 2>&1 || continue
		for _off in $(LC_ALL=C grep -obUaP "${_f#*:}" "$1" | cut -d: -f1 | head -n 4); do
			# a stream followed by padding: the tools complain; the output counts
			tail -c +$((_off + 1)) "$1" | $_cmd >"$2.raw" 2>/dev/null || true
			find_btf "$2.raw" "$2" && return 0
		done
	done
	return 1
}

# resolve NAME ARCH: the versioned linux-image package NAME is (or, a
# meta package, depends on); empty if the package lists do not know it.
resolve() {
	apt-cache show "$1:$2" >/dev/null 2>&1 || return 0
	_p=$(apt-cache depends "$1:$2" 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[^ :]*\).*$/\1/p' | head -n 1)
	echo "${_p:-$1}"
}

ARCH=
KERNEL=cloud
OUT=
while [ $# -gt 0 ]; do
	case "$1" in
	-o) [ $# -ge 2 ] || usage; OUT=$2; shift ;;
	-h | --help) usage ;;
	-*) usage ;;
	*) if [ -z "$ARCH" ]; then ARCH=$1; else KERNEL=$1; fi ;;
	esac
	shift
done
case "$ARCH" in
x86) DEBARCH=amd64 UNAME=x86_64 ;;
arm64) DEBARCH=arm64 UNAME=aarch64 ;;
*) usage ;;
esac
OUT=${OUT:-$ROOT/common/vmlinux/$ARCH/vmlinux.h}
mkdir -p "$CACHE" "$(dirname "$OUT")"

if [ "$KERNEL" = running ]; then
	[ "$(uname -m)" = "$UNAME" ] || die "this host is $(uname -m), not $UNAME: name a package"
	BTF=/sys/kernel/btf/vmlinux
	[ -r "$BTF" ] || die "no $BTF: this kernel has no BTF"
	FROM="$(uname -r) ($BTF)"
else
	case "$KERNEL" in
	linux-image-*) meta=$KERNEL ;;
	cloud) meta=linux-image-cloud-$DEBARCH ;;
	*) meta=linux-image-$KERNEL-cloud-$DEBARCH ;;
	esac
	pkg=$(resolve "$meta" "$DEBARCH")
	if [ -z "$pkg" ]; then
		# a foreign architecture's packages are listed only once it is added
		cannot "apt knows no $meta:$DEBARCH; as root: dpkg --add-architecture $DEBARCH && apt-get update"
	fi
	DEB=$(ls "$CACHE/${pkg}_"*"_$DEBARCH.deb" 2>/dev/null | tail -n 1)
	if [ -z "$DEB" ]; then
		echo "  FETCH    $pkg:$DEBARCH" >&2
		# apt's sandbox user may not be able to write to build/
		(cd "$CACHE" && apt-get download -q -o APT::Sandbox::User=root "$pkg:$DEBARCH" \
			>/dev/null) || cannot "cannot download $pkg:$DEBARCH"
		DEB=$(ls "$CACHE/${pkg}_"*"_$DEBARCH.deb" | tail -n 1)
	fi
	kver=${pkg#linux-image-}
	dpkg-deb --fsys-tarfile "$DEB" | tar -xO "./boot/vmlinuz-$kver" >"$CACHE/vmlinuz-$kver"
	BTF=$CACHE/btf-$kver
	image_btf "$CACHE/vmlinuz-$kver" "$BTF" || die "no BTF found in $pkg's vmlinuz"
	rm -f "$BTF.raw" "$CACHE/vmlinuz-$kver"
	FROM="$(basename "$DEB") (sha256 $(sha256sum "$DEB" | cut -d" " -f1))"
fi

is_btf "$BTF" || die "$BTF is no kernel's BTF"
"$BPFTOOL" btf dump file "$BTF" format c >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "vmlinux-h: ${OUT#"$ROOT"/} from $FROM: $(wc -l <"$OUT") lines" >&2
