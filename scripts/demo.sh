#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Run one stage against a built-in workload on a private loop device:
#   scripts/demo.sh 03      (or: make demo STAGE=03; 00 … 11)
#   scripts/demo.sh ctracer (make demo STAGE=ctracer: tools/ctracer)
#   scripts/demo.sh - 03.1  (make demo EX=03.1: your copy of an exercise,
#                           work/03.1, as make check EX=03.1 last built it)
# Creates a loop device over a file in /dev/shm, starts the stage with -d
# on it, issues reads and writes for a few seconds, stops it, cleans up.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
stage=${1:-01}
ex=${2:-}
if [ -n "$ex" ]; then
	# an exercise: its stage's workload, the student's program
	STAGE= SOURCE=
	[ -f "$ROOT/exercises/$ex/spec" ] && . "$ROOT/exercises/$ex/spec"
	[ -n "$STAGE" ] || { echo "demo: no stage exercise '$ex' (make progress lists them)" >&2; exit 2; }
	stage=${STAGE#stage}
	stage=${stage%%_*}
	[ "$STAGE" = tools/ctracer ] && stage=ctracer
fi
case $stage in
ctracer) dir=$ROOT/tools/ctracer ;;
*) dir=$(ls -d "$ROOT"/stage"$stage"_* 2>/dev/null | head -n 1) ;;
esac
[ -n "$dir" ] || { echo "demo: no stage '$stage' (try 00 … 11)" >&2; exit 2; }
prog=$(ls "$dir"/bio_trace "$dir"/pagecache_trace "$dir"/tracex3 "$dir"/class_trace "$dir"/full_stack \
	"$dir"/ctracer \
	2>/dev/null | head -n 1)
if [ -n "$ex" ]; then
	prog=${CHECK_BUILD:-$ROOT/build/check}/$ex/$(basename "$prog")
	[ -x "$prog" ] || { echo "demo: your copy of $ex is not built (make check EX=$ex builds work/$ex)" >&2; exit 1; }
	echo "demo: your copy of $ex, as make check EX=$ex last built it" >&2
fi
[ -x "$prog" ] || { echo "demo: $dir is not built (run make)" >&2; exit 1; }
what=$(basename "$dir")
[ -n "$ex" ] && what="your copy of $ex ($what's demo)"
[ "$(id -u)" -eq 0 ] || { echo "demo: must be run as root (try sudo)" >&2; exit 1; }

img=/dev/shm/bwb-demo.$$.img
dd if=/dev/zero of="$img" bs=1M count=64 2>/dev/null
loop=$(losetup -f --show "$img") || { rm -f "$img"; exit 1; }
trap 'losetup -d "$loop"; rm -f "$img"' EXIT INT TERM
name=${loop#/dev/}

# Page-cache stages (08, 09): ext4 on the loop device, a 4 MiB file read
# cold (dropped from the cache first) and then warm.
if [ "$(basename "$prog")" = pagecache_trace ]; then
	mnt=$(mktemp -d /tmp/bwb-demo.XXXXXX)
	trap 'umount "$mnt" 2>/dev/null; rmdir "$mnt"; losetup -d "$loop"; rm -f "$img"' EXIT INT TERM
	mkfs.ext4 -q "$loop" && mount "$loop" "$mnt" || exit 1
	dd if=/dev/urandom of="$mnt/file" bs=1M count=4 conv=fsync 2>/dev/null
	for pass in cold warm; do
		[ $pass = cold ] && { sync; echo 1 >/proc/sys/vm/drop_caches; }
		echo "demo: $what: a $pass read of a 4 MiB file on $loop" >&2
		# The reader waits a second, so its PID is known before it reads.
		( sleep 1; exec cat "$mnt/file" >/dev/null ) &
		reader=$!
		case $stage in
		09*) "$prog" "$reader" --duration 3 ;;
		*) "$prog" -d "$name" --duration 3 ;;
		esac
		wait $reader
	done
	exit 0
fi

# tracing LOG PID: wait until the stage PID says "Tracing" in LOG; 1 if it
# ended first (an error, said on its stderr) or said nothing in 120 s
tracing() {
	_i=0
	until grep -q '^Tracing' "$1"; do
		kill -0 "$2" 2>/dev/null && [ $_i -lt 1200 ] || return 1
		sleep 0.1
		_i=$((_i + 1))
	done
}

# Stage 11: ext4 on the loop device; dd writes a new file 16 KiB a
# write(), then fsyncs, once the stage traces; 1 write() in 4 followed.
if [ "$(basename "$prog")" = full_stack ]; then
	mnt=$(mktemp -d /tmp/bwb-demo.XXXXXX)
	trap 'umount "$mnt" 2>/dev/null; rm -rf "$mnt"; losetup -d "$loop"; rm -f "$img"' EXIT INT TERM
	mkfs.ext4 -q "$loop" && mount "$loop" "$mnt" || exit 1
	echo "demo: $what: dd writes 128 KiB of a new file on $loop, 16 KiB a write(), then fsync()" >&2
	"$prog" -d "$name" -c dd -s 4 --duration 4 2>"$mnt/err" &
	pid=$!
	tracing "$mnt/err" $pid
	cat "$mnt/err" >&2
	dd if=/dev/urandom of="$mnt/file" bs=16k count=8 conv=fsync status=none
	wait $pid
	exit $?
fi

echo "demo: $what on $loop: 4 KiB direct reads, then a 1 MiB write" >&2
# The workload starts once the stage has said "Tracing": ctracer's
# function doors take seconds to attach. Its stderr passes through tee
# into a log; its stdout stays the terminal.
tmp=$(mktemp -d /tmp/bwb-demo.XXXXXX)
trap 'losetup -d "$loop"; rm -f "$img"; rm -rf "$tmp"' EXIT INT TERM
mkfifo "$tmp/err"
: >"$tmp/err.log"
tee "$tmp/err.log" <"$tmp/err" >&2 &
# Stage 10 prints a tree per bio, a few hundred here: the terminal gets
# a screenful (the first trees and the summary), the file all of it.
out=
if [ "$(basename "$prog")" = class_trace ]; then
	mkdir -p "$ROOT/build/demo" && out=$ROOT/build/demo/$(basename "$dir").out
fi
if [ -n "$out" ]; then
	"$prog" -d "$name" --duration 4 2>"$tmp/err" >"$out" &
else
	"$prog" -d "$name" --duration 4 2>"$tmp/err" &
fi
pid=$!
tracing "$tmp/err.log" $pid
for off in 0 1 2 3 4 5 6 7; do
	dd if="$loop" of=/dev/null bs=4k count=1 skip=$((off * 100)) iflag=direct 2>/dev/null
	sleep 0.1
done
dd if=/dev/urandom of="$loop" bs=64k count=16 conv=fsync 2>/dev/null
wait $pid
rc=$?
wait	# tee: the last of stderr
[ -z "$out" ] && exit $rc
# the first 6 trees, how many more, then the summary (from "Trees:").
# How many bios the 1 MiB write makes is the kernel's choice (page
# cache writeback, the loop device's limits): it varies by machine.
total=$(grep -c '^bio ' "$out")
awk -v all="$out" -v more=$((total - 6)) '/^bio / { n++ } /^Trees:/ { sum = 1 }
	sum { print; next }
	n <= 6 { print; next }
	!said { said = 1
		print "... " more " more trees in " all ": the last reads, and the write in as many bios as this kernel cut it into (it varies by machine)" }' "$out"
exit $rc
