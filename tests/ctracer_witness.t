#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# ctracer's btt phases against blktrace's, on the same I/O.
# vm: skip the VM image has no blktrace, and its emulated CPU stalls for milliseconds between two tracers
#
# Ground truth: 8 O_DIRECT reads of 64 KiB this test issues, each at a
# sector of its own, traced at the same time by ctracer (-a tracepoint)
# and by blktrace's kernel side (kernel/trace/blktrace.c), which records
# the same points under the same names: Q block_bio_queue, G block_getrq,
# I block_rq_insert, D block_rq_issue, C block_rq_complete. Its records
# are read by blktrace(8) and blkparse where blktrace can open its relay
# files in debugfs; a kernel in lockdown refuses that ("debugfs access is
# restricted": the project's host), and then they are read through
# ftrace's blk tracer, the same records printed by the kernel with their
# nanoseconds (option blk_classic). Matched by sector, each phase both
# have must agree. Both are probes on the same tracepoints, called one
# after the other: a mark differs by the time the probe called first
# takes (and an interrupt between the two), and blktrace keeps its own
# clock, so phases (durations) are compared, not times.
. "$(dirname "$0")/lib.sh"
S=$ROOT/tools/ctracer/ctracer
need_bin "$S"
need_bin "$BIN/bio_io"
need_root
N=8
# 64 KiB apart: no read touches another's sectors
SECTORS=$(awk -v n=$N 'BEGIN { for (i = 0; i < n; i++) printf "%d ", 4096 + i * 256 }')
# The bounds, from measurement (tools/ctracer/README.md, "Checked
# against blktrace"): over 40 runs, half with one core kept busy, 99 in
# 100 of 2,232 phases within 3.1 us of the witness's, 9 beyond 5 us +
# 2%, the furthest 7.7 us. Now and then something runs between the two
# probes and adds its time to one read's mark (seen: 25 us, with fio at
# full speed beside). So per phase: all but OUTLIERS of the reads within
# TIGHT_NS + 1/TIGHT_FRAC of the witness's (a mark taken at another point
# moves every read), and every read within LOOSE_NS + 1/LOOSE_FRAC.
TIGHT_NS=5000 TIGHT_FRAC=50 OUTLIERS=2
LOOSE_NS=100000 LOOSE_FRAC=10

why=$(door_ok "$S" tracepoint) || skip_all "$why"
scratch_dev || skip_all "cannot make a scratch block device"
MM=$(cat "/sys/block/$DEV/dev") || skip_all "no /sys/block/$DEV/dev"

# --- the witness: blktrace(8), else the kernel's blk tracer -------------

TR=/sys/kernel/tracing
W_PID= W_FTRACE= W_DEBUGFS=

# bt_seen: blktrace has exited, or has an output file for every relay
# file of the device (it opens each output file after its relay file).
bt_seen() {
	kill -0 $W_PID 2>/dev/null || return 0
	_nr=$(ls /sys/kernel/debug/block/$DEV/ 2>/dev/null | grep -c '^trace[0-9]')
	[ "$_nr" -gt 0 ] && [ "$(ls "$T_TMP/bt" | grep -c '^bt\.blktrace\.')" -ge "$_nr" ]
}

# blktrace_start: blktrace(8) on $DEV, its files in $T_TMP/bt; else
# sets W_WHY to why not and returns 1.
blktrace_start() {
	command -v blktrace >/dev/null 2>&1 && command -v blkparse >/dev/null 2>&1 || {
		W_WHY="blktrace(8) is not installed (apt-get install blktrace)"
		return 1
	}
	if ! grep -q '^[^ ]* /sys/kernel/debug debugfs ' /proc/mounts; then
		mount -t debugfs none /sys/kernel/debug 2>/dev/null || {
			W_WHY="cannot mount debugfs at /sys/kernel/debug"
			return 1
		}
		W_DEBUGFS=1
	fi
	mkdir -p "$T_TMP/bt"
	blktrace -d "/dev/$DEV" -D "$T_TMP/bt" -o bt >"$T_TMP/bt.out" 2>"$T_TMP/bt.err" &
	W_PID=$!
	wait_for 60 bt_seen && kill -0 $W_PID 2>/dev/null && return 0
	kill -INT $W_PID 2>/dev/null	# exited, or no trace files after the bound
	wait $W_PID
	W_PID=
	_e=$(head -n 1 "$T_TMP/bt.err")
	W_WHY="blktrace(8) did not start: ${_e:-no trace files after 60 s}"
	return 1
}

