#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Boot the classroom VM; QEMU is all it needs (it also ships in the
# archive of make vm-image, next to the images).
#
#   run.sh [-k KERNEL] [shell]          a shell on this terminal; leave it
#                                       with poweroff (or exit), or Ctrl-A
#                                       then X; reboot boots it again
#   run.sh [-k KERNEL] [-o DIR] [-t SECONDS] test
#                                       headless: runs the workbook's tests;
#                                       TAP in DIR/results.tap, the kernel
#                                       console in DIR/console.log
#   run.sh --lab [-k KERNEL] [--share DIR]
#                                       the lab (make vm-lab): a Debian
#                                       system to edit, build and run the
#                                       workbook in, kept across boots;
#                                       DIR on the host at /root/share
#   run.sh --reset                      the lab's disk fresh again
#
# KERNEL is a folder next to disk.img with vmlinuz and initrd.img (default
# cloud). The file "arch" there says which QEMU boots them: x86
# (qemu-system-x86_64, machine pc) or arm64 (qemu-system-aarch64, machine
# virt). KVM is used only after a short probe shows that a KVM guest boots
# here with -cpu $VM_KVM_CPU (host); the verdict is kept until the host
# reboots; on macOS, hvf where the guest is of the Mac's architecture
# (untested here). VM_ACCEL=kvm|hvf|tcg forces the choice. Other knobs: VM_MEM (MB),
# VM_CPUS, VM_TIMEOUT (s), VM_APPEND (kernel command line), VM_TESTS
# (test mode: only these test files, e.g. "ctracer ctracer_view").
# In shell mode the guest's console gets this terminal's size at each boot
# (wb.size=ROWSxCOLS); after a resize, resize in the guest asks again.
# Disks are opened with snapshot=on: changes vanish when QEMU exits, which
# it also does when the guest reboots (-no-reboot); run.sh then boots again.
# Not the lab's: lab-disk.img (VM_LAB_DISK), a copy of lab.img made at its
# first boot, keeps what the student changes until --reset copies lab.img
# again.
set -u
here=$(cd "$(dirname "$0")" && pwd)
if [ -f "$here/arch" ]; then	# an unpacked hand-out (pack.sh)
	VM=$here
else
	# in the source tree: this host's VM, or VM_ARCH's (build/<arch>/vm)
	ROOT=$(cd "$here/../.." && pwd)
	. "$here/arch.sh"
fi
kernel=cloud
out=
limit=${VM_TIMEOUT:-3000}

lab=
reset=
share=

usage() {
	echo "usage: run.sh [-k KERNEL] [-o DIR] [-t SECONDS] [shell|test]" >&2
	echo "       run.sh --lab [-k KERNEL] [--share DIR];  run.sh --reset" >&2
	exit 2
}

# the long options as getopts' short ones: --lab -L, --reset -R, --share -S
for a; do
	shift
	case $a in
	--lab) set -- "$@" -L ;;
	--reset) set -- "$@" -R ;;
	--share) set -- "$@" -S ;;
	--share=*) set -- "$@" -S "${a#--share=}" ;;
	*) set -- "$@" "$a" ;;
	esac
done
while getopts k:o:t:LRS:h o; do
	case $o in
	k) kernel=$OPTARG ;;
	o) out=$OPTARG ;;
	t) limit=$OPTARG ;;
	L) lab=1 ;;
	R) reset=1 ;;
	S) share=$(cd "$OPTARG" && pwd) || exit 1 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
mode=${1:-shell}
# the lab's hand-out (pack.sh --lab) has no other VM: run.sh is its lab's
[ -f "$VM/disk.img" ] || [ ! -f "$VM/lab.img" ] || [ -n "$lab$reset" ] || lab=1
K=$VM/$kernel
LAB=${VM_LAB_DISK:-$VM/lab-disk.img}
if [ -n "$reset" ]; then
	[ -f "$VM/lab.img" ] || { echo "vm: $VM/lab.img missing (run make vm-lab)" >&2; exit 1; }
	rm -f "$LAB"
	echo "vm: the lab's disk is gone: the next run.sh --lab starts from lab.img" >&2
	[ -n "$lab" ] || exit 0
