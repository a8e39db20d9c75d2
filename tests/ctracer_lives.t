#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# vm: skip the tracepoint door's lives are proven on the host; 100,000 reads under the emulated CPU take minutes
# ctracer: one tree per bio, though the kernel reuses a bio's address as
# soon as it ends, and though an event may be dropped. Ground truth:
# O_DIRECT reads at sectors this test chooses, one after the other, whose
# bios come back at a few addresses (bio_io's pread() builds its bio on
# its kernel stack), so each tree must hold one read's sector, no other.
. "$(dirname "$0")/lib.sh"
S=$ROOT/tools/ctracer/ctracer
need_bin "$S"
need_bin "$BIN/bio_io"
need_root
why=$(door_ok "$S" tracepoint) || skip_all "$why"
# a loop device of our own, fast (TEST_DEV may take milliseconds an I/O)
TEST_DEV= scratch_dev 64 || skip_all "cannot make a scratch block device"

# shifts FILE: "TREES SHIFTED NOEND": trees, those whose rows show a
# sector other than their first (a line shows sector= only where it
# changed), and those printed without their end
shifts() {
	awk '/^bio 0x/ { n++; first = ""; if (/, no end seen/) noend++; next }
		/^ +[0-9]+\.[0-9]+ us / {
			for (i = 7; i <= NF; i++) if ($i ~ /^sector=/) {
				if (first == "") first = $i
				else if ($i != first && !(n in bad)) { bad[n] = 1; shifted++ }
			} }
		END { printf "%d %d %d\n", n, shifted, noend }' "$1"
}

# counted FILE: the trees the summary counts without their end: in
# flight at exit, unfinished (--tree-timeout), begun again
counted() {
	awk '/^In flight at start: / { for (i = 1; i <= NF; i++) if ($i == "exit:") n += $(i + 1) }
		/^(Unfinished|Begun again): / { sub(/^[^:]*: /, ""); n += $1 }
		END { print n + 0 }' "$1"
}

# --- ends dropped: the tool stopped (SIGSTOP) while a reader goes on,
# its ring buffer full: events are dropped, ends among them, until it
# reads again, while the reader still reads. Every read at a sector of
# its own (8 MiB of buffer: about 95,000 events, 4 per read here).
t="ctracer [tracepoint, ends dropped]"
N=100000 FULL=30000
sectors=$(awk -v n=$N 'BEGIN { for (i = 0; i < n; i++) printf "%d ", (i * 8) % 131072 }')
if start "$S" -a tracepoint -d "$DEV"; then
	kill -STOP $TPID
	: >"$T_TMP/io.out"
	# shellcheck disable=SC2086
	"$BIN/bio_io" "/dev/$DEV" $sectors >"$T_TMP/io.out" 2>"$T_TMP/io.err" &
	iop=$!
	# some 120,000 events: the buffer full, then reading on
	wait_for 300 sh -c "[ \$(grep -c '^read ' '$T_TMP/io.out') -ge $FULL ] || ! kill -0 $iop"
	kill -CONT $TPID
	wait $iop
	is "$?" 0 "$t: $N reads done"
	stop
	is "$TRC" 0 "$t: exits 0 on Ctrl-C"
	drop=$(sed -n 's/^Lost: \([0-9]*\) events the ring buffer had no room for$/\1/p' \
		"$T_TMP/out")
	if [ -z "$drop" ]; then
		skip "$t: trees" "the ring buffer never filled ($FULL reads while stopped)"
	else
		set -- $(shifts "$T_TMP/out")
		diag "$t: $1 trees, $drop events dropped, $3 trees without their end"
		is "$2" 0 "$t: no tree holds two reads (a row at another sector than its first)"
		[ "$2" = 0 ] || awk '/^bio 0x/ { h = $0; s = "" }
			/ sector=/ && s != "" && !p[h]++ { print "#   " h }
			/ sector=/ { s = $0 }' "$T_TMP/out" | head -n 5
		is "$(counted "$T_TMP/out")" "$3" \
			"$t: each tree without its end counted (at exit, Unfinished:, Begun again:)"
		check "$t: begun again, counted" grep -Eqx \
			"Begun again: [1-9][0-9]* bios printed without their end when their address began a new bio" \
			"$T_TMP/out"
	fi
