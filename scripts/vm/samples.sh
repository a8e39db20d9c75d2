#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Sample runs for the stage READMEs, from the classroom VM: boots KERNEL's
# shell on a pseudo-terminal (script(1), typed into through a FIFO, as
# tests/vm_power.t does) and types scripts/vm/guest/demo.sh for every
# stage and door asked; what each printed goes to
# DIR/<kver>/stageNN.DOOR.txt.
#   scripts/vm/samples.sh [-k KERNEL] [-o DIR] [-a "fentry kprobe"] [STAGE...]
# Needs the images of make vm. Default: every stage, fentry and kprobe,
# kernel cloud, DIR <VM folder>/samples (VM_ARCH=arm64: the arm64 VM's).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/scripts/vm/arch.sh"
kernel=cloud
out=$VM/samples
doors="fentry kprobe"
while getopts k:o:a: o; do
	case $o in
	k) kernel=$OPTARG ;;
	o) out=$OPTARG ;;
	a) doors=$OPTARG ;;
	*) echo "usage: samples.sh [-k KERNEL] [-o DIR] [-a DOORS] [STAGE...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
stages=${*:-$(ls -d "$ROOT"/stage[0-9][0-9]_* | sed 's|.*/stage\([0-9][0-9]\)_.*|\1|')}
kver=$(readlink "$VM/$kernel") || { echo "samples: no kernel $kernel (make vm)" >&2; exit 1; }
mkdir -p "$out/$kver"
# one VM run at a time (tests/vm.t takes this lock too)
mkdir -p "$ROOT/build/vm"
exec 8>"$ROOT/build/vm/.lock"
command -v flock >/dev/null 2>&1 && flock 8

tmp=$(mktemp -d)
trap 'exec 3>&-; rm -rf "$tmp"' EXIT
mkfifo "$tmp/in"
exec 3<>"$tmp/in"
TMPDIR=$tmp script -qfec "'$ROOT/scripts/vm/run.sh' -k '$kernel' shell" /dev/null \
	<"$tmp/in" >"$tmp/con" 2>&1 &
spid=$!

text() {
	tr -d '\r' <"$tmp/con" | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g'
}

# wait_for ERE SECONDS: a line matches (0), or QEMU ended or time is up (1)
wait_for() {
	_end=$(($(date +%s) + $2))
	while [ "$(date +%s)" -le $_end ]; do
		text | grep -Eq -- "$1" && return 0
		kill -0 $spid 2>/dev/null || return 1
		sleep 0.5
	done
	return 1
}

wait_for 'workbook:/workbook# ' 600 || { echo "samples: the VM gave no prompt" >&2; kill $spid; exit 1; }
for n in $stages; do
	for d in $doors; do
		mark="@@end-$n-$d"
		printf '%s\r' "scripts/vm/guest/demo.sh $n -a $d 2>&1; echo $mark rc=\$?" >&3
		if ! wait_for "^$mark rc=[0-9]+$" 600; then
			echo "samples: stage $n, $d: no end within 600 s" >&2
			break 2
		fi
		# what the command printed: after its echoed line, up to the mark
		text | awk -v m="$mark" -v c="demo.sh $n -a $d " '
			index($0, c) && !on { on = 1; next }
			on && $0 ~ "^" m " rc=" { print; exit }
			on { print }' >"$out/$kver/stage$n.$d.txt"
		echo "samples: $kver stage $n $d: $(tail -n 1 "$out/$kver/stage$n.$d.txt")"
	done
done
printf 'poweroff\r' >&3
wait_for 'reboot: Power down|^vm: ' 120
wait $spid
