#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The seed's Stage 08 scenario: read a file cold, then warm, under uftrace.
#   scripts/uftrace-readahead.sh [FILE]   (as root)
#   scripts/uftrace-readahead.sh -k       print the options of uftrace
#                                         record for kernel depth (tests)
# FILE is made (one line) if it does not exist, and removed at the end;
# by default a new file in the current directory. It must be on a disk:
# tmpfs pages cannot be dropped from memory, so no read of them is cold.
# Cold, the read goes through readahead (page_cache_sync_ra and the I/O);
# warm, it finds every page in the cache. uftrace records, replays and
# graphs both. Kernel functions (-K 30) need the kernel's function-graph
# tracer; where there is none (no kprobes/ftrace, as on the 6.18 host),
# the graph stops at the read() syscall: run stage08 beside it instead.
# The reader is tests/bin/pg_read (make helpers: scripts/read.c with -pg),
# else it is built here with cc.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)

# The read path's kernel functions, from the system call to the driver (a
# name this kernel lacks is left out: ondemand_readahead is 6.1's,
# generic_file_buffered_read 5.10's).
RA_FUNCS="vfs_read ext4_file_read_iter generic_file_read_iter filemap_read
	generic_file_buffered_read filemap_get_pages filemap_get_read_batch page_cache_sync_ra
	ondemand_readahead page_cache_ra_order page_cache_ra_unbounded
	filemap_add_folio read_pages ext4_readahead ext4_mpage_readpages
	submit_bio submit_bio_noacct blk_mq_submit_bio blk_finish_plug
	blk_mq_flush_plug_list nvme_queue_rqs io_schedule touch_atime"
# With kernel depth:
# -P FUNC@kernel  ftrace patches only those (set_ftrace_filter): the graph
#                 shows the path at a glance, and patching every kernel
#                 function at once panics the classroom VM's 6.12 under
#                 QEMU TCG now and then (a CPU runs an int3 already
#                 patched away);
# --no-event      no perf events: the task's context switches would turn
#                 on the scheduler's hooks (patched in the same way, on
#                 the hottest paths); io_schedule() shows the sleep;
# -F vfs_read@kernel  the graph starts at vfs_read(): libmcount stamps each
#                 user function with clock_gettime(), a system call where
#                 the clock source has no vDSO reading (the VM under TCG:
#                 hpet), and -K would graph every one of them.
kernel="-K 30 --no-event -F vfs_read@kernel"
for f in $RA_FUNCS; do
	kernel="$kernel -P $f@kernel"
done
if [ "${1:-}" = -k ]; then
	echo "$kernel"
	exit 0
fi

command -v uftrace >/dev/null 2>&1 || { echo "uftrace-readahead: needs uftrace (apt-get install uftrace)" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "uftrace-readahead: must be run as root (drops caches, kernel tracing)" >&2; exit 1; }
[ $# -le 1 ] || { echo "usage: uftrace-readahead.sh [FILE]" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/uftrace-ra.XXXXXX") || exit 1
made=
trap 'rm -rf "$work" "$made"' EXIT
trap 'exit 1' INT TERM
if [ $# -eq 0 ]; then
	file=$(mktemp "$PWD/uftrace-ra.XXXXXX") || exit 1
	made=$file
else
	file=$1
	[ -e "$file" ] || { made=$file; : >"$file" || exit 1; }
fi
[ -s "$file" ] || printf 'hello linux filesystem\n' >"$file" || exit 1
[ -r "$file" ] || { echo "uftrace-readahead: cannot read $file" >&2; exit 1; }

reader=$ROOT/tests/bin/pg_read
if [ ! -x "$reader" ]; then
	command -v cc >/dev/null 2>&1 ||
		{ echo "uftrace-readahead: no $reader and no cc to build it (make helpers on a host with a compiler)" >&2; exit 1; }
	echo "uftrace-readahead: no $reader (make helpers): building scripts/read.c with cc -pg" >&2
	reader=$work/read
	cc -pg -O0 -g -o "$reader" "$ROOT/scripts/read.c" || exit 1
fi

tracing=/sys/kernel/tracing
[ -e $tracing/available_tracers ] || tracing=/sys/kernel/debug/tracing
if ! grep -qw function_graph $tracing/available_tracers 2>/dev/null; then
	echo "note: this kernel ($(uname -r)) has no function_graph tracer:" \
		"user-space graph only (kernel depth needs it)" >&2
	kernel=
fi

run() {	# run NAME: record, replay and graph one read of $file
	echo "=== $1 read of $file ==="
	# shellcheck disable=SC2086
	uftrace record $kernel -d "$work/$1.data" "$reader" "$file" >/dev/null || return 1
	uftrace replay --no-pager -d "$work/$1.data"
	uftrace graph --no-pager -d "$work/$1.data"
}

pc=$ROOT/tests/bin/pc_reader
"$pc" -D "$file" >/dev/null 2>&1 || { sync; echo 1 >/proc/sys/vm/drop_caches; }
"$pc" -m "$file" 2>/dev/null | grep -q '^resident 0 ' ||
	echo "note: $file is still in the page cache (tmpfs?): the cold read is not cold" >&2
run cold
run warm
