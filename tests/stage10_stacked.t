#!/bin/sh
# Stage 10: a bio's path through stacked devices. A loop device over a
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
S=$ROOT/stage10_class_trace/ctracer
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
undo() {
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
	t="stage10 stacked [$door]"
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
	if [ -n "$TOP" ]; then
		# dm-linear's clone: on the loop device, at the same sector
		got=$(sent_below "$tr" "$above" "$UP" $SECTOR)
		check "$t: $TOP's clone on $UP at sector $SECTOR, sent for $above (${got:-none})" \
			test -n "$got"
		above=${got%% *}
	fi
	got=$(sent_below "$tr" "$above" "$FS_DISK" $BELOW)
	check "$t: a bio on $FS_DISK at sector $BELOW, sent for ${above:-none} (${got:-none})" \
		test -n "$got"
	# -d: another disk's bios only where sent for a bio of the trees
	stray=$(awk '/^bio 0x/ { a[$2] = 1 }
		/^bio 0x/ && match($0, /, sent for bio 0x[0-9a-f]+ above/) {
			p[substr($0, RSTART + 15, RLENGTH - 21)] = 1 }
		END { for (b in p) if (!((b ":") in a)) print b }' "$tr")
	is "$stray" "" "$t: every bio sent below names a bio traced above"
	check "$t: nothing lost" grep -q '^Lost: none' "$T_TMP/out"
	check "$t: every bio ended" sh -c "! grep -q 'no end seen' '$tr'"
done
undo
done_testing