fi
[ -z "$share" ] || [ -n "$lab" ] || { echo "vm: --share needs --lab" >&2; exit 2; }
main=$VM/disk.img
[ -n "$lab" ] && main=$VM/lab.img
for f in "$K/vmlinuz" "$K/initrd.img" "$main" "$VM/scratch.img"; do
	[ -f "$f" ] || { echo "vm: $f missing (run make vm${lab:+-lab})" >&2; exit 1; }
done
if [ -n "$lab" ]; then
	[ "$mode" = shell ] || { echo "vm: the lab has a shell only" >&2; exit 2; }
	if [ ! -f "$LAB" ]; then
		# sparse: the copy costs what the files take, not the disk size
		# (macOS's cp has no --sparse: APFS clones the file instead)
		{ cp --sparse=always "$VM/lab.img" "$LAB.tmp" 2>/dev/null ||
			cp "$VM/lab.img" "$LAB.tmp"; } && mv "$LAB.tmp" "$LAB" || exit 1
	elif [ -n "$(find "$VM/lab.img" -newer "$LAB")" ]; then	# -nt: not POSIX
		echo "vm: lab.img was rebuilt after your lab disk was made: run.sh --reset takes it (and drops your changes)" >&2
	fi
fi
arch=$(cat "$VM/arch" 2>/dev/null || echo x86)
case $arch in
x86)
	QEMU=qemu-system-x86_64 QEMU_PKG=qemu-system-x86
	MACHINE="-machine pc" CON=ttyS0 TCG_CPU=max
	;;
arm64)
	QEMU=qemu-system-aarch64 QEMU_PKG=qemu-system-arm
	# GICv3 with KVM (a host's own), v2 under TCG; pointer
	# authentication QEMU's cheap way (its default is costly under TCG)
	MACHINE="-machine virt" CON=ttyAMA0 TCG_CPU=max,pauth-impdef=on
	;;
*) echo "vm: $VM/arch: unknown architecture '$arch'" >&2; exit 1 ;;
esac
command -v $QEMU >/dev/null 2>&1 ||
	{ echo "vm: $QEMU not found (apt-get install $QEMU_PKG)" >&2; exit 1; }

now() {
	date +%s.%N
}

since() {	# since T0: seconds from T0 to now, one decimal
	echo "$1 $(now)" | awk '{ printf "%.1f", $2 - $1 }'
}

# qemu ACCEL MODE CONSOLE RESULTS QEMU-ARGS...: under $WRAP (a time
# limit), if set. CONSOLE: the console's -serial backend; RESULTS: the
# file the guest's results channel writes to (init's wb.results).
WRAP=
qemu() {
	case $1 in
	kvm)
		acc="-accel kvm -cpu ${VM_KVM_CPU:-host}"
		[ "$arch" = arm64 ] && acc="$acc -machine gic-version=max"
		;;
	hvf) acc="-accel hvf -cpu host" ;;
	*) acc="-accel tcg -cpu $TCG_CPU" ;;
	esac
	_m=$2
	_c=$3
	_res=$4
	shift 4
	# the results channel: its file's path stays one word (spaces)
	if [ "$arch" = arm64 ]; then
		set -- -device virtio-serial-pci -chardev "file,id=res,path=$_res" \
			-device virtconsole,chardev=res "$@"
		_r=wb.results=hvc0
	else
		set -- -serial "file:$_res" "$@"
		_r=
	fi
	# the lab's disk is kept (no snapshot); the shared folder's
	# vhost-user device needs the guest's memory shared with virtiofsd
	_wb="snapshot=on,file=$VM/disk.img" _ser=workbook
	if [ -n "$lab" ]; then
		_wb="file=$LAB" _ser=lab
		_r="$_r wb.lab=1"
	fi
	if [ -n "$share" ]; then
		set -- -object "memory-backend-memfd,id=mem,size=${VM_MEM:-1024}M,share=on" \
			-numa node,memdev=mem -chardev "socket,id=fs,path=$SOCK" \
			-device vhost-user-fs-pci,chardev=fs,tag=share "$@"
		_r="$_r wb.share=share"
	fi
	# shellcheck disable=SC2086
	$WRAP $QEMU -nodefaults -no-user-config $MACHINE $acc \
		-m "${VM_MEM:-1024}" -smp "${VM_CPUS:-2}" -no-reboot \
		-kernel "$K/vmlinuz" -initrd "$K/initrd.img" \
		-serial "$_c" \
		-append "console=$CON panic=-1 quiet wb.mode=$_m $_r ${WB_SIZE:-} ${VM_TESTS:+wb.tests=$(echo $VM_TESTS | tr ' ' ,)} ${VM_APPEND:-}" \
		-drive "if=none,id=wb,format=raw,$_wb" \
		-device "nvme,drive=wb,serial=$_ser" \
		-drive "if=none,id=sc,format=raw,snapshot=on,file=$VM/scratch.img" \
		-device nvme,drive=sc,serial=scratch \
		"$@"
}

