#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The host's make demo, in the classroom VM: one stage against a built-in
# workload, in the door you name.
#   scripts/vm/guest/demo.sh 03 [-a fentry|kprobe|tracepoint|auto]
# The bio stages trace nullb0 (every I/O takes TEST_SLOW_NS) while dd
# reads 4 KiB eight times and writes 1 MiB; the page-cache stages read a
# 4 MiB file on the scratch ext4 cold (dropped from the cache), then warm;
# stage 11 follows 1 write() in 4 of dd writing a new file there.
set -u
WB=$(cd "$(dirname "$0")/../../.." && pwd)
stage=${1:-01}
[ $# -gt 0 ] && shift
dir=$(ls -d "$WB"/stage"$stage"_* 2>/dev/null | head -n 1)
[ -n "$dir" ] || { echo "demo: no stage '$stage' (try 00 … 11)" >&2; exit 2; }
prog=$(ls "$dir"/bio_trace "$dir"/pagecache_trace "$dir"/tracex3 "$dir"/class_trace "$dir"/full_stack \
	2>/dev/null | head -n 1)
[ -x "$prog" ] || { echo "demo: $dir has no program" >&2; exit 1; }
dev=${TEST_DEV:-nullb0}
fs=${TEST_FS_DIR:-/mnt/scratch}

# Loading takes seconds under TCG: a workload starts once the stage has
# said "Tracing". The stage's stderr passes through tee into a log; its
# stdout stays the terminal.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkfifo "$tmp/err"

# traced ARGS...: start the stage in the background (its PID in $pid)
traced() {
	: >"$tmp/err.log"
	tee "$tmp/err.log" <"$tmp/err" >&2 &
	"$prog" "$@" 2>"$tmp/err" &
	pid=$!
}

# attached: the stage said "Tracing" (0), or ended or took 120 s (1)
attached() {
	_i=0
	until grep -q '^Tracing' "$tmp/err.log"; do
		kill -0 $pid 2>/dev/null && [ $_i -lt 1200 ] || return 1
		sleep 0.1
		_i=$((_i + 1))
	done
}

if [ "$(basename "$prog")" = pagecache_trace ]; then
	fsdev=$(awk -v m="$fs" '$2 == m { sub("/dev/", "", $1); print $1 }' /proc/mounts)
	[ -n "$fsdev" ] || { echo "demo: nothing is mounted on $fs" >&2; exit 1; }
	dd if=/dev/urandom of="$fs/demo.file" bs=1M count=4 conv=fsync 2>/dev/null
	rc=0
	for pass in cold warm; do
		[ $pass = cold ] && { sync; echo 1 >/proc/sys/vm/drop_caches; }
		echo "demo: $(basename "$dir"): a $pass read of a 4 MiB file on /dev/$fsdev" >&2
		# The reader waits for a go, so its PID is known before it reads.
		rm -f "$tmp/go"
		( until [ -e "$tmp/go" ]; do sleep 0.1; done
		  exec cat "$fs/demo.file" >/dev/null ) &
		reader=$!
		case $stage in
		09*) traced "$@" "$reader" --duration 3 ;;
		*) traced "$@" -d "$fsdev" --duration 3 ;;
		esac
		attached
		touch "$tmp/go"
		wait $pid || rc=$?
		wait
	done
	rm -f "$fs/demo.file"
	exit $rc
fi

if [ "$(basename "$prog")" = full_stack ]; then
	echo "demo: $(basename "$dir"): dd writes 128 KiB of a new file in $fs, 16 KiB a write(), then fsync()" >&2
	traced "$@" -c dd -s 4 --duration 5
	attached && dd if=/dev/urandom of="$fs/demo.file" bs=16k count=8 \
		conv=fsync 2>/dev/null
	wait $pid
	rc=$?
	wait
	rm -f "$fs/demo.file"
	exit $rc
fi

echo "demo: $(basename "$dir") on /dev/$dev: 4 KiB direct reads, then a 1 MiB write" >&2
traced "$@" -d "$dev" --duration 5
if attached; then
	for off in 0 1 2 3 4 5 6 7; do
		dd if="/dev/$dev" of=/dev/null bs=4k count=1 skip=$((off * 100)) iflag=direct 2>/dev/null
		sleep 0.1
	done
	dd if=/dev/urandom of="/dev/$dev" bs=64k count=16 conv=fsync 2>/dev/null
fi
wait $pid
rc=$?
wait
exit $rc