else
	ok 1 "$t: starts"
fi

# --- a partition: its bio is remapped (block_bio_remap) before it is
# queued, so a life's first event is no begin and no submit. 64 reads of
# the partition, one after the other (their bios at a few addresses of
# the reader's stack): each tree from its remap to its end, nothing of
# the next read in it.
t="ctracer [tracepoint, a partition]"
PIMG=${T_BACKING%.img}.part.img
PL=
if ! command -v sfdisk >/dev/null 2>&1; then
	skip "$t" "needs sfdisk"
elif ! dd if=/dev/zero of="$PIMG" bs=1M count=16 2>/dev/null ||
     ! echo 'start=2048, size=16384' | sfdisk -q "$PIMG" >/dev/null 2>&1 ||
     ! PL=$(loop_attach "$PIMG" -P) || ! PL=${PL#/dev/} ||
     ! { wait_for 2 test -b "/dev/${PL}p1" ||
	 { partx -a "/dev/$PL" 2>/dev/null && wait_for 30 test -b "/dev/${PL}p1"; }; }; then
	# (partx: a kernel without the partition table's parser adds it so)
	skip "$t" "cannot make a loop device with a partition (losetup -P)"
elif start "$S" -a tracepoint -d "$PL"; then
	io "/dev/${PL}p1" $(awk 'BEGIN { for (i = 0; i < 64; i++) printf "%d ", i * 8 }')
	stop
	is "$TRC" 0 "$t: exits 0 on Ctrl-C"
	# per tree: its first point, the point of its end, its last point
	res=$(awk '/^bio 0x/ { if (n) print first, endp, last; n++; first = endp = ""; next }
		/^ +[0-9]+\.[0-9]+ us / { if (first == "") first = $6; last = $6
			if (/\(end\)$/) endp = $6 }
		END { if (n) print first, endp, last }' "$T_TMP/out" | sort | uniq -c |
		awk '{ printf "%s%d: %s %s %s", sep, $1, $2, $3, $4; sep = ", " }')
	is "$res" "64: block_bio_remap block_rq_complete block_rq_complete" \
		"$t: 64 trees, each from its remap to its end"
	[ -n "$(grep '^bio 0x' "$T_TMP/out" | awk '{ print $2 }' | sort | uniq -d)" ] ||
		diag "$t: each read's bio at an address of its own: the test shows little"
else
	ok 1 "$t: starts"
fi
[ -n "$PL" ] && losetup -d "/dev/$PL"
rm -f "$PIMG"

# --- the maps that follow a bio are bounded: -p and -s keep the bios
# they follow in followed, -r the calls open in calls; a full one forgets
# its oldest (LRU), and what it forgets is counted at exit
t="ctracer [maps]"
if ! command -v bpftool >/dev/null 2>&1; then
	skip "$t" "needs bpftool"
elif start "$S" -a tracepoint -d "$DEV" -s 0; then
	# ctracer's maps: its programs' (the last loaded: this test's lock
	# keeps other tests' out), and those of its object's BTF (calls: no
	# program of the tracepoint door uses it)
	ids=$(bpftool prog show 2>/dev/null | awk '/ name block_bio_queue_btf / { getline; getline
		if (match($0, /map_ids [0-9,]+/)) ids = substr($0, RSTART + 8, RLENGTH - 8) }
		END { print ids }' | tr ',' ' ')
	btf=$(for id in $ids; do bpftool map show id "$id"; done 2>/dev/null |
		awk '$1 == "btf_id" { print $2; exit }')
	for m in followed calls; do
		type=$(bpftool map show 2>/dev/null | awk -v m=$m -v btf="${btf:-none}" '
			/^[0-9]+: / { type = $2; name = $4; next }
			$1 == "btf_id" && $2 == btf && name == m { print type; exit }')
		is "${type%:}" lru_hash "$t: $m is an LRU map"
	done
	stop
else
	ok 1 "$t: starts"
fi
done_testing