# accel: kvm if a KVM guest reaches its init within a few seconds, else tcg
accel() {
	case "${VM_ACCEL:-auto}" in
	kvm | tcg | hvf) echo "$VM_ACCEL"; return ;;
	esac
	# macOS: Hypervisor.framework, for a guest of the Mac's own
	# architecture (untested here: this workbook's hosts are Linux)
	if [ "$(uname -s)" = Darwin ]; then
		case "$arch:$(uname -m)" in
		x86:x86_64 | arm64:arm64) echo hvf ;;
		*) echo tcg ;;
		esac
		return
	fi
	[ -r /dev/kvm ] && [ -w /dev/kvm ] || { echo tcg; return; }
	# KVM runs only a guest of the host's own architecture
	case "$arch:$(uname -m)" in
	x86:x86_64 | arm64:aarch64) ;;
	*) echo tcg; return ;;
	esac
	id=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null)
	cache=$VM/.kvm-probe
	if [ -f "$cache" ] && [ "$(sed -n 1p "$cache")" = "$id" ]; then
		sed -n 2p "$cache"
		return
	fi
	p=$(mktemp -d)
	t0=$(now)
	WRAP="timeout -k 2 ${VM_KVM_PROBE:-10}"
	qemu kvm probe "file:$p/console" "$p/probe" -display none -monitor none \
		</dev/null >"$p/qemu" 2>&1
	rc=$?
	WRAP=
	if grep -q "wb-probe ok" "$p/probe" 2>/dev/null; then
		a=kvm
		why="a KVM guest booted in $(since "$t0") s"
	elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
		a=tcg
		why="a KVM guest did not boot within ${VM_KVM_PROBE:-10} s"
	else
		a=tcg
		why="QEMU with KVM failed: $(grep -v '^$' "$p/qemu" | head -n 1)"
	fi
	echo "vm: KVM probe: $why; using $(echo $a | tr a-z A-Z)" >&2
	rm -rf "$p"
	printf '%s\n%s\n' "$id" "$a" >"$cache" 2>/dev/null
	echo $a
}

