#!/bin/sh
# ctracer: a bio's path through stacked devices. A loop device over a
# file of a filesystem on another disk: a read of the loop device is
# served by its worker thread, which reads the file; the filesystem sends
# bios of its own to the disk below. Where device-mapper is (dm_mod), a
# dm-linear device on top of that loop device too: its clone of the read
# goes to the loop device. ctracer -d names the top device: the bios
# below must show too, each in a tree naming the bio above it was sent
# for. Ground truth: the read's sector on the top device (dm-linear maps
# it to the same sector below), and where the filesystem keeps that byte
# of the file (FIEMAP).
. "$(dirname "$0")/lib.sh"
S=$ROOT/tools/ctracer/ctracer
need_bin "$S"
need_bin "$BIN/bio_io"
need_bin "$BIN/file_sector"
need_bin "$BIN/dm_linear"
need_root
scratch_fs || skip_all "cannot make a scratch filesystem (mkfs.ext4 or TEST_FS_DIR)"
SECTOR=2560
F=$FS_DIR/stacked.$$.img
DM=bwb-stacked-$$
UP= TOP=
LIMIT=/sys/block/$FS_DISK/queue/max_sectors_kb
OLD_LIMIT=$(cat "$LIMIT" 2>/dev/null)
undo() {
	[ -n "$OLD_LIMIT" ] && echo "$OLD_LIMIT" >"$LIMIT"
	[ -n "$TOP" ] && "$BIN/dm_linear" remove $DM
	[ -n "$UP" ] && losetup -d "/dev/$UP"
	TOP= UP=
	rm -f "$F"
}
trap 'undo; cleanup; exit 1' INT TERM
# 8 MiB written and on the disk: the loop device's reads reach it
dd if=/dev/zero of="$F" bs=1M count=8 conv=fsync 2>/dev/null || skip_all "cannot write $F"
UP=$(loop_attach "$F") || skip_all "cannot attach a loop device to $F"
UP=${UP#/dev/}
BELOW=$("$BIN/file_sector" "$F" $((SECTOR * 512))) || { undo; skip_all "cannot map $F"; }
# Four reads at once, 2 MiB of the file apart: several requests in the
# worker's list. Where each is on the disk below: "sector:below ...".
MANY="4096 8192 12288 14336"
SPLIT_AT=6144	# 256 KiB from here: past the 4 reads' readahead
MAP=$(for s in $MANY; do echo "$s:$("$BIN/file_sector" "$F" $((s * 512)))"; done | tr '\n' ' ')
diag "a read of $UP at sector $SECTOR is byte $((SECTOR * 512)) of $F: sector $BELOW of $FS_DISK"
[ -e /dev/mapper/control ] || modprobe dm_mod 2>/dev/null
if TOP=$("$BIN/dm_linear" create $DM "/dev/$UP" 2>"$T_TMP/dm.err"); then
	diag "$TOP: dm-linear over $UP"
else
	TOP=
	diag "no dm-linear on top ($(cat "$T_TMP/dm.err")): the loop device alone"
fi
command -v udevadm >/dev/null 2>&1 && udevadm settle -t 60 2>/dev/null

# sent_below TREES ABOVE DISK SECTOR: the bio (address and sector+size)
# on DISK whose tree says it was sent for ABOVE and which holds SECTOR.
sent_below() {
	awk -v up="$2" -v disk="$3" -v want="$4" '
		/^bio 0x/ { s = index($0, ", on " disk ", sent for bio " up " above") > 0
			b = $2; sub(/:$/, "", b); next }
		s { for (i = 1; i <= NF; i++) {
			if ($i ~ /^sector=/) sec = substr($i, 8)
			if ($i ~ /^size=/) { sz = substr($i, 6)
				if (sec <= want && want < sec + sz / 512) {
					print b, sec "+" sz; exit } } } }' "$1"
}

for door in $TEST_DOORS; do
	t="ctracer stacked [$door]"
	if ! why=$(door_ok "$S" "$door"); then
		skip "$t" "$why"
		continue
	fi
	top=${TOP:-$UP}
	# the file's pages out of the cache: the worker must read the disk
	sync
	echo 3 >/proc/sys/vm/drop_caches
	if ! start "$S" -a "$door" -d "$top" -s $SECTOR; then
		ok 1 "$t: starts"
		continue
	fi
	io "/dev/$top" $SECTOR
	stop
	is "$TRC" 0 "$t: exits 0 on Ctrl-C"
	tr=$T_TMP/trees.$door
	grep -v '^ *btt:' "$T_TMP/out" >"$tr"
	# the read's own tree: on the top device, at SECTOR, sent for none
	above=$(awk -v sec=$SECTOR '/^bio 0x/ { b = $2; sub(/:$/, "", b); s = /sent for/; next }
		!s && $0 ~ ("sector=" sec " ") { print b; exit }' "$tr")
	check "$t: the read's tree on $top at sector $SECTOR (${above:-none})" test -n "$above"
	chain=$above
	if [ -n "$TOP" ]; then
		# dm-linear's clone: on the loop device, at the same sector
		got=$(sent_below "$tr" "$above" "$UP" $SECTOR)
		check "$t: $TOP's clone on $UP at sector $SECTOR, sent for $above (${got:-none})" \
			test -n "$got"
		above=${got%% *}
		chain="$chain $above"
	fi
	got=$(sent_below "$tr" "$above" "$FS_DISK" $BELOW)
	check "$t: a bio on $FS_DISK at sector $BELOW, sent for ${above:-none} (${got:-none})" \
		test -n "$got"
	# if not: each tree's header and first sector, and the summary
	[ -n "$got" ] || diag "$(awk '/^bio 0x/ { print; f = 1; next }
		f && /sector=/ { print; f = 0 } /^(Stacked|Lost|Events)/' "$tr" | cut -c1-160 | head -n 80)"
	chain="$chain ${got%% *}"
	# -d: another disk's bios only where sent for a bio of the trees
	stray=$(awk '/^bio 0x/ { a[$2] = 1 }
		/^bio 0x/ && match($0, /, sent for bio 0x[0-9a-f]+ above/) {
			p[substr($0, RSTART + 15, RLENGTH - 21)] = 1 }
		END { for (b in p) if (!((b ":") in a)) print b }' "$tr")
	is "$stray" "" "$t: every bio sent below names a bio traced above"
	# events the kernel skipped and counted (a kprobe or a recursion
	# miss: an interrupt's bio_endio while a program ran on its CPU) are
	# said; nothing else may be lost
	is "$(grep '^Lost: ' "$T_TMP/out" | grep -v ' events missed by ' | grep -vx 'Lost: none')" "" \
		"$t: nothing lost but events the kernel counted as missed ($(grep '^Lost: ' "$T_TMP/out" | tr '\n' ' '))"
	missed=$(lost_count "events missed by")
	# the read returned once all below it had ended: so had their trees
	# (readahead past the read may still be under way: not checked)
	unended=$(for b in $chain; do grep -m1 "^bio $b:" "$tr" | grep -q 'no end seen' && echo "$b"; done)
	if [ -n "$unended" ] && [ "$missed" -gt 0 ]; then
		skip "$t: the read and the bios below it ended" "$missed events missed (counted): $unended's end among them"
	else
		is "$unended" "" "$t: the read and the bios below it ended"
	fi

	# Several reads at once: a link may be "not known" (counted), never
	# wrong. A bio below that holds where one read lies must name that
	# read's bio on the loop device (dm's clone, or the read itself). An
	# address comes back once its bio ended: the bio named is the tree at
	# that address whose life had begun when the bio below began (-j's
	# first_ns), the latest such. An end the kernel skipped (a counted
	# miss) joins the next life at that address to its tree: a bio below
	# whose tree then holds two submits (two lives) is not judged.
	sync
	echo 3 >/proc/sys/vm/drop_caches
	if ! start "$S" -a "$door" -d "$top" -j; then
		ok 1 "$t: starts again"
		continue
	fi
	pids=
	for s in $MANY; do
		"$BIN/bio_io" "/dev/$top" $s >/dev/null 2>&1 &
		pids="$pids $!"
	done
	wait $pids
	stop
	lost=$(sed -n 's/^{"type":"summary".*"lost":\({[^}]*}\).*/\1/p' "$T_TMP/out")
	missed4=$(echo "$lost" | tr ',{}' '\n\n\n' | sed -n 's/^"\(kprobe\|recursion\)_missed":\([0-9]*\)$/\2/p' |
		awk '{ n += $1 } END { print n + 0 }')
	# each tree: its address, the bio it names, its disk, its first
	# event's time, and every sector+size it showed (its events' until
	# its end)
	res=$(awk -v up="$UP" -v disk="$FS_DISK" -v map="$MAP" '
		function str(k) {
			if (!match($0, "\"" k "\":\"[^\"]*\"")) return ""
			return substr($0, RSTART + length(k) + 4, RLENGTH - length(k) - 5) }
		function num(k) {
			if (!match($0, "\"" k "\":[0-9]+")) return -1
			return substr($0, RSTART + length(k) + 3, RLENGTH - length(k) - 3) + 0 }
		BEGIN { n = split(map, m, " "); for (i = 1; i <= n; i++) {
			split(m[i], p, ":"); below[p[1]] = p[2] } }
		!/^\{"type":"bio"/ { next }
		{ t++; b[t] = str("bio"); on[t] = str("disk"); t0[t] = num("first_ns")
		  par[t] = /"stacked":true/ ? str("parent") : ""; tp[t] = str("parent")
		  # its own life: events up to its end (where a function door
		  # cannot see a new life begin, the next one may follow on)
		  rest = $0; ext[t] = ""
		  if ((e = index(rest, "\"end\":true"))) rest = substr(rest, 1, e)
		  while (match(rest, /"sector":[0-9]+,"size":[0-9]+/)) {
			split(substr(rest, RSTART, RLENGTH), f, /[:,]/)
			ext[t] = ext[t] " " f[2] "+" f[4]
			rest = substr(rest, RSTART + RLENGTH) }
		  # for a wrong link: the whole tree, point by point
		  pts[t] = ""; nsub[t] = 0; n = split($0, ev, /\{"point":/)
		  for (i = 2; i <= n; i++) { split(ev[i], f, "\"")
			nsub[t] += f[2] == "submit_bio" || f[2] == "block_bio_queue"
			sec = ev[i]; sub(/.*"sector":/, "", sec); sub(/,.*/, "", sec)
			sz = ev[i]; sub(/.*"size":/, "", sz); sub(/,.*/, "", sz)
			pts[t] = pts[t] " " f[2] "@" sec "+" sz (ev[i] ~ /"end":true/ ? "!" : "") } }
		function holds(k, w,   i, n, x, q) { n = split(ext[k], x, " ")
			for (i = 1; i <= n; i++) { split(x[i], q, "+")
				if (q[1] <= w && w < q[1] + q[2] / 512) return 1 }
			return 0 }
		END { for (k = 1; k <= t; k++) {
			if (on[k] != disk || par[k] == "") continue
			u = 0	# the life the parent address had then
			for (j = 1; j <= t; j++)
				if (b[j] == par[k] && t0[j] <= t0[k] && (!u || t0[j] > t0[u])) u = j
			for (s in below) if (holds(k, below[s])) {
				if (u && holds(u, s)) good++
				else if (missed && nsub[k] > 1) merged++
				else { bad++; printf "%s holds read %s, names %s (%s) ", b[k], s,
					par[k], u ? "at" ext[u] : "no tree" > "/dev/stderr"
					printf "below: %s first_ns %.0f:%s\n", b[k], t0[k], pts[k] > why
					for (j = 1; j <= t; j++) if (b[j] == par[k])
						printf "above: %s first_ns %.0f parent %s:%s\n", b[j], t0[j],
							tp[j], pts[j] > why } } }
			printf "%d %d %d\n", good + 0, merged + 0, bad + 0 }' missed="$missed4" why="$T_TMP/why" \
		"$T_TMP/out" 2>"$T_TMP/wrong")
	unl=$(sed -n 's/.*"stacked_unlinked":\([0-9]*\).*/\1/p' "$T_TMP/out")
	set -- $res
	good=$1 merged=$2 bad=$3
	diag "$t: 4 reads at once: $good linked right, ${unl:-0} bios sent below not known, $merged not judged (two lives in a tree: $missed4 events missed); lost: $lost"
	is "$bad" 0 "$t: 4 reads at once: no bio below names another read's $(cat "$T_TMP/wrong")"
	[ -s "$T_TMP/why" ] && cut -c1-1500 "$T_TMP/why" | sed 's/^/#   /' && rm -f "$T_TMP/why"
	check "$t: 4 reads at once: some linked, or said not known ($good, ${unl:-0})" \
		test $((good + ${unl:-0})) -gt 0

	# A bio sent below that the disk below splits: its parts are kept
	# too (-d), each chained to it. Ground truth: the limit set here
	# (64 KiB) and a 256 KiB read, which the loop worker reads from the
	# file in one go (readahead): one bio on the disk below, cut in parts.
	if [ -z "$OLD_LIMIT" ] || ! echo 64 >"$LIMIT"; then
		skip "$t: a split below" "cannot set $LIMIT"
		continue
	fi
	sync
	echo 3 >/proc/sys/vm/drop_caches
	if ! start "$S" -a "$door" -d "$top" -s $SPLIT_AT; then
		ok 1 "$t: starts a third time"
		continue
	fi
	io -s 262144 "/dev/$top" $SPLIT_AT
	stop
	echo "$OLD_LIMIT" >"$LIMIT"
	# "PARTS BAD": parts on the disk below chained to a bio there that
	# was sent for one above; and parts that are not, or over the limit
	res=$(awk -v disk="$FS_DISK" '
		/^bio 0x/ { t++; b[t] = $2; sub(/:$/, "", b[t]); on[t] = ""
			if (match($0, /, on [^,]*,/)) on[t] = substr($0, RSTART + 5, RLENGTH - 6)
			sent[b[t]] = sent[b[t]] || on[t] == disk && /sent for bio/
			if (match($0, /chained to bio 0x[0-9a-f]+/))
				par[t] = substr($0, RSTART + 15, RLENGTH - 15)
			next }
		par[t] != "" && !(t in sz) && / size=[1-9]/ {
			for (i = 1; i <= NF; i++) if ($i ~ /^size=/) sz[t] = substr($i, 6) }
		END { for (k = 1; k <= t; k++) if (par[k] != "") {
			if (sent[par[k]] && sz[k] <= 65536) good++; else bad++ }
			printf "%d %d\n", good + 0, bad + 0 }' "$T_TMP/out")
	check "$t: a read of 256 KiB: parts of the bio below, chained to it (${res% *})" \
		test "${res% *}" -gt 0
	is "${res#* }" 0 "$t: a read of 256 KiB: every part of at most 64 KiB, of a bio sent below"
done
undo
done_testing
