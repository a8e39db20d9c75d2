# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The pieces of scripts/bench: the device, one fio run, one traced run,
# BPF run-time statistics, start-up and build timing. POSIX sh + awk, so
# it also runs in the busybox classroom VM.

info() { echo "bench: $*" >&2; }
warn() { echo "bench: $*" >&2; }
die() { echo "bench: $*" >&2; exit 1; }
need() { command -v "$1" >/dev/null || die "needs $1 (scripts/install-deps.sh --bench)"; }

SEQ=0 TRACER_PID= OLD_STATS= LOOP= IMG= NULLB_LOADED= MNT=
CLK_TCK=$(getconf CLK_TCK 2>/dev/null) || CLK_TCK=
case "$CLK_TCK" in ''|*[!0-9]*|0) CLK_TCK=100 ;; esac

# bpf_stats: the kernel times every BPF program run (two clock reads per
# run, paid by every traced configuration alike). Restored on exit.
stats_on() {
	OLD_STATS=$(cat /proc/sys/kernel/bpf_stats_enabled) ||
		die "no /proc/sys/kernel/bpf_stats_enabled (kernel before 5.8?)"
	echo 1 >/proc/sys/kernel/bpf_stats_enabled
}

cleanup() {
	[ -n "$TRACER_PID" ] && kill -KILL "$TRACER_PID" 2>/dev/null
	[ -n "$OLD_STATS" ] && echo "$OLD_STATS" >/proc/sys/kernel/bpf_stats_enabled
	[ -n "$MNT" ] && umount "$MNT" 2>/dev/null && rmdir "$MNT"
	[ -n "$LOOP" ] && losetup -d "$LOOP"
	[ -n "$IMG" ] && rm -f "$IMG"
	[ -n "$NULLB_LOADED" ] && rmmod null_blk 2>/dev/null
	return 0
}

# The fastest device at hand: null_blk as in the seed (queue_mode=2 is
# blk-mq; it completes reads without touching memory), else a loop
# device over a file in /dev/shm (every read is a page-cache copy).
setup_device() {
	if [ -z "$DEV" ] && [ ! -b /dev/nullb0 ] &&
	   modprobe null_blk queue_mode=2 nr_devices=1 2>/dev/null; then
		NULLB_LOADED=1
		sleep 0.5
	fi
	if [ -z "$DEV" ] && [ -b /dev/nullb0 ]; then
		DEV=/dev/nullb0 DEVKIND="null_blk"
	elif [ -z "$DEV" ]; then
		IMG=/dev/shm/bwb-bench.$$.img
		# written, not sparse: reads of holes would skip the copy
		dd if=/dev/zero of="$IMG" bs=1M count=512 2>/dev/null || die "cannot write $IMG"
		LOOP=$(losetup -f --show "$IMG") || die "cannot make a loop device"
		DEV=$LOOP DEVKIND="loop over /dev/shm"
	else
		DEVKIND="given"
	fi
	[ -b "$DEV" ] || die "$DEV is not a block device"
	DEVNAME=$(basename "$DEV")
	export DEVNAME
	# the kernel's dev_t (MKDEV: major << 20 | minor), for bpftrace
	DEVT=$(awk -F: '{ print $1 * 1048576 + $2 }' "/sys/class/block/$DEVNAME/dev")
}

# -w: an ext4 on the device (the bench's own: a loop device or null_blk),
# mounted for fio's file
setup_fs() {
	need mkfs.ext4
	mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$DEV" >/dev/null 2>&1 ||
		die "cannot make ext4 on $DEV"
	MNT=$OUT/mnt
	mkdir -p "$MNT" && mount "$DEV" "$MNT" || { MNT=; die "cannot mount $DEV"; }
}

# The workload in words, for the log and the report.
workload() {
	if [ "$WORKLOAD" = write ]; then
		echo "4k buffered writes, psync, an fsync every 256, 2 jobs"
	else
		echo "4k randread, libaio, direct, iodepth 32, 2 jobs"
	fi
}

# Classic issue -> complete latency in bpftrace, keyed like the seed's
# one-liners by device and sector; tracepoints, so it runs on any door.
bpftrace_oneliner() {
	printf '%s' "tracepoint:block:block_rq_issue /args->dev == $DEVT/ { @start[args->dev, args->sector] = nsecs; } tracepoint:block:block_rq_complete /@start[args->dev, args->sector]/ { @usecs = hist((nsecs - @start[args->dev, args->sector]) / 1000); delete(@start[args->dev, args->sector]); }"
}