# ftrace_start: the kernel's blk tracer on $DEV (W_WHY as above), in the
# global trace instance: the blk tracer takes no other. Setting a tracer
# empties that buffer; need_root's lock keeps the other tests away.
ftrace_start() {
	[ -w "$TR/current_tracer" ] || { W_WHY="no tracefs at $TR"; return 1; }
	grep -qw blk "$TR/available_tracers" || {
		W_WHY="this kernel has no blk tracer (CONFIG_BLK_DEV_IO_TRACE)"
		return 1
	}
	[ "$(cat "$TR/current_tracer")" = nop ] || {
		W_WHY="the global tracer is in use: $(cat "$TR/current_tracer")"
		return 1
	}
	[ "$(cat "$TR/tracing_on")" = 1 ] || { W_WHY="tracing is off ($TR/tracing_on)"; return 1; }
	echo 1 >"/sys/block/$DEV/trace/enable" 2>/dev/null || {
		W_WHY="cannot enable /sys/block/$DEV/trace"
		return 1
	}
	W_FTRACE=1
	echo blk >"$TR/current_tracer" && echo 1 >"$TR/options/blk_classic" || {
		W_WHY="cannot set the blk tracer"
		return 1
	}
	echo "bwb-witness $$ begin" >"$TR/trace_marker"
}

witness_stop() {
	if [ -n "$W_PID" ]; then
		kill -INT $W_PID 2>/dev/null
		wait $W_PID
		W_PID=
	fi
	if [ -n "$W_FTRACE" ]; then
		echo "bwb-witness $$ end" >"$TR/trace_marker"
		cat "$TR/trace" >"$T_TMP/blk.txt"
		echo 0 >"$TR/options/blk_classic"
		echo nop >"$TR/current_tracer"
		echo 0 >"/sys/block/$DEV/trace/enable"
		W_FTRACE=
	fi
}

witness_cleanup() {
	witness_stop
	[ -n "$SCHED0" ] && echo "$SCHED0" >"/sys/block/$DEV/queue/scheduler" 2>/dev/null
	SCHED0=
	[ -n "$W_DEBUGFS" ] && umount /sys/kernel/debug 2>/dev/null
	W_DEBUGFS=
}
trap 'witness_cleanup; cleanup; exit 1' INT TERM

# witness_events: "ACTION SECTOR NS" per record of $DEV, from the files.
witness_events() {
	if [ -s "$T_TMP/blk.txt" ]; then
		# blk_classic: "MAJ,MIN CPU SECS.NANOS PID ACT RWBS SECTOR + N [COMM]",
		# after this run's marker
		awk -v dev="$(echo "$MM" | tr : ,)" -v m="bwb-witness $$ begin" '
		index($0, m) { on = 1; next }
		on && $1 == dev && $8 == "+" { split($3, t, ".")
			printf "%s %s %.0f\n", $5, $7, t[1] * 1000000000 + t[2] }' "$T_TMP/blk.txt"
	else
		blkparse -q -i bt -D "$T_TMP/bt" -f '%D %a %S %T %t\n' 2>"$T_TMP/blkparse.err" |
			awk -v dev="$(echo "$MM" | tr : ,)" '$1 == dev {
				printf "%s %s %.0f\n", $2, $3, $4 * 1000000000 + $5 }'
	fi
}

# witness_start: blktrace(8), else the kernel's blk tracer: W_NAME says
# which, else W_WHY why neither (blktrace(8)'s reason told once)
W_NO_BT=
witness_start() {
	rm -rf "$T_TMP/bt" "$T_TMP/blk.txt"
	if [ -z "$W_NO_BT" ]; then
		if blktrace_start; then
			W_NAME="blktrace(8) and blkparse"
			return 0
		fi
		W_NO_BT=$W_WHY
		diag "$W_WHY"
		witness_stop
	fi
	if ftrace_start; then
		W_NAME="the kernel's blk tracer (ftrace, blk_classic)"
		return 0
	fi
	witness_stop
	W_WHY="$W_NO_BT; $W_WHY"
	return 1
}

# --- phases, "SECTOR PHASE NS", of our sectors ---------------------------

# witness_phases: from the first Q, G, I, D and C of each sector, as btt
# (and btt.c) take them
witness_phases() {
	witness_events | awk -v want="$SECTORS" '
	BEGIN { n = split(want, w, " "); for (i = 1; i <= n; i++) ours[w[i]] = 1
		np = split("Q2G G2I I2D Q2D D2C Q2C", ph, " ") }
	($2 in ours) && index("QGIDC", $1) && length($1) == 1 && !(($2, $1) in t) {
		t[$2, $1] = $3 }
	END { for (s in ours) for (i = 1; i <= np; i++) {
		a = substr(ph[i], 1, 1); b = substr(ph[i], 3, 1)
		if ((s, a) in t && (s, b) in t && t[s, b] >= t[s, a])
			printf "%s %s %d\n", s, ph[i], t[s, b] - t[s, a] } }' | sort
}

