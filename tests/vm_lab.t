#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The lab (make vm-lab, run.sh --lab): a student's work inside it is built
# there and survives. Boots run.sh --lab on a pseudo-terminal, as
# tests/vm_power.t does, and types:
#   make check EX=03.1 fails, passes with the solution copied in; an
#   edit of stage 03's printed line, make -C stage03_latency_map, the
#   stage against a read of nullb0: the new line is printed; poweroff
#   a second boot, with run.sh --share: the edit is still there; the
#   host's folder is at /root/share; poweroff
#   run.sh --reset, a third boot: the edit is gone
# The console's size, on a pty of a known size (script(1) under stty rows
# and cols): the first boot's console has the terminal's size at login
# (run.sh passes it), and resize, answered as a terminal answers the
# cursor's position, gives the new one; the second boot's pty says no size
# (0 0), so the boot asks the terminal itself, before the banner.
# First, before anything boots: the VM's disk (make vm's disk.img, which
# make vm-lab refreshes too) still holds the programs built.
# On a lab disk of its own (VM_LAB_DISK), not the student's lab-disk.img.
# In make test a SKIP where the lab image is not built (CI); by hand:
#   make vm-lab && prove -v --exec sh tests/vm_lab.t
# VM_ARCH=arm64 (tests/vm_lab_arm64.t): the aarch64 lab, build/arm64/vm/.
# VM_LAB_KERNEL (default cloud); each step within VM_LAB_LIMIT s (300).
# VM_LAB_RUN=DIR/run.sh: an unpacked hand-out (make vm-lab-image) as it
# is, booted with ./run.sh as its README says.
# vm: skip it boots the VM
. "$(dirname "$0")/lib.sh"
. "$ROOT/scripts/vm/arch.sh"

LIMIT=${VM_LAB_LIMIT:-300}
RUN=${VM_LAB_RUN:-$ROOT/scripts/vm/run.sh}
k=${VM_LAB_KERNEL:-cloud}
lab_arg=--lab
if [ -n "${VM_LAB_RUN:-}" ]; then	# a hand-out, booted as its README says
	VM=$(cd "$(dirname "$RUN")" && pwd)
	QEMU=qemu-system-x86_64
	[ "$(cat "$VM/arch" 2>/dev/null)" = arm64 ] && QEMU=qemu-system-aarch64
	lab_arg=
fi

# make's words for this architecture's lab (VM_ARCH=arm64: vm_lab_arm64.t)
mk="make vm-lab${FOREIGN:+ VM_ARCH=$VM_ARCH}"
[ -f "$VM/lab.img" ] || skip_all "the $VM_ARCH lab image is not built ($mk)"
[ -L "$VM/$k" ] || skip_all "kernel $k is not built ($mk)"
command -v "$QEMU" >/dev/null 2>&1 || skip_all "$QEMU is absent"
command -v script >/dev/null 2>&1 ||
	skip_all "script (util-linux) is absent: it gives run.sh the terminal shell mode needs"
command -v mkfifo >/dev/null 2>&1 || skip_all "mkfifo is absent"

mkdir -p "$VM"
exec 8>"$VM/.lock"
command -v flock >/dev/null 2>&1 && flock 8

. "$ROOT/tests/vm_term.sh"
. "$ROOT/tests/lab_smoke.sh"
PROMPT='lab:~/workbook# '
export VM_LAB_DISK=$VM/lab-test.img
trap 'rm -f "$VM_LAB_DISK"; cleanup; exit 1' INT TERM

# disk_programs: the programs on the VM's disk.img ("DIR/NAME" under
# /workbook, executable and not empty), read with debugfs, no mount
disk_programs() {
	for d in $(cd "$ROOT" && ls -d stage[0-9][0-9]_*/ tools/*/) tests/bin/; do
		echo "ls -p /workbook/${d%/}"
	done >"$T_TMP/ls.cmd"
	debugfs -f "$T_TMP/ls.cmd" "$VM/disk.img" 2>/dev/null | awk -F/ '
		/^debugfs: ls -p / { dir = substr($0, length("debugfs: ls -p /workbook/") + 1); next }
		NF == 8 && $3 ~ /^100[0-7][0-7][1357]$/ && $7 > 0 { print dir "/" $6 }'
}

# The VM's disk after make vm-lab: each stage's and tool's program (the
# APP its Makefile names: the names come from the sources, so a tree
# without its programs finds them missing) and every test helper this
# tree has built. Checked before build.sh below refreshes the disk.
if [ -z "${VM_LAB_RUN:-}" ]; then
	if [ ! -f "$VM/disk.img" ]; then
		ok 1 "make vm-lab leaves the VM's disk: ${VM#"$ROOT"/}/disk.img is missing"
	elif ! command -v debugfs >/dev/null 2>&1; then
		skip "the VM's disk holds the programs" "no debugfs (e2fsprogs)"
	else
		xb=$ROOT
		[ -z "$FOREIGN" ] || xb=$ROOT/build/$VM_ARCH
		want=$({
			cd "$ROOT" && for m in stage[0-9][0-9]_*/Makefile tools/*/Makefile; do
				echo "${m%/Makefile}/$(sed -n 's/^APP *:= *//p' "$m")"
			done
			for f in "$xb"/tests/bin/*; do
				[ -f "$f" ] && echo "tests/bin/${f##*/}"
			done
		} | sort)
		disk_programs | sort >"$T_TMP/progs"
		missing=$(echo "$want" | comm -23 - "$T_TMP/progs")
		n=$(echo "$want" | grep -c /)
		check "the VM's disk (${VM#"$ROOT"/}/disk.img) holds the $n programs built (stages, tools, test helpers)${missing:+; missing: $(echo $missing)}" \
			test -z "$missing"
	fi
