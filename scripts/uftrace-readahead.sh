#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The seed's Stage 08 scenario: read a file cold, then warm, under uftrace.
#   scripts/uftrace-readahead.sh [FILE]   (as root; default: a new file)
# Cold, the read goes through readahead (page_cache_sync_ra and the I/O);
# warm, it finds every page in the cache. uftrace records, replays and
# graphs both. Kernel functions (-K 30) need the kernel's function-graph
# tracer; where there is none (no kprobes/ftrace, as on the 6.18 host),
# the graph stops at the read() syscall: run stage08 beside it instead.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
command -v uftrace >/dev/null 2>&1 || { echo "uftrace-readahead: needs uftrace (apt-get install uftrace)" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "uftrace-readahead: must be run as root (drops caches, kernel tracing)" >&2; exit 1; }
[ $# -le 1 ] || { echo "usage: uftrace-readahead.sh [FILE]" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/uftrace-ra.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT INT TERM
file=${1:-$work/hello.txt}
[ $# -eq 1 ] || printf 'hello linux filesystem\n' >"$file"
[ -r "$file" ] || { echo "uftrace-readahead: cannot read $file" >&2; exit 1; }

cc -pg -O0 -g -o "$work/read" "$ROOT/scripts/read.c" || exit 1

kernel=
tracing=/sys/kernel/tracing
[ -e $tracing/available_tracers ] || tracing=/sys/kernel/debug/tracing
if grep -qw function_graph $tracing/available_tracers 2>/dev/null; then
	kernel="-K 30"
else
	echo "note: this kernel ($(uname -r)) has no function_graph tracer:" \
		"user-space graph only (kernel depth needs it)" >&2
fi

run() {	# run NAME: record, replay and graph one read of $file
	echo "=== $1 read ==="
	# shellcheck disable=SC2086
	uftrace record $kernel -d "$work/$1.data" "$work/read" "$file" >/dev/null || return 1
	uftrace replay -d "$work/$1.data"
	uftrace graph -d "$work/$1.data"
}

"$ROOT/tests/bin/pc_reader" -D "$file" >/dev/null 2>&1 ||
	{ sync; echo 1 >/proc/sys/vm/drop_caches; }
run cold
run warm
