#!/bin/sh
# Stage 10: class tracing. Ground truth: O_DIRECT reads and writes at
# known sectors of a loop device, one bio each (bio_io). Each must have
# a tree: its sector, size and operation at its submit, submitted by our
# bio_io, ended, its points in time order; a second disk's bio, not
# traced (-d), must not show; the summary counts them, nothing lost.
. "$(dirname "$0")/lib.sh"
S=$ROOT/stage10_class_trace/class_trace
need_bin "$S"
need_bin "$BIN/bio_io"

# usage errors: one line, the --help hint, exit 2 (no root needed: they
# are refused before anything runs)
for args in "--bogus" "-a nosuch" "--duration 0" "stray"; do
	"$S" $args >"$T_TMP/out" 2>"$T_TMP/err"
	is "$?" 2 "class_trace $args exits 2"
	check "class_trace $args: one line that says why, then the --help hint" sh -c "
		test \$(wc -l <'$T_TMP/err') -eq 2 && head -n 1 '$T_TMP/err' | grep -q '^class_trace: ' &&
		tail -n 1 '$T_TMP/err' | grep -q -- '--help' && test ! -s '$T_TMP/out'"
done
"$S" -a nosuch >/dev/null 2>"$T_TMP/err"
is "$(head -n 1 "$T_TMP/err")" "class_trace: unknown door 'nosuch' (auto, fentry, kprobe, tracepoint)" \
	"an unknown door is refused in one line that names the doors"

need_root
scratch_dev || skip_all "cannot make a scratch block device"
# a second disk, not traced: its bio must not show (-d)
[ -e /dev/loop-control ] || modprobe loop 2>/dev/null
dd if=/dev/zero of="$T_TMP/other.img" bs=1M count=4 2>/dev/null
OTHER=$(loop_attach "$T_TMP/other.img") || OTHER=

# trees FILE: one line per tree that has a submit (block_bio_queue or
# submit_bio): its sector, size and operation there, the submitter, its
# submit's and end's line in the tree, 1 if its times never go back.
#   SECTOR SIZE OP TASK SUBMIT_LINE END_LINE ORDERED
trees() {
	awk '
	function flush() { if (sub_at) print sec, size, op, task, sub_at, end_at, ordered }
	/^bio 0x/ { flush(); n = sub_at = end_at = 0; ordered = 1; last = -1; next }
	/^ +[0-9]+\.[0-9]+ us  cpu/ {
		n++
		if ($1 + 0 < last) ordered = 0
		last = $1 + 0
		if (($5 == "block_bio_queue" || $5 == "submit_bio") && !sub_at) {
			sub_at = n; task = $4; sec = substr($6, 8); size = substr($7, 6); op = $8
		}
		if ($NF == "(end)") end_at = n
	}
	END { flush() }' "$1"
}

# the summary's count of POINT (submit_bio or bio_endio)
events() {
	sed -n "s/^Events: .*$1 \([0-9]*\).*/\1/p" "$T_TMP/out"
}