fi

# the init in the initramfs must be this checkout's (lab.img is used as
# built: make vm-lab rebuilds it); a hand-out's as it came
rc=0
[ -n "${VM_LAB_RUN:-}" ] ||
	"$ROOT/scripts/vm/build.sh" "$k" >"$T_TMP/build.log" 2>&1 || rc=$?
[ $rc -eq 3 ] && skip_all "build.sh cannot here: $(tail -n 1 "$T_TMP/build.log")"
[ $rc -eq 0 ] || {
	ok 1 "kernel $k: the initramfs builds"
	sed 's/^/#   /' "$T_TMP/build.log"
	rm -f "$VM_LAB_DISK"
	done_testing
}
kver=$(readlink "$VM/$k")

# lab_boot [ARG...]: boots the lab (run.sh's ARGs too), 0 once it
# prompts (else the VM is stopped)
lab_boot() {
	boot -k "$k" $lab_arg "$@"
	if prompt; then
		ok 0 "$kver: the lab prompts ($(($(now) - T0)) s after run.sh started)"
		return 0
	fi
	ok 1 "$kver: the lab prompts within $LIMIT s"
	show
	stop_vm
	return 1
}

# size_is N ROWS COLS WHAT: the console's stty size is ROWS COLS (N:
# a key of its own for the line the guest prints)
size_is() {
	type_cmd 'echo "SI""ZE'"$1"'=$(stty size)"'
	wait_for "^SIZE$1=" 30
	is "$(guest "SIZE$1")" "$2 $3" "$kver: $4: stty size says $2 $3"
}

"$RUN" --reset >/dev/null 2>&1
check "run.sh --reset: no lab disk until the next boot" test ! -e "$VM_LAB_DISK"

# a terminal window of 40 rows of 132 columns
TERM_SIZE="40 132"
if lab_boot; then
	size_is 1 40 132 "the console takes the terminal's size at login (run.sh passes it)"
	# the window made 50x100: resize asks the terminal, which answers
	n=$(asked)
	type_cmd 'resize; echo "SI""ZE2=$(stty size)"'
	if answer_size "$n" 50 100 60; then
		wait_for '^SIZE2=' 30
		is "$(guest SIZE2)" "50 100" "$kver: after a resize, resize gives the console the terminal's new size"
	else
		ok 1 "$kver: resize asks the terminal its size (ESC[6n) within 60 s"
		show
	fi
	# the exercise first, from stage 03 as it came (03.1's answer is a
	# patch against it, and changes the line the smoke test edits)
	lab_check "$kver"
	lab_smoke "$kver"
	type_line poweroff
	left "$kver" poweroff
fi

# the second boot shares a folder of the host's (virtiofsd: as root)
share=
vfsd=
for f in $(command -v virtiofsd) /usr/libexec/virtiofsd /usr/lib/qemu/virtiofsd; do
	[ -x "$f" ] && vfsd=$f
done
if [ "$(id -u)" -eq 0 ] && [ -n "$vfsd" ]; then
	share=$T_TMP/share
	mkdir -p "$share"
	echo from-host >"$share/in"
fi
# a terminal that says no size (0 0): the boot asks the terminal
TERM_SIZE=
_asked=1
boot -k "$k" $lab_arg ${share:+--share "$share"}
answer_size 0 45 120 "$LIMIT" || _asked=0
if prompt; then
	ok 0 "$kver: the lab prompts ($(($(now) - T0)) s after run.sh started)"
	check "$kver: on a terminal of no known size, the boot asks the terminal its size (ESC[6n)" \
		test $_asked = 1
	size_is 3 45 120 "and the console takes the size the terminal answers"
	type_cmd 'echo "KE""PT=$(grep -c "lab edit" '$SRC')"'
	wait_for '^KEPT=' 30
	is "$(guest KEPT)" 1 "$kver: after poweroff and a new boot the edit is still there"
	if [ -n "$share" ]; then
		type_cmd 'echo from-guest >/root/share/out; echo "SHA""RED=$(cat /root/share/in)"'
		wait_for '^SHARED=' 30
		is "$(guest SHARED)" from-host "$kver: run.sh --share: the host's folder is at /root/share"
		is "$(cat "$share/out" 2>/dev/null)" from-guest "$kver: run.sh --share: and what the guest writes there is on the host"
	else
		skip "run.sh --share" "no virtiofsd here, or not root"
	fi
	type_line poweroff
	left "$kver" "poweroff (second boot)"
else
	ok 1 "$kver: the lab prompts within $LIMIT s"
	show
	stop_vm
fi
TERM_SIZE="24 80"

"$RUN" --reset >/dev/null 2>&1
if lab_boot; then
	type_cmd 'echo "AFT""ER=$(grep -c "lab edit" '$SRC')"'
	wait_for '^AFTER=' 30
	is "$(guest AFTER)" 0 "$kver: after run.sh --reset the edit is gone"
	type_line poweroff
	left "$kver" "poweroff (after --reset)"
fi
rm -f "$VM_LAB_DISK"
done_testing