# One fio run; prints "iops ios". Terse v3: field 6 read KiB, 8 read
# IOPS; 47 write KiB, 49 write IOPS (-w: an I/O is a write() call).
fio_once() {
	if [ "$WORKLOAD" = write ]; then
		timeout -k 5 $((SECS + 60)) fio --name=bench --directory="$MNT" \
			--rw=write --bs=4k --ioengine=psync --size=64M --fsync=256 \
			--numjobs=2 --group_reporting --time_based --runtime="$SECS" \
			--output-format=terse --terse-version=3 \
			2>>"$OUT/fio.err" | awk -F';' '$1 == 3 { print $49, int($47 / 4) }'
		return
	fi
	timeout -k 5 $((SECS + 60)) fio --name=bench --filename="$DEV" \
		--rw=randread --bs=4k --ioengine=libaio --direct=1 --iodepth=32 \
		--numjobs=2 --group_reporting --time_based --runtime="$SECS" \
		--norandommap --randrepeat=0 --output-format=terse --terse-version=3 \
		2>>"$OUT/fio.err" | awk -F';' '$1 == 3 { print $8, int($6 / 4) }'
}

# run_fio ROUND CONFIG: a run with nothing attached (or whatever is).
run_fio() {
	res=$(fio_once)
	[ -n "$res" ] || { warn "fio failed (see $OUT/fio.err)"; res="0 0"; }
	SEQ=$((SEQ + 1))
	set -- "$1" "$2" $res
	printf '%s\t%s\t%s\t%s\t%s\n' "$SEQ" "$1" "$2" "$3" "$4" >>"$OUT/runs.tsv"
}

# BPF programs a process holds, by their file descriptors.
prog_ids() {
	cat /proc/"$1"/fdinfo/* 2>/dev/null | awk '$1 == "prog_id:" { print $2 }' | sort -u
}

# "id type name run_time_ns run_cnt" of the given program ids.
prog_stats() {
	bpftool prog show 2>/dev/null | awk -v ids=" $(echo $1) " '
		/^[0-9]+:/ {
			id = $1; sub(":", "", id)
			if (index(ids, " " id " ") == 0)
				next
			name = "?"; rt = 0; cnt = 0
			for (i = 3; i < NF; i++) {
				if ($i == "name") name = $(i + 1)
				if ($i == "run_time_ns") rt = $(i + 1)
				if ($i == "run_cnt") cnt = $(i + 1)
			}
			print id, $2, name, rt, cnt
		}'
}

# The CPU time (user + system, all its threads) process PID has used, in
# ns, from /proc/PID/stat (utime and stime, in clock ticks); empty if gone.
cpu_ns() {
	sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null |
		awk -v hz="$CLK_TCK" 'NF >= 13 { printf "%.0f\n", ($12 + $13) * 1e9 / hz }'
}

# Wait for MARKER in FILE while PID lives; at most 60 s (bpftrace is slow).
wait_marker() {
	i=0
	while ! grep -q "$3" "$2" 2>/dev/null; do
		kill -0 "$1" 2>/dev/null || return 1
		i=$((i + 1))
		[ "$i" -le 1200 ] || return 1
		sleep 0.05
	done
}

# run_traced ROUND NAME MARKER CMD: attach, one fio run, statistics, stop.
# Besides its BPF programs' run time, the tracer process's own CPU time
# during the run is recorded: from stage 03 on, a printing run's events
# go through a ring buffer to that process, which formats them (stages
# 01-02: bpf_printk formats them in the BPF program, the process copies
# the trace buffer's lines).
run_traced() {
	log=$OUT/tracer.log
	sh -c "$4" >"$log" 2>&1 &
	TRACER_PID=$!
	if ! wait_marker "$TRACER_PID" "$log" "$3"; then
		warn "$2: did not attach; its output:"
		sed 's/^/    /' "$log" >&2
		kill -KILL "$TRACER_PID" 2>/dev/null
		wait "$TRACER_PID" 2>/dev/null
		TRACER_PID=
		SEQ=$((SEQ + 1))
		printf '%s\t%s\t%s\t0\t0\n' "$SEQ" "$1" "$2" >>"$OUT/runs.tsv"
		return
	fi
	sleep 0.3	# bpftrace prints its marker before it attaches
	ids=$(prog_ids "$TRACER_PID")
	prog_stats "$ids" >"$OUT/before"
	cpu0=$(cpu_ns "$TRACER_PID")
	run_fio "$1" "$2"
	cpu1=$(cpu_ns "$TRACER_PID")
	prog_stats "$ids" >"$OUT/after"
	[ -n "$cpu0" ] && [ -n "$cpu1" ] &&
		printf '%s\t%s\t%s\n' "$SEQ" "$2" $((cpu1 - cpu0)) >>"$OUT/cpu.tsv"
	kill -INT "$TRACER_PID"
	i=0
	while kill -0 "$TRACER_PID" 2>/dev/null && [ "$i" -lt 200 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	kill -KILL "$TRACER_PID" 2>/dev/null
	wait "$TRACER_PID" 2>/dev/null
	TRACER_PID=
	# the door the stage says it took, else the BPF program type
	door=$(sed -n 's/^[a-z_]*: [a-z]* door, \([a-z_]*\).*/\1/p' "$log" | sort -u | paste -sd+ -)
	[ -n "$door" ] || door=$(awk '{ print $2 }' "$OUT/after" | sed \
		's/^tracing$/tp_btf/; s/^raw_tracepoint$/raw_tp/' | sort -u | paste -sd+ -)
	printf '%s\t%s\n' "$2" "$door" >>"$OUT/doors.tsv"
	awk -v r="$1" -v c="$2" 'NR == FNR { rt[$1] = $4; cnt[$1] = $5; next }
		{ printf "%s\t%s\t%s\t%s\t%d\t%d\n", r, c, $3, $2, $4 - rt[$1], $5 - cnt[$1] }' \
		"$OUT/before" "$OUT/after" >>"$OUT/progs.tsv"
}