# ctracer_phases FILE: each tree's "btt:" line, under the sector of its
# first event
ctracer_phases() {
	awk -v want="$SECTORS" '
	BEGIN { n = split(want, w, " "); for (i = 1; i <= n; i++) ours[w[i]] = 1 }
	/^bio 0x/ { sec = "" }
	/^  btt: / { if (sec in ours) for (i = 2; i < NF; i++) if ($i ~ /^[A-Z]2[A-Z]$/)
			printf "%s %s %d\n", sec, $i, $(i + 1) * 1000 + 0.5
		next }
	/^ / && sec == "" && match($0, /sector=[0-9]+/) { sec = substr($0, RSTART + 7, RLENGTH - 7) }
	' "$1" | sort
}

# --- the run -------------------------------------------------------------

# far NS FRAC: how many reads of phase $p are further than NS +
# 1/FRAC from the witness's (each in $T_TMP/far)
far() {
	awk -v p=$p -v slack=$1 -v frac=$2 '$1 == p { d = $2 - $3; if (d < 0) d = -d
		if (d > slack + $3 / frac) print p, $2, "vs", $3, "ns" }' "$T_TMP/both" >"$T_TMP/far"
	sed 's/^/#   /' "$T_TMP/far"
	n_far=$(wc -l <"$T_TMP/far")
}

# both have seen every read end: ctracer prints a tree once its bio has
# ended (0.1 s after), the witness recorded each C before that
tree_seen() {
	[ "$(ctracer_phases "$T_TMP/out" | awk '$2 == "Q2C"' | wc -l)" -ge $N ]
}

# Without a scheduler (a loop device's default) a request goes straight
# to the driver: Q G D C. With mq-deadline it is inserted first: I too.
SCHED0=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "/sys/block/$DEV/queue/scheduler")
for sched in none mq-deadline; do
	t="ctracer witness [$sched]"
	if ! grep -qw -- "$sched" "/sys/block/$DEV/queue/scheduler" ||
		! echo "$sched" >"/sys/block/$DEV/queue/scheduler" 2>/dev/null; then
		skip "$t" "$DEV offers no $sched scheduler"
		continue
	fi
	if ! witness_start; then
		skip "$t" "no blktrace witness: $W_WHY"
		continue
	fi
	diag "$t: witness: $W_NAME"
	if ! start "$S" -a tracepoint -d "$DEV"; then
		witness_stop
		ok 1 "$t: ctracer starts"
		continue
	fi
	io -s 65536 "/dev/$DEV" $SECTORS
	wait_for 60 tree_seen
	stop
	witness_stop
	is "$TRC" 0 "$t: ctracer exits 0 on Ctrl-C"
	witness_phases >"$T_TMP/w.ph"
	ctracer_phases "$T_TMP/out" >"$T_TMP/c.ph"
	is "$(awk '$2 == "Q2C"' "$T_TMP/w.ph" | wc -l)" $N \
		"$t: the witness has a Q2C for each of the $N reads"
	is "$(awk '$2 == "Q2C"' "$T_TMP/c.ph" | wc -l)" $N \
		"$t: ctracer has a Q2C for each of the $N reads"
	# the same phases of the same reads: a mark one of them lacks would
	# show here (a G2I where the other saw no I)
	is "$(awk '{ print $1, $2 }' "$T_TMP/c.ph" | tr '\n' ' ')" \
		"$(awk '{ print $1, $2 }' "$T_TMP/w.ph" | tr '\n' ' ')" \
		"$t: the same phases of the same reads as the witness"
	# per phase and read: "PHASE CTRACER_NS WITNESS_NS"
	awk 'NR == FNR { w[$1, $2] = $3; next } ($1, $2) in w { print $2, $3, w[$1, $2] }' \
		"$T_TMP/w.ph" "$T_TMP/c.ph" >"$T_TMP/both"
	for p in $(awk '{ print $1 }' "$T_TMP/both" | sort -u); do
		# the largest gap, and the longest phase: the README's figures
		diag "$t: $p: $(awk -v p=$p '$1 == p { d = $2 - $3; if (d < 0) d = -d
			if (d > m) m = d; if ($3 > w) w = $3; n++ }
			END { printf "%d reads, |ctracer - witness| at most %.1f us (phases up to %.1f us)",
				n, m / 1000, w / 1000 }' "$T_TMP/both")"
		far $TIGHT_NS $TIGHT_FRAC
		check "$t: $p: all reads but at most $OUTLIERS within $((TIGHT_NS / 1000)) us + 1/$TIGHT_FRAC of the witness's ($n_far not)" \
			test $n_far -le $OUTLIERS
		far $LOOSE_NS $LOOSE_FRAC
		check "$t: $p: every read within $((LOOSE_NS / 1000)) us + 1/$LOOSE_FRAC of the witness's" \
			test $n_far -eq 0
	done
done
witness_cleanup
done_testing
