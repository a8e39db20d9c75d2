#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Show what a stage adds to the stage it was built from:
#   scripts/stage-diff.sh 05       (or: make diff STAGE=05)
#   scripts/stage-diff.sh --base 05   prints only the base's folder name
# The workbook's lines of descent: 01 <- 02 <- 03 <- 04 <- 05 <- 06,
# 03 <- 07, 08 <- 09. Stages 00, 01, 08, 10 and 11 start a program of their own.
# Compares the sources (README.md and the built program left out).
ROOT=$(cd "$(dirname "$0")/.." && pwd)

base_of() {	# base_of NN: the number of the stage NN was built from, or nothing
	case "$1" in
	02) echo 01 ;;
	03) echo 02 ;;
	04) echo 03 ;;
	05) echo 04 ;;
	06) echo 05 ;;
	07) echo 03 ;;
	09) echo 08 ;;
	esac
}

folder() {	# folder NN: the stage folder's name, or nothing
	for d in "$ROOT"/stage"$1"_*; do
		[ -d "$d" ] && { basename "$d"; return 0; }
	done
	return 1
}

only_base=
[ "$1" = "--base" ] && { only_base=1; shift; }
n=$(printf '%s' "${1:-}" | sed 's/^stage//; s/_.*//')
case "$n" in
[0-9]) n=0$n ;;
[0-9][0-9]) ;;
*) echo "stage-diff: usage: stage-diff.sh [--base] NN (e.g. 05)" >&2; exit 2 ;;
esac
stage=$(folder "$n") || { echo "stage-diff: no stage $n in this workbook" >&2; exit 2; }
b=$(base_of "$n")
if [ -n "$only_base" ]; then
	[ -n "$b" ] && folder "$b"
	exit 0
fi
if [ -z "$b" ]; then
	echo "$stage starts a new program: it has no base stage to diff against."
	echo "Read its sources whole:"
	(cd "$ROOT" && wc -l "$stage"/*.c "$stage"/*.h "$stage"/Makefile 2>/dev/null | grep -v ' total$')
	exit 0
fi
base=$(folder "$b") || { echo "stage-diff: $stage's base, stage $b, is not in this workbook" >&2; exit 2; }
cd "$ROOT" || exit 2
echo "What $stage adds to $base:"
# Binaries by name (they share their sources' stem); diff's -x matches whole names.
out=$(mktemp) || exit 2
trap 'rm -f "$out"' EXIT
diff -ruN -x README.md -x bio_trace -x pagecache_trace -x tracex3 "$base" "$stage" >"$out"
[ $? -le 1 ] || exit 2
# File times say nothing here: cut them from the --- and +++ lines.
sed 's/^\(---\|+++\) \([^	]*\)	.*/\1 \2/' "$out"
