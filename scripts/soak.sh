#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Soak: run a stage for MINUTES under fio (bursts of I/O with pauses) and
# check what a tracer left running overnight must get right:
#   - its start map empties when I/O stops (no stale entries pile up),
#   - its RSS stays flat,
#   - every submit is matched by a completion, or the loss is reported
#     (the gap between the Events counts is covered by Lost: lines).
# ctracer (tools/ctracer) has no start map: it holds each bio's tree in user
# space until the bio ends, so it runs with its trees printed (to a
# filter that keeps the summary) and its memory is what is watched.
# Opt-in, root, not part of make test. Results: docs/soak.md.
#
#   scripts/soak.sh [-m MINUTES] [-d DEV] [-l] STAGE...
#     STAGE   a number (03, 07) or a stage folder: a bio_trace stage;
#             or ctracer (tools/ctracer)
#     -m      minutes per stage (default 10)
#     -d      a scratch block device to use (default: a loop device over
#             a file in /dev/shm); its contents are overwritten
#     -l      keep the per-event lines (read, thrown away) instead of -q
#             (ctracer always prints its trees)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BPF_OBJ=$ROOT/tests/bin/bpf_obj
MINUTES=10 DEV= QUIET=-q
BURST=${SOAK_BURST:-50} PAUSE=${SOAK_PAUSE:-10}	# seconds of fio, then quiet

usage() {
	sed -n 's/^#   //p; s/^#     //p' "$0" >&2
	exit 2
}

while getopts m:d:l opt; do
	case $opt in
	m) MINUTES=$OPTARG ;;
	d) DEV=${OPTARG#/dev/} ;;
	l) QUIET= ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || usage
case $MINUTES in
'' | *[!0-9]*) echo "soak: -m needs whole minutes, not '$MINUTES'" >&2; exit 2 ;;
esac
[ "$(id -u)" -eq 0 ] || { echo "soak: must be run as root" >&2; exit 1; }
command -v fio >/dev/null || { echo "soak: needs fio (apt-get install fio)" >&2; exit 1; }
[ -x "$BPF_OBJ" ] || { echo "soak: $BPF_OBJ is not built (make helpers)" >&2; exit 1; }

TMP=$(mktemp -d /tmp/soak.XXXXXX)
LOOP= BACKING= pid=
cleanup() {
	# a stage still running (the script stopped early): end it first
	[ -n "$pid" ] && kill -INT $pid 2>/dev/null && wait $pid
	[ -n "$LOOP" ] && losetup -d "/dev/$LOOP"
	[ -n "$BACKING" ] && rm -f "$BACKING"
	rm -rf "$TMP"
}
trap 'cleanup; exit 1' INT TERM
trap cleanup EXIT

