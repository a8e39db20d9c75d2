#!/bin/sh
# Stage 03: the latency map pairs every completion with its submit.
# tests/array_map.t runs these same checks on the overhead lab's stage 03
# (bench/stage03_array_map): it sets S03_DIR, S03_NAME and
# S03_FIO_EVERY_DOOR, then reads this file.
. "$(dirname "$0")/lib.sh"
S=$ROOT/${S03_DIR:-stage03_latency_map}/bio_trace
N=${S03_NAME:-stage03}
DOORS="$TEST_DOORS"
need_bin "$S"
need_bin "$BIN/bio_io"
need_root
scratch_dev || skip_all "cannot make a scratch block device"

# lines FILE: check each per-event line (bio, a duration 0 < d < 10 s)
# and that stdout holds nothing else but the summary. Prints the count.
lines() {
	awk '
	/^bio 0x[0-9a-f]+: submit_bio\(\) -> bio_endio\(\) time duration: [0-9]+ ns$/ {
		d = $(NF - 1) + 0
		if (d <= 0 || d > 1e10) { print "bad duration: " $0 > "/dev/stderr"; bad = 1 }
		n++; next }
	/^(Events|Lost|Split|In flight at start): / { next }
	{ print "not ours: " $0 > "/dev/stderr"; bad = 1 }
	END { print n + 0; exit bad }' "$1"
}

for door in $DOORS; do
	t="$N [$door]"
	if ! why=$(door_ok "$S" "$door"); then
		skip "$t" "$why"
		continue
	fi
	start "$S" -a "$door" -d "$DEV" || { ok 1 "$t: starts"; continue; }
	io "/dev/$DEV" 0 8 16 24 100 2048
	io -w "/dev/$DEV" 4000 5000
	stop
	is "$TRC" 0 "$t: exits 0 on Ctrl-C"
	n=$(lines "$T_TMP/out")
	ok $? "$t: each line a bio and its duration > 0; nothing else on stdout"
	is "$n" 8 "$t: 8 latencies for 8 issued bios"
	check "$t: nothing lost" nothing_lost "$T_TMP/out"

	# Buffered writes: writeback merges many bios into one request, so the
	# tracepoint door must walk rq->bio to end them all.
	start "$S" -a "$door" -d "$DEV" -q || { ok 1 "$t: starts (-q)"; continue; }
	dd if=/dev/urandom of="/dev/$DEV" bs=64k count=64 conv=fsync 2>/dev/null
	stop
	sub=$(sed -n 's/^Events: submit_bio \([0-9]*\), bio_endio \([0-9]*\)$/\1/p' "$T_TMP/out")
	end=$(sed -n 's/^Events: submit_bio \([0-9]*\), bio_endio \([0-9]*\)$/\2/p' "$T_TMP/out")
	check "$t: -q prints no per-event lines" sh -c "! grep -q 'time duration' '$T_TMP/out'"
	check "$t: buffered 4 MiB write: bios seen (${sub:-none})" test "${sub:-0}" -gt 0
	if [ "$door" = kprobe ]; then
		kprobe_books "$t: buffered write" "$sub" "$end"
	else
		is "$end" "$sub" "$t: buffered write: every submitted bio completes"
		check "$t: buffered write: nothing lost" nothing_lost "$T_TMP/out"
	fi
done

