#!/bin/sh
# ctracer: a bio's whole path when the block layer splits it. A 1 MiB
# O_DIRECT read on a disk that takes 64 KiB (max_sectors_kb): bio_split()
# cuts 15 parts off the front, each a bio of its own chained to the one
# read submitted, which ends with the last 64 KiB. -s and -p choose the
# submitted bio; its parts belong to it wherever their sectors lie.
# Ground truth: the read's sector and size, and the disk's limit.
. "$(dirname "$0")/lib.sh"
S=$ROOT/tools/ctracer/ctracer
need_bin "$S"
need_bin "$BIN/bio_io"
need_root
scratch_dev || skip_all "cannot make a scratch block device"
LIMIT=/sys/block/$DEV/queue/max_sectors_kb
[ -w "$LIMIT" ] || skip_all "$LIMIT cannot be written"
SECTOR=2048 SIZE=1048576 PART=64

# parts FILE: "TREES ORIGIN CHAINED SECTORS" for the trees in FILE: how
# many, the address of the one at $SECTOR that is chained to none, how
# many are chained to it, and the sectors of those (each tree's first
# sector= but 0: a function door sees a bio before its sector is set).
parts() {
	awk -v sec=$SECTOR '
	/^bio 0x/ { n++; addr[n] = substr($2, 1, length($2) - 1)
		par[n] = ""; if (match($0, /chained to bio 0x[0-9a-f]+/))
			par[n] = substr($0, RSTART + 15, RLENGTH - 15)
		next }
	/^ +[0-9]+\.[0-9]+ us / && !(n in first) {
		for (i = 7; i <= NF; i++) if ($i ~ /^sector=[1-9]/) { first[n] = substr($i, 8); break } }
	END {
		for (i = 1; i <= n; i++) if (par[i] == "" && first[i] == sec) o = addr[i]
		for (i = 1; i <= n; i++) if (o != "" && par[i] == o) { c++; s = s " " first[i] }
		printf "%d %s %d%s\n", n, o == "" ? "none" : o, c, s }' "$1" |
	{ read -r n o c s; echo "$n $o $c $(echo $s | tr ' ' '\n' | sort -n | tr '\n' ' ')"; }
}

# the sectors the 15 parts start at: 2048, 2176, … (64 KiB = 128 sectors)
want=$(awk -v s=$SECTOR -v step=$((PART * 2)) 'BEGIN {
	for (i = 0; i < 15; i++) printf "%d ", s + i * step }')

KV=$(uname -r | awk -F. '{ print $1 * 1000 + $2 }')
old=$(cat "$LIMIT")
echo $PART >"$LIMIT" || skip_all "cannot set $LIMIT to $PART"
for door in $TEST_DOORS; do
	t="ctracer [$door]"
	if ! why=$(door_ok "$S" "$door"); then
		skip "$t" "$why"
		continue
	fi
	for how in "-s $SECTOR-$SECTOR" "-p" ""; do
		what=${how:-no filter}
		rm -f "$T_TMP/gate"
		: >"$T_TMP/io.out"	# there before the grep below, which may run first
		"$BIN/bio_io" -g "$T_TMP/gate" -s $SIZE "/dev/$DEV" $SECTOR >"$T_TMP/io.out" 2>&1 &
		iop=$!
		wait_for 30 grep -q '^pid ' "$T_TMP/io.out"
		arg=$how
		[ "$how" = -p ] && arg="-p $iop"
		# shellcheck disable=SC2086
		if ! start "$S" -a "$door" -d "$DEV" $arg; then
			ok 1 "$t $what: starts"
			touch "$T_TMP/gate"
			wait $iop
			continue
		fi
		[ -n "$how" ] && "$BIN/bio_io" "/dev/$DEV" 8 >/dev/null 2>&1	# not ours: not shown
		touch "$T_TMP/gate"
		wait $iop
		stop
		is "$TRC" 0 "$t $what: exits 0 on Ctrl-C"
		set -- $(parts "$T_TMP/out")
		n=$1 origin=$2 chained=$3
		shift 3
		check "$t $what: the read's bio, submitted at sector $SECTOR (${origin})" \
			test "$origin" != none
		# events the kernel skipped and counted (a kprobe or a
		# recursion miss): each may be a part's end, and its part
		# then shares the next part's tree
		missed=$(sed -n 's/^Lost: \([0-9]*\) events missed by .*/\1/p' "$T_TMP/out" |
			awk '{ n += $1 } END { print n + 0 }')
		if [ "$missed" -gt 0 ]; then
			check "$t $what: parts chained to it ($chained) + events counted as missed ($missed) cover the 15" \
				test "$chained" -le 15 -a $((chained + missed)) -ge 15
			check "$t $what: each where a part starts" sh -c \
				'for s in $1; do echo " $2 " | grep -q " $s " || exit 1; done' sh "$*" "$want"
			is "$(grep '^Lost: ' "$T_TMP/out" | grep -vc ' events missed by ')" 0 \
				"$t $what: nothing else lost"
			continue
		fi
		if [ "$door" = kprobe ] && [ "$KV" -lt 6007 ]; then
			# before 6.7 a kprobe program is skipped, and counted
			# nowhere, while another runs on that CPU (lib.sh's
			# kprobe_books): a part's end can go unseen, and the
			# next part at its address joins its tree
			check "$t $what: parts chained to it ($chained), at most 15, kernel before 6.7" \
				test "$chained" -ge 1 -a "$chained" -le 15
			check "$t $what: each where a part starts" sh -c \
				'for s in $1; do echo " $2 " | grep -q " $s " || exit 1; done' sh "$*" "$want"
			[ "$chained" = 15 ] || diag "$t $what: $((15 - chained)) parts not told apart (kprobe skips before 6.7)"
		else
			is "$chained" 15 "$t $what: 15 parts chained to it"
			is "$*" "$(echo $want)" "$t $what: the parts start every $PART KiB from sector $SECTOR"
			if [ -n "$how" ]; then
				is "$n" 16 "$t $what: its 16 bios and no other"
			else
				check "$t $what: its 16 bios among the $n shown" test "$n" -ge 16
			fi
		fi
		check "$t $what: nothing lost" grep -qx "Lost: none" "$T_TMP/out"
		[ "$chained" = 15 ] || grep -E '^(bio 0x|Events|Lost|In flight)' "$T_TMP/out" |
			head -n 40 | sed 's/^/#   /' >&2
	done