if [ -z "$DEV" ]; then
	BACKING=/dev/shm/soak.$$.img
	dd if=/dev/zero of="$BACKING" bs=1M count=256 2>/dev/null || exit 1
	LOOP=$(losetup -f --show "$BACKING") || exit 1
	LOOP=${LOOP#/dev/}
	DEV=$LOOP
fi

rss() {	# rss PID [FIELD]: resident set (or RssAnon, RssFile), kB
	sed -n "s/^${2:-VmRSS}:[[:space:]]*\([0-9]*\).*/\1/p" "/proc/$1/status"
}

entries() {	# entries MAP-ID: entries in it now, "-" without a map
	if [ -n "$1" ]; then "$BPF_OBJ" count "$1"; else echo -; fi
}

# soak_one STAGE-DIR: prints one report line per sample, then the verdict.
soak_one() {
	name=$(basename "$1")
	if [ -x "$1/bio_trace" ]; then
		s=$1/bio_trace args="$QUIET -d $DEV" mapname=start
	elif [ -x "$1/ctracer" ]; then
		# its trees printed: what it holds per bio is the memory to watch
		s=$1/ctracer args="-d $DEV" mapname=
	else
		echo "$name: no bio_trace or ctracer built here; skipped"
		return 0
	fi
	# The per-event lines (indented, or "bio 0x…") are read and thrown
	# away here; the summary's lines are kept in $TMP/out.
	rm -f "$TMP/pipe"
	mkfifo "$TMP/pipe" || return 1
	grep -v '^ \|^bio ' <"$TMP/pipe" >"$TMP/out" &
	gpid=$!
	: >"$TMP/err"	# there before the first look: the job creates it later
	"$s" $args >"$TMP/pipe" 2>"$TMP/err" &
	pid=$!
	i=0
	until grep -q "Hit Ctrl-C" "$TMP/err" || [ $i -ge 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -0 $pid 2>/dev/null || { echo "$name: did not start: $(cat "$TMP/err")"; return 1; }
	map=
	[ -n "$mapname" ] && map=$("$BPF_OBJ" map-id $pid $mapname 2>/dev/null)
	rss0=$(rss $pid) rss_max=$rss0 idle_max=0 fail=0 ios=0 rss1= cycle=0
	echo "$name: pid $pid, start map ${map:-none}, RSS $rss0 kB, $MINUTES min of" \
		"${BURST} s fio + ${PAUSE} s pause on /dev/$DEV"
	end=$(($(date +%s) + MINUTES * 60))
	while [ "$(date +%s)" -lt "$end" ]; do
		fio --name=soak --filename="/dev/$DEV" --direct=1 --rw=randrw --bs=4k \
			--ioengine=libaio --iodepth=32 --numjobs=2 --time_based \
			--runtime=$BURST --group_reporting --output-format=json \
			>"$TMP/fio.json" 2>"$TMP/fio.err" &
		fpid=$!
		sleep $((BURST / 2))
		busy=$(entries "$map")	# mid-burst: the I/O in flight
		wait $fpid || { echo "$name: fio failed: $(cat "$TMP/fio.err")"; fail=1; break; }
		n=$(sed -n 's/.*"total_ios" : \([0-9]*\).*/\1/p' "$TMP/fio.json" |
			awk '{ s += $1 } END { print s + 0 }')
		ios=$((ios + n))
		sleep $PAUSE
		idle=$(entries "$map")	# after the pause: should be about empty
		now=$(rss $pid)
		cycle=$((cycle + 1))
		[ $cycle -eq 1 ] && rss1=$now
		[ "$now" -gt "$rss_max" ] && rss_max=$now
		[ "$idle" != - ] && [ "$idle" -gt "$idle_max" ] && idle_max=$idle
		echo "  $(date +%T) fio ios $n, map entries mid-burst $busy, idle $idle," \
			"RSS $now kB (anon $(rss $pid RssAnon), file $(rss $pid RssFile))"
		kill -0 $pid 2>/dev/null || { echo "$name: died: $(cat "$TMP/err")"; return 1; }
	done
	kill -INT $pid
	wait $pid
	rc=$?
	pid=
	wait $gpid
	sed 's/^/  /' "$TMP/out" | grep -E '^  (Events|Lost|In flight|Unfinished):'
	# Verdicts. A handful of idle entries are bios of other I/O still in flight.
	[ $rc -eq 0 ] || { echo "  FAIL exit status $rc"; fail=1; }
	[ -z "$mapname" ] && { ctracer_verdict; return $fail; }
	if [ $((rss_max - rss0)) -gt 1024 ]; then
		echo "  FAIL RSS grew from $rss0 to $rss_max kB"
		fail=1
	fi
	# Every Events count the same (submits = completions), or the gap is
	# accounted for by Lost: lines (starts replaced or left in the map).
	counts=$(sed -n 's/^Events: //p' "$TMP/out" | tr ',' '\n' | awk '{ print $NF }' | sort -n -u)
	first=$(echo "$counts" | head -n 1) last=$(echo "$counts" | tail -n 1)
	lost=$(sed -n 's/^Lost: \([0-9]*\) .*/\1/p' "$TMP/out" | awk '{ s += $1 } END { print s + 0 }')
	gap=$((${last:-0} - ${first:-0}))
	# Entries left after a pause are I/O of others in flight (a few), or
	# starts whose end was missed, which the Lost: lines must then report.
	if [ "$idle_max" -gt $((16 + lost)) ]; then
		echo "  FAIL start map did not empty when I/O stopped (max $idle_max entries)"
		fail=1
	fi
	if [ "$gap" -gt "$lost" ]; then
		echo "  FAIL $gap events unmatched, only $lost reported lost"
		fail=1
	fi
	if [ "${last:-0}" -lt "$ios" ]; then
		echo "  FAIL fewer events ($last) than fio completed I/Os ($ios)"
		fail=1
	fi
	[ $fail -eq 0 ] && echo "  PASS $ios fio I/Os; $gap unmatched, all reported;" \
		"idle map max $idle_max; RSS $rss0 -> $rss_max kB"
	return $fail
}

# ctracer_verdict: ctracer's checks, after soak_one's run (its variables).
# Its memory holds the trees of the bios under way, so the first burst
# sets its working set: from then on RSS must stay flat. Its Events line
# is "hits H, bios B": every fio I/O is a bio, unless the ring buffer had
# no room for its events, which Lost: then reports; a tree printed without
# its end (Unfinished, or without its end at exit) lost that end there too.
ctracer_verdict() {
	if [ $((rss_max - ${rss1:-$rss0})) -gt 1024 ]; then
		echo "  FAIL RSS grew after the first cycle: $rss0, then ${rss1:-?}, up to $rss_max kB"
		fail=1
	fi
	bios=$(sed -n 's/^Events: .*, bios \([0-9]*\).*/\1/p' "$TMP/out")
	lost=$(sed -n 's/^Lost: \([0-9]*\) .*/\1/p' "$TMP/out" | awk '{ s += $1 } END { print s + 0 }')
	unfin=$(sed -n 's/^Unfinished: \([0-9]*\) .*/\1/p' "$TMP/out")
	noend=$(sed -n 's/^In flight at start: .* at exit: \([0-9]*\) .*/\1/p' "$TMP/out")
	if [ "${bios:-0}" -lt $((ios - lost)) ]; then
		echo "  FAIL $ios fio I/Os, only ${bios:-0} bios and $lost events reported lost"
		fail=1
	fi
	if [ $((${unfin:-0} + ${noend:-0})) -gt "$lost" ]; then
		echo "  FAIL $((${unfin:-0} + ${noend:-0})) trees without their end," \
			"only $lost events reported lost"
		fail=1
	fi
	[ $fail -eq 0 ] && echo "  PASS $ios fio I/Os, ${bios:-0} bios, $lost events reported lost;" \
		"RSS $rss0 -> ${rss1:-?} after the first cycle -> $rss_max kB at most"
	return 0
}

status=0
for st in "$@"; do
	case $st in
	[0-9]*) dir=$(ls -d "$ROOT"/stage"$st"_* 2>/dev/null | head -n 1) ;;
	ctracer) dir=$ROOT/tools/ctracer ;;
	*) dir=$st ;;
	esac
	[ -d "${dir:-}" ] || { echo "soak: no stage '$st'" >&2; status=2; continue; }
	soak_one "$dir" || status=1
done
exit $status