now_ns() { date +%s%N; }

# Exec -> "Hit Ctrl-C" (attached), median of 5 runs, for every stage and
# the floor in quiet mode; the marker is on stderr, which is unbuffered.
startup_times() {
	case "$(now_ns)" in *N|*[!0-9]*) warn "date has no %N: start-up not timed"; return ;; esac
	: >"$OUT/startup.tsv"
	for prog in "$ROOT"/stage[0-9][0-9]_*/bio_trace "$ROOT"/stage[0-9][0-9]_*/tracex3 \
		    "$ROOT/bench/floor/floor"; do
		[ -x "$prog" ] || continue
		name=$(basename "$(dirname "$prog")" | cut -c1-7)
		n=0
		while [ "$n" -lt 5 ]; do
			t0=$(now_ns)
			t1=$("$prog" -q -d "$DEVNAME" --duration 0.2 2>&1 >/dev/null |
			     while IFS= read -r l; do
				case "$l" in *"Hit Ctrl-C"*) now_ns ;; esac
			     done)
			[ -n "$t1" ] && printf '%s\t%s\n' "$name" $(((t1 - t0) / 1000)) >>"$OUT/startup.tsv"
			n=$((n + 1))
		done
	done
}

# ctracer's attach rate (tools/ctracer): in each door this kernel has, its
# entries alone and with -r, 3 times each; its attach line says how many
# points it attached and in how many ms. "door how attached total ms".
attach_rates() {
	ct=$ROOT/tools/ctracer/ctracer
	[ -x "$ct" ] || return 0
	: >"$OUT/attach.tsv"
	for door in kprobe fentry tracepoint; do
		for r in "" -r; do
			n=0
			while [ "$n" -lt 3 ]; do
				"$ct" -a $door $r -q -d "$DEVNAME" --duration 0.1 2>&1 >/dev/null |
				sed -n 's/^ctracer: \([a-z]*\) door, \([^:]*\): \([0-9]*\) of \([0-9]*\) .* attached in \([0-9]*\) ms.*/\1\t\2\t\3\t\4\t\5/p' \
					>>"$OUT/attach.tsv"
				n=$((n + 1))
			done
		done
	done
}

# Full make from clean in a clone of HEAD, serial and with -j(cores).
build_times() {
	command -v git >/dev/null || { warn "no git: build not timed"; return; }
	tmp=$(mktemp -d /tmp/bwb-build.XXXXXX)
	git -C "$ROOT" clone -q "$ROOT" "$tmp/src" 2>/dev/null || { rm -rf "$tmp"; return; }
	: >"$OUT/build.tsv"
	for j in 1 "$(nproc)"; do
		make -C "$tmp/src" clean >/dev/null 2>&1
		t0=$(now_ns)
		if timeout 600 make -C "$tmp/src" -j"$j" >"$OUT/build-j$j.log" 2>&1; then
			printf 'make -j%s\t%s\n' "$j" $((($(now_ns) - t0) / 1000000)) >>"$OUT/build.tsv"
		else
			warn "make -j$j failed in the clone (see $OUT/build-j$j.log)"
		fi
	done
	rm -rf "$tmp"
}