doors=
for door in $TEST_DOORS; do
	t="stage10 [$door]"
	if ! why=$(door_ok "$S" "$door"); then
		skip "$t" "$why"
		is "$(wc -l <"$T_TMP/door.err")" 1 "stage10 ($door): the missing door is refused in one line"
		continue
	fi
	doors="$doors $door"
	start "$S" -a "$door" -d "$DEV" || { ok 1 "$t: starts"; continue; }
	io "/dev/$DEV" 0 8 2048
	rpid=$(sed -n 's/^pid //p' "$T_TMP/io.out")
	io -w "/dev/$DEV" 4000 5000
	wpid=$(sed -n 's/^pid //p' "$T_TMP/io.out")
	[ -n "$OTHER" ] && io "$OTHER" 6000
	stop
	is "$TRC" 0 "$t: exits 0 on Ctrl-C"
	check "$t: says its door and how many points it attached" \
		grep -Eq "^class_trace: $door door, .*: [1-9][0-9]* of [0-9]+ .* attached in [0-9]+ ms" \
		"$T_TMP/err"
	trees "$T_TMP/out" >"$T_TMP/trees"
	for io in "0 READ $rpid" "8 READ $rpid" "2048 READ $rpid" "4000 WRITE $wpid" \
		"5000 WRITE $wpid"; do
		set -- $io
		n=$(awk -v s="$1" '$1 == s' "$T_TMP/trees" | wc -l)
		is "$n" 1 "$t: one tree for the $2 at sector $1"
		line=$(awk -v s="$1" '$1 == s' "$T_TMP/trees" | head -n 1)
		is "$(echo "$line" | cut -d' ' -f2-4)" "4096 $2 bio_io-$3" \
			"$t: sector $1: size 4096, $2, submitted by our bio_io"
		check "$t: sector $1: ended after its submit, its points in time order ($line)" \
			sh -c "echo '$line' | awk '{ exit !(\$6 > \$5 && \$7 == 1) }'"
	done
	if [ -n "$OTHER" ]; then
		is "$(grep -c 'sector=6000 ' "$T_TMP/out")" 0 "$t: the other disk's bio not shown (-d)"
	else
		skip "$t: the other disk's bio not shown (-d)" "cannot make a second loop device"
	fi
	is "$(awk '/^bio 0x/ && !/, [0-9]+ events in [0-9.]+ us(, no submit seen)?(, not ended)?$/' \
		"$T_TMP/out")" "" "$t: every tree has its header"
	# the summary's counts, from BPF, against the trees: our 5 bios (and
	# any udev's probe of the disk after our write), each submit a tree;
	# an end for each, but those still in flight at exit
	sum=$(grep '^\(Events\|In flight\|Lost\): ' "$T_TMP/out" | tr '\n' ' ')
	check "$t: the summary counts our 5 submits at least ($sum)" test "$(events submit_bio)" -ge 5
	is "$(($(events bio_endio) + $(starts_unended)))" "$(($(events submit_bio) + $(ends_unstarted)))" \
		"$t: the summary: ends + starts left = submits + ends without a start"
	# events the kernel skipped and counted (a miss: an interrupt's event
	# while a program ran on its CPU) are said; nothing else may be lost
	is "$(grep '^Lost: ' "$T_TMP/out" | grep -v ' events missed by ' | grep -vx 'Lost: none')" "" \
		"$t: nothing lost ($sum)"
	[ "$(lost_count "events missed by")" -eq 0 ] &&
		is "$(wc -l <"$T_TMP/trees")" "$(events submit_bio)" "$t: a tree for each submit counted"

	# the smoke set (the VM's emulated CPUs): one run per door
	[ -n "${TEST_SMOKE:-}" ] && continue

	# -q: no events sent, no trees; the counts still come from BPF
	start "$S" -a "$door" -d "$DEV" -q || { ok 1 "$t: -q starts"; continue; }
	io "/dev/$DEV" 16 24
	stop
	is "$TRC" 0 "$t: -q: exits 0 on Ctrl-C"
	is "$(grep -c '^bio 0x\|^Trees:' "$T_TMP/out")" 0 "$t: -q: no trees"
	check "$t: -q: the summary counts our 2 submits at least" test "$(events submit_bio)" -ge 2
	is "$(($(events bio_endio) + $(starts_unended)))" "$(($(events submit_bio) + $(ends_unstarted)))" \
		"$t: -q: ends + starts left = submits + ends without a start"
done
[ -n "$OTHER" ] && losetup -d "$OTHER"
if [ -n "${TEST_SMOKE:-}" ]; then
	diag "smoke set (TEST_SMOKE): -q and the full ring buffer left out"
	done_testing
fi

# A full ring buffer is a counted loss: the reader stopped (SIGSTOP)
# while fio issues more events than the buffer holds (4 MiB, 72 bytes an
# event: some 58,000; a bio sends 4 or more). The BPF side's counts stay
# whole: the books of submits and ends still meet. In the last door
# that works (the tracepoint door where there is one: the quickest to
# attach on an emulated CPU).
t="stage10 [ring buffer full]"
if ! command -v fio >/dev/null 2>&1; then
	skip "$t" "fio is not installed (scripts/install-deps.sh)"
elif [ -z "$doors" ]; then
	skip "$t" "no door of$TEST_DOORS works on this kernel (above)"
elif start "$S" -a "${doors##* }" -d "$DEV"; then
	kill -STOP $TPID
	ios=$(fio --name=full --filename="/dev/$DEV" --rw=randread --bs=512 --direct=1 \
		--ioengine=libaio --iodepth=128 --number_ios=40000 --norandommap \
		--output-format=terse --terse-version=3 2>/dev/null |
		awk -F';' '$1 == 3 { print int($6 * 2) }')
	kill -CONT $TPID
	stop
	is "$TRC" 0 "$t: exits 0 on Ctrl-C"
	full=$(lost_count "ring buffer full")
	check "$t: ${full:-no} events counted as not sent" test "${full:-0}" -gt 0
	sum=$(grep '^\(Events\|In flight\|Lost\): ' "$T_TMP/out" | tr '\n' ' ')
	check "$t: fio's ${ios:-no} reads all counted at submit ($sum)" \
		test "$(events submit_bio)" -ge "${ios:-1}"
	missed=$(lost_count "events missed by")
	if [ "$missed" -gt 0 ]; then
		skip "$t: every submit counted has its end" "$missed events missed (counted)"
	else
		# an end the kernel ran no program for, in a burst at full speed
		# (docs/soak.md), leaves its start: replaced later or left at exit
		is "$(($(events bio_endio) + $(starts_unended)))" \
			"$(($(events submit_bio) + $(ends_unstarted)))" \
			"$t: ends + starts left = submits + ends without a start ($sum)"
	fi
else
	ok 1 "$t: starts"
fi
done_testing