# virtiofsd_start: the host's side of --share (QEMU 7.2's C virtiofsd in
# Debian 12, or the Rust one packaged as virtiofsd later), serving $share
# on $SOCK; it ends when QEMU disconnects. Its pid in fsd.
virtiofsd_start() {
	_v=$(command -v virtiofsd || ls /usr/libexec/virtiofsd /usr/lib/qemu/virtiofsd 2>/dev/null | head -n 1)
	[ -n "$_v" ] || { echo "vm: --share needs virtiofsd (Debian 12: qemu-system-common; later: virtiofsd)" >&2; return 1; }
	rm -f "$SOCK"
	if "$_v" --help 2>&1 | grep -q -- --shared-dir; then
		"$_v" --socket-path="$SOCK" --shared-dir="$share" --cache=auto &
	else
		"$_v" --socket-path="$SOCK" -o source="$share" -o cache=auto &
	fi >/dev/null 2>&1
	fsd=$!
	# by the clock, not by turns: a loaded host may take seconds to start it
	_end=$(($(date +%s) + 30))
	while [ ! -S "$SOCK" ] && kill -0 "$fsd" 2>/dev/null && [ "$(date +%s)" -lt $_end ]; do
		sleep 0.1
	done
	[ -S "$SOCK" ] || { echo "vm: virtiofsd did not start (it needs root)" >&2; return 1; }
}

case $mode in
shell)
	[ -t 0 ] || { echo "vm: shell mode needs a terminal" >&2; exit 2; }
	a=$(accel)
	# The guest's init writes wb-poweroff or wb-reboot to its second
	# serial port as it leaves; QEMU exits either way (-no-reboot, so a
	# kernel panic ends it too). After a reboot: a fresh QEMU, fresh disks.
	ctl=$(mktemp "${TMPDIR:-/tmp}/classroom-vm.XXXXXX") || exit 1
	trap 'rm -f "$ctl"' EXIT
	SOCK=$ctl.fs
	[ -z "$share" ] || trap 'rm -f "$ctl" "$SOCK"; [ -z "${fsd:-}" ] || kill "$fsd" 2>/dev/null' EXIT
	trap 'exit 129' HUP	# the terminal closed (QEMU gets it too)
	trap 'exit 143' TERM
	while :; do
		echo "vm: booting $(readlink "$K" || echo "$kernel") ($a); leave with poweroff or Ctrl-A then X" >&2
		: >"$ctl"
		[ -z "$share" ] || virtiofsd_start || exit 1
		# this terminal's size, for the guest's console (a serial line
		# carries none; init sets it with stty): none if it says 0 0
		WB_SIZE=$(stty size 2>/dev/null | awk '$1 > 0 && $2 > 0 { print "wb.size=" $1 "x" $2 }')
		# signal=off: Ctrl-C reaches the guest (to stop a tracer), not QEMU
		qemu "$a" shell chardev:con "$ctl" -display none \
			-chardev stdio,id=con,mux=on,signal=off \
			-mon chardev=con,mode=readline
		rc=$?
		grep -q '^wb-reboot' "$ctl" || break
		if [ -n "$lab" ]; then
			echo "vm: the guest rebooted: booting it again (the lab's disk as it was left)" >&2
		else
			echo "vm: the guest rebooted: booting it again from the images as built" >&2
		fi
	done
	exit $rc
	;;
test)
	[ -n "$out" ] || out=$VM/log/$kernel
	mkdir -p "$out"
	: >"$out/results.tap"
	: >"$out/console.log"
	a=$(accel)
	t0=$(now)
	WRAP="timeout -k 5 $limit"
	qemu "$a" test "file:$out/console.log" "$out/results.tap" \
		-display none -monitor none </dev/null >"$out/qemu.log" 2>&1 &
	qpid=$!
	# Boot-to-first-test: the guest's runner writes its first line just
	# before it starts the first test.
	first=
	while kill -0 $qpid 2>/dev/null; do
		if [ -s "$out/results.tap" ]; then
			first=$(since "$t0")
			break
		fi
		sleep 0.1
	done
	wait $qpid
	rc=$?
	echo "vm: $(readlink "$K" || echo "$kernel") ($a): first test ${first:-never} s after QEMU started, all done in $(since "$t0") s" >&2
	if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
		echo "vm: the guest hung: still running after $limit s, killed (console: $out/console.log)" >&2
		exit 124
	fi
	[ $rc -eq 0 ] || { echo "vm: QEMU failed ($rc): $(tail -n 3 "$out/qemu.log")" >&2; exit $rc; }
	;;
*)
	usage
	;;
esac