# The markdown report: $OUT/report.md, printed, and spliced into $OUTMD
# between its bench markers.
write_report() {
	rep=$OUT/report.md
	{
		echo "Measured $(date -u '+%Y-%m-%d %H:%M UTC') by \`scripts/bench$([ "$WORKLOAD" = write ] && echo " -w") -r $ROUNDS -s $STATS -t $SECS\`"
		echo "on $(uname -n): $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)," \
			"$(nproc) CPUs, $(awk '/MemTotal/ { printf "%d GiB", $2 / 1048576 }' /proc/meminfo);" \
			"kernel $(uname -r); device $DEVNAME ($DEVKIND); fio $(workload)."
		echo
		awk -v timed="$STATS" -f "$ROOT/scripts/bench.d/table.awk" "$OUT/configs" "$OUT/runs.tsv" \
			"$OUT/progs.tsv" "$OUT/doors.tsv" "$OUT/cpu.tsv"
		if [ -s "$OUT/startup.tsv" ]; then
			echo
			echo "| program | start-up, exec to attached (median of 5) |"
			echo "| --- | --- |"
			awk -F'\t' '{ v[$1] = v[$1] " " $2; if (!($1 in seen)) { seen[$1]; o[++n] = $1 } }
				END { for (i = 1; i <= n; i++) {
					m = split(substr(v[o[i]], 2), a, " ")
					for (x = 2; x <= m; x++) for (y = x; y > 1 && a[y - 1] > a[y]; y--) {
						t = a[y]; a[y] = a[y - 1]; a[y - 1] = t }
					printf "| %s | %.1f ms |\n", o[i], a[int((m + 1) / 2)] / 1000 } }' \
				"$OUT/startup.tsv"
		fi
		if [ -s "$OUT/attach.tsv" ]; then
			echo
			echo "\`ctracer\` (tools/ctracer) attaching (median of 3; \`-r\` adds the returns):"
			echo
			echo "| door | how | attached | of | time | attached per second |"
			echo "| --- | --- | ---: | ---: | ---: | ---: |"
			awk -F'\t' '{ k = $1 "\t" $2; v[k] = v[k] " " $5; a[k] = $3; t[k] = $4
					if (!(k in seen)) { seen[k]; o[++n] = k } }
				END { for (i = 1; i <= n; i++) {
					m = split(substr(v[o[i]], 2), x, " ")
					for (p = 2; p <= m; p++) for (q = p; q > 1 && x[q - 1] > x[q]; q--) {
						s = x[q]; x[q] = x[q - 1]; x[q - 1] = s }
					ms = x[int((m + 1) / 2)]
					split(o[i], d, "\t")
					printf "| %s | %s | %d | %d | %d ms | %s |\n", d[1], d[2], a[o[i]], t[o[i]], ms,
						(ms > 0 ? sprintf("%d", a[o[i]] * 1000 / ms) : "—") } }' "$OUT/attach.tsv"
		fi
		if [ -s "$OUT/build.tsv" ]; then
			echo
			echo "Full build from clean (every stage):" \
				"$(awk -F'\t' '{ printf "%s\140%s\140 %.1f s", (NR > 1 ? ", " : ""), $1, $2 / 1000 }' "$OUT/build.tsv")."
		fi
	} >"$rep"
	cat "$rep"
	[ -n "$OUTMD" ] || return 0
	if [ -f "$OUTMD" ] && grep -q '^<!-- bench:begin -->' "$OUTMD"; then
		awk -v rep="$rep" '/^<!-- bench:begin -->/ { print; while ((getline l < rep) > 0) print l; skip = 1; next }
			/^<!-- bench:end -->/ { skip = 0 } !skip' "$OUTMD" >"$OUTMD.tmp" &&
			mv "$OUTMD.tmp" "$OUTMD"
	else
		mkdir -p "$(dirname "$OUTMD")"
		{ echo "<!-- bench:begin -->"; cat "$rep"; echo "<!-- bench:end -->"; } >"$OUTMD"
	fi
	info "written to $OUTMD"
}