# Many bios in flight on every CPU at once: starts are inserted and
# deleted on both CPUs together (the hash map takes a bucket lock; the
# array map variant claims slots with compare-and-swap). fio issues a
# known number of 4 KiB direct reads, 2 jobs x 64 in flight, 10240 each
# (an emulated VM takes about a minute for the 650,000 that five passes
# over its 256 MiB disk were); a start lost to a racing insert would show
# as a completion without a start. In the door -a auto picks, or in every
# door (S03_FIO_EVERY_DOOR=1).
FIO_DOORS=auto
[ -n "$S03_FIO_EVERY_DOOR" ] && FIO_DOORS=$DOORS
for door in $FIO_DOORS; do
	t="$N [in flight: fio 2 jobs x QD 64]"
	[ "$door" = auto ] || t="$N [$door, in flight: fio 2 jobs x QD 64]"
	if ! command -v fio >/dev/null 2>&1; then
		skip "$t" "fio is not installed (scripts/install-deps.sh)"
		break
	fi
	if ! why=$(door_ok "$S" "$door"); then
		skip "$t" "$why"
		continue
	fi
	start "$S" -a "$door" -d "$DEV" -q || { ok 1 "$t: starts"; continue; }
	ios=$(fio --name=inflight --filename="/dev/$DEV" --rw=randread --bs=4k \
		--ioengine=libaio --direct=1 --iodepth=64 --numjobs=2 \
		--io_size=40m --group_reporting --norandommap \
		--output-format=terse --terse-version=3 2>/dev/null |
		awk -F';' '$1 == 3 { print int($6 / 4) }')
	stop
	sub=$(sed -n 's/^Events: submit_bio \([0-9]*\), bio_endio \([0-9]*\)$/\1/p' "$T_TMP/out")
	end=$(sed -n 's/^Events: submit_bio \([0-9]*\), bio_endio \([0-9]*\)$/\2/p' "$T_TMP/out")
	check "$t: fio issued its reads (${ios:-none})" test "${ios:-0}" -gt 0
	# a program the kernel skipped and counted (a kprobe or recursion
	# miss: on a preemptible kernel another task may enter submit_bio()
	# on the CPU while our program for the first is preempted): each a
	# submit or an end not seen, and said; the books must still meet
	missed=$(lost_count "events missed by")
	if [ "$missed" -gt 0 ]; then
		diag "$t: $missed events missed (counted): $(grep '^Lost: ' "$T_TMP/out" | tr '\n' ' ')"
		check "$t: submits seen ($sub) + missed ($missed) cover the reads fio issued" \
			test "${sub:-0}" -le "${ios:-0}" -a $((${sub:-0} + missed)) -ge "${ios:-0}"
		check "$t: completions without their start ($(ends_unstarted)) at most the missed" \
			test "$(ends_unstarted)" -le "$missed"
	else
		is "$sub" "$ios" "$t: one submit per read fio issued"
		is "$(ends_unstarted)" 0 "$t: no completion without its start"
	fi
	is "$(lost_count "map full")" 0 "$t: the map never full"
	# an end the kernel did not run our program for (docs/soak.md) leaves
	# its start behind, counted: replaced later or left at exit
	left=$(starts_unended)
	is "$((${end:-0} + left))" "$((${sub:-0} + $(ends_unstarted)))" \
		"$t: ends ($end) + starts counted as left ($left) = submits + ends without their start"
done

# -j: the same reads and writes as JSON lines (docs/json.md): a latency
# object per bio, its latency = end - submit, and the summary as an object.
t="$N [auto, -j]"
if start "$S" -d "$DEV" -j; then
	io "/dev/$DEV" 0 8 16 24 100 2048
	io -w "/dev/$DEV" 4000 5000
	stop
	is "$TRC" 0 "$t: exits 0 on Ctrl-C"
	json_lines "$t" "$T_TMP/out"
	got=$(awk "$JF_AWK"'
	/"type":"latency"/ { d = jf("latency_ns") + 0
		if (d != jf("end_ns") - jf("start_ns") || d <= 0 || d > 1e10 || jf("bio") !~ /^0x/) {
			print "bad latency: " $0 > "/dev/stderr"; bad = 1 }
		n++ }
	END { print n + 0; exit bad }' "$T_TMP/out")
	ok $? "$t: each latency object: its bio, latency_ns = end_ns - start_ns > 0"
	is "$got" 8 "$t: 8 latency objects for 8 bios"
	check "$t: the summary object counts them, nothing in flight, nothing lost" grep -qx \
		'{"type":"summary","events":{"submit_bio":8,"bio_endio":8},"split_parts":0,"in_flight":{"at_start":0,"at_exit":0},"lost":{}}' \
		"$T_TMP/out"
	is "$(grep -vc '^{"type":"\(latency\|summary\)"' "$T_TMP/out")" 0 \
		"$t: nothing but its latency and summary objects on stdout"
else
	ok 1 "$t: starts (-j)"
fi

# A full ring buffer is a counted loss: the reader stopped (SIGSTOP),
# more events than the buffer holds (1 MiB, 40 bytes an event: about
# 26000); every completion is then printed or counted as not sent.
t="$N [ring buffer full]"
if ! command -v fio >/dev/null 2>&1; then
	skip "$t" "fio is not installed (scripts/install-deps.sh)"
elif start "$S" -d "$DEV"; then
	kill -STOP $TPID
	fio --name=full --filename="/dev/$DEV" --rw=randread --bs=512 --direct=1 \
		--ioengine=libaio --iodepth=128 --number_ios=40000 --norandommap \
		--output=/dev/null 2>/dev/null
	kill -CONT $TPID
	stop
	end=$(sed -n 's/^Events: submit_bio [0-9]*, bio_endio \([0-9]*\)$/\1/p' "$T_TMP/out")
	full=$(lost_count "ring buffer full")
	n=$(grep -c 'time duration: [0-9]* ns$' "$T_TMP/out")
	check "$t: ${full:-no} events counted as not sent" test "${full:-0}" -gt 0
	is "$((n + full))" "${end:-none}" "$t: lines printed ($n) + not sent = completions"
else
	ok 1 "$t: starts"
fi
# One NVMe path, on every VM kernel (the smoke set too): the VM's scratch
# disk is emulated NVMe (TEST_FS_DEV, ext4 at TEST_FS_DIR). 4 O_DIRECT
# reads of its first sectors, raw (ext4 is left alone), in the door
# auto takes: 4 lines. sync first: nothing of ext4's own is left to write.
t="$N [auto, NVMe ${TEST_FS_DEV:-}]"
case ${TEST_FS_DEV:-}:${S03_DIR:-} in
nvme*:)
	sync
	if start "$S" -d "$TEST_FS_DEV"; then
		io "/dev/$TEST_FS_DEV" 0 8 16 24
		stop
		n=$(lines "$T_TMP/out")
		ok $? "$t: each line a bio's latency, nothing else"
		is "$n" 4 "$t: 4 latencies for 4 reads ($(sed -n 's/ door, .*//p' "$T_TMP/err" | tr '\n' ' '))"
	else
		ok 1 "$t: starts"
	fi
	;;
