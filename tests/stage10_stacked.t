#!/bin/sh
# Stage 10: a bio's path through a stacked device. A loop device over a
# file of a filesystem on another disk: a read of the loop device is
# served by its worker thread, which reads the file; the filesystem sends
# bios of its own to the disk below. ctracer -d names the loop device:
# the bios below must show too, each in a tree saying the bio above it
# was sent for. Ground truth: the read's sector on the loop device, and
# where the filesystem keeps that byte of the file (FIEMAP).
. "$(dirname "$0")/lib.sh"
S=$ROOT/stage10_class_trace/ctracer
need_bin "$S"
need_bin "$BIN/bio_io"
need_bin "$BIN/file_sector"
need_root
scratch_fs || skip_all "cannot make a scratch filesystem (mkfs.ext4 or TEST_FS_DIR)"
SECTOR=2560
F=$FS_DIR/stacked.$$.img
UP=
trap '[ -n "$UP" ] && losetup -d "/dev/$UP"; rm -f "$F"; cleanup; exit 1' INT TERM
# 8 MiB written and on the disk: the loop device's reads reach it
dd if=/dev/zero of="$F" bs=1M count=8 conv=fsync 2>/dev/null || skip_all "cannot write $F"
UP=$(loop_attach "$F") || skip_all "cannot attach a loop device to $F"
UP=${UP#/dev/}
command -v udevadm >/dev/null 2>&1 && udevadm settle -t 60 2>/dev/null
BELOW=$("$BIN/file_sector" "$F" $((SECTOR * 512))) ||
	skip_all "cannot map $F: $(cat "$T_TMP/err" 2>/dev/null)"
diag "a read of $UP at sector $SECTOR is byte $((SECTOR * 512)) of $F: sector $BELOW of $FS_DISK"

for door in $TEST_DOORS; do
	t="stage10 stacked [$door]"
	if ! why=$(door_ok "$S" "$door"); then
		skip "$t" "$why"
		continue
	fi
	# the file's pages out of the cache: the worker must read the disk
	sync
	echo 3 >/proc/sys/vm/drop_caches
	if ! start "$S" -a "$door" -d "$UP" -s $SECTOR; then
		ok 1 "$t: starts"
		continue
	fi
	io "/dev/$UP" $SECTOR
	stop
	is "$TRC" 0 "$t: exits 0 on Ctrl-C"
	grep -v '^ *btt:' "$T_TMP/out" >"$T_TMP/trees.$door"
	# the read's own tree: on the loop device, at SECTOR, sent for none
	above=$(awk -v sec=$SECTOR '/^bio 0x/ { b = $2; sub(/:$/, "", b); s = /sent for/; next }
		!s && $0 ~ ("sector=" sec " ") { print b; exit }' "$T_TMP/trees.$door")
	check "$t: the read's tree at sector $SECTOR (${above:-none})" test -n "$above"
	# below it: a bio on the filesystem's disk, sent for it, holding BELOW
	got=$(awk -v up="$above" -v disk="$FS_DISK" -v want=$BELOW '
		/^bio 0x/ { s = index($0, ", on " disk ", sent for bio " up " above") > 0; next }
		s { for (i = 1; i <= NF; i++) {
			if ($i ~ /^sector=/) sec = substr($i, 8)
			if ($i ~ /^size=/) { sz = substr($i, 6)
				if (sec <= want && want < sec + sz / 512) { print sec "+" sz; exit } } } }' \
		"$T_TMP/trees.$door")
	check "$t: a bio on $FS_DISK at sector $BELOW, sent for $above (${got:-none})" test -n "$got"
	# -d: another disk's bios only where sent for a bio of the trees
	stray=$(awk '/^bio 0x/ { a[$2] = 1 }
		/^bio 0x/ && match($0, /, sent for bio 0x[0-9a-f]+ above/) {
			p[substr($0, RSTART + 15, RLENGTH - 21)] = 1 }
		END { for (b in p) if (!((b ":") in a)) print b }' "$T_TMP/trees.$door")
	is "$stray" "" "$t: every bio sent below names a bio traced above"
	check "$t: nothing lost" grep -q '^Lost: none' "$T_TMP/out"
done
losetup -d "/dev/$UP"
UP=
rm -f "$F"
done_testing