done
echo "$old" >"$LIMIT"

# A part may end after its parent's own last 64 KiB (NVMe's queues): the
# parent ends only when all its parts have (bio_endio() returns early for
# it until then), and its tree with them. Ground truth: a loop device
# over a file (O_DIRECT) whose read's last 64 KiB is a hole, which the
# filesystem serves at once, while the first 960 KiB wait for the disk
# below. The parent's Q2C must reach its last part's end.

# ends FILE: "OWN LAST C": the parent's own end (ns), its parts' last
# end, its first event plus its Q2C (C, the end btt gives it)
ends() {
	awk -v sec=$SECTOR -v size=$SIZE "$JF_AWK"'
	function end_ts(l,   n, ev, i) {
		n = split(l, ev, /\{"point":/)
		for (i = 2; i <= n; i++)
			if (ev[i] ~ /"end":true/ && match(ev[i], /"ts_ns":[0-9]+/))
				return substr(ev[i], RSTART + 8, RLENGTH - 8) + 0
		return 0 }
	!/^\{"type":"bio"/ { next }
	/^\{"type":"bio","bio":"0x[0-9a-f]+","parent":/ {
		if (!/"stacked":true/) { e = end_ts($0); p = jf("parent")
			if (e > last[p]) last[p] = e }
		next }
	jf("sector") == sec && jf("size") == size {
		b = jf("bio"); own = end_ts($0); c = jf("Q2C") == "" ? 0 : jf("first_ns") + jf("Q2C") }
	END { printf "%.0f %.0f %.0f\n", own, last[b], c }' "$1"
}

t="ctracer [parts ending last]"
HOLE_IMG=${T_BACKING%.img}.fs.img
HOLE_LOW= HOLE_UP= HOLE_MNT=
if ! command -v mkfs.ext4 >/dev/null 2>&1; then
	skip "$t" "needs mkfs.ext4"
elif ! dd if=/dev/zero of="$HOLE_IMG" bs=1M count=64 2>/dev/null ||
     ! HOLE_LOW=$(loop_attach "$HOLE_IMG") ||
     ! mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$HOLE_LOW" >/dev/null 2>&1 ||
     ! mkdir -p "$T_TMP/hole" || ! mount "$HOLE_LOW" "$T_TMP/hole" || ! HOLE_MNT=$T_TMP/hole ||
     ! truncate -s 8M "$HOLE_MNT/f" ||
     ! dd if=/dev/zero of="$HOLE_MNT/f" bs=64k count=15 seek=$((SECTOR * 512 / 65536)) \
	conv=notrunc,fsync 2>/dev/null ||
     ! HOLE_UP=$(loop_attach "$HOLE_MNT/f" --direct-io=on) ||
     [ "$(cat "/sys/block/${HOLE_UP#/dev/}/loop/dio" 2>/dev/null)" != 1 ] ||
     ! echo $PART >"/sys/block/${HOLE_UP#/dev/}/queue/max_sectors_kb"; then
	skip "$t" "cannot make a loop device with O_DIRECT over a file with a hole"
else
	up=${HOLE_UP#/dev/}
	for door in $TEST_DOORS; do
		if ! why=$(door_ok "$S" "$door"); then
			skip "$t [$door]" "$why"
			continue
		fi
		# the hole's part ends first most times, not every: five tries
		tries=0 own=0 last=0 c=0
		while [ $tries -lt 5 ] && [ "$own" -ge "$last" ]; do
			tries=$((tries + 1))
			start "$S" -a "$door" -d "$up" -s $SECTOR -j || { ok 1 "$t [$door]: starts"; continue 2; }
			io -s $SIZE "/dev/$up" $SECTOR
			stop
			set -- $(ends "$T_TMP/out")
			own=$1 last=$2 c=$3
		done
		if [ "$own" -eq 0 ] || [ "$own" -ge "$last" ]; then
			skip "$t [$door]" "its own end came after its parts' in $tries tries (own $own, parts $last)"
			continue
		fi
		diag "$t [$door]: its own end $(((last - own) / 1000)) us before its last part's (try $tries)"
		is "$c" "$last" "$t [$door]: the parent's end (its C) is its last part's"
		# (events the kernel skipped and counted, a kprobe's or a
		# recursion's, are said apart: each may be an end)
		is "$(sed -n 's/.*"lost":{\([^}]*\)}.*/\1/p' "$T_TMP/out" |
			sed 's/"\(kprobe\|recursion\)_missed":[0-9]*,\{0,1\}//g')" "" \
			"$t [$door]: nothing lost but events the kernel counted as missed"
	done
fi
[ -n "$HOLE_UP" ] && losetup -d "$HOLE_UP"
[ -n "$HOLE_MNT" ] && umount "$HOLE_MNT"
[ -n "$HOLE_LOW" ] && losetup -d "$HOLE_LOW"
rm -f "$HOLE_IMG"
done_testing