*:) skip "$t" "no NVMe disk here (TEST_FS_DEV names the VM's scratch disk)" ;;
esac

# I/O that fails: a loop device over a sparse file on a full tmpfs of
# 1 MiB (as exercise 07.5's check makes it). A write to a page the file
# does not hold yet fails, ENOSPC (BLK_STS_NOSPC; EIO on 5.10, whose
# loop driver ends every failure BLK_STS_IOERR and fails the holes'
# reads too); the page written before the tmpfs filled takes a write. A
# failed bio still ends once: one latency line for each of the 6 I/O,
# as many ends as submits, nothing lost, in every door. The loop device
# is T_UPPER (lib.sh's cleanup detaches it); once it holds the file the
# tmpfs is detached (umount -l) and goes with it. Until then a signal
# detaches it first: the loop device may hold it already.
nospc_dev() {
	_m=$T_TMP/nospc
	mkdir -p "$_m" && mount -t tmpfs -o size=1m bwb-test-nospc "$_m" 2>"$T_TMP/nospc.err" ||
		return 1
	trap 'umount -l "$_m" 2>/dev/null; cleanup; exit 1' INT TERM
	truncate -s 16M "$_m/img" &&
		dd if=/dev/zero of="$_m/img" bs=4096 count=1 seek=16 conv=notrunc 2>"$T_TMP/nospc.err" &&
		{ dd if=/dev/zero of="$_m/fill" bs=4096 2>/dev/null; true; } &&
		T_UPPER=$(loop_attach "$_m/img") && T_UPPER=${T_UPPER#/dev/}
	_rc=$?
	umount -l "$_m"
	trap 'cleanup; exit 1' INT TERM
	[ $_rc -eq 0 ] || { T_UPPER=; return 1; }
	command -v udevadm >/dev/null 2>&1 && udevadm settle -t 60 2>/dev/null
	return 0
}
# nospc_io [-w] SECTOR: one I/O there, whose failure (ENOSPC or EIO) is
# counted in NF
nospc_io() {
	"$BIN/bio_io" "$@" >/dev/null 2>"$T_TMP/io.err" && return 0
	grep -Eq ': (No space left on device|Input/output error)$' "$T_TMP/io.err" &&
		NF=$((NF + 1))
}
t="$N [I/O that fails]"
if ! nospc_dev; then
	skip "$t" "cannot make a loop device over a full tmpfs: $(cat "$T_TMP/nospc.err" 2>/dev/null)"
else
	for door in $DOORS; do
		td="$N [$door, I/O that fails]"
		if ! why=$(door_ok "$S" "$door"); then
			skip "$td" "$why"
			continue
		fi
		start "$S" -a "$door" -d "$T_UPPER" || { ok 1 "$td: starts"; continue; }
		NF=0
		nospc_io "/dev/$T_UPPER" 0
		nospc_io "/dev/$T_UPPER" 8
		nospc_io -w "/dev/$T_UPPER" 128
		nf0=$NF
		for s in 2048 4096 6144; do
			nospc_io -w "/dev/$T_UPPER" $s
		done
		stop
		is "$((NF - nf0))" 3 "$td: the 3 writes at holes failed (ENOSPC or EIO)"
		is "$TRC" 0 "$td: exits 0 on Ctrl-C"
		n=$(lines "$T_TMP/out")
		ok $? "$td: each line a bio and its duration > 0; nothing else on stdout"
		is "$n" 6 "$td: 6 latencies for 6 bios, $NF of them failed"
		is "$(sed -n 's/^Events: submit_bio \([0-9]*\), bio_endio \([0-9]*\)$/\1 \2/p' "$T_TMP/out")" "6 6" \
			"$td: Events: 6 submits, 6 ends"
		check "$td: nothing lost" nothing_lost "$T_TMP/out"
	done
fi
done_testing
