# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# What a check makes for its run besides lib.sh's loop device ($DEV),
# each in a name of the checker's own, so that scratch_cleanup can undo
# it however the check ends (a Ctrl-C too):
#   CHECK_MNT     ext4 made on $DEV, mounted (stages 08, 09 and 11)
#   CHECK_DEV2    a second loop device (00.1), or one over $DEV (10.2)
#   CHECK_DM      a device-mapper linear device over $DEV, or else
#   CHECK_ZRAM    a zram device: bio-based disks, BIO_DEV its name (02.2)
#   CHECK_CG      a cgroup v2 directory (09.1), or a cgroup whose reads of
#                 $DEV blk-throttle holds (10.2)
#   CHECK_READER  a reader process still running (read_file)

# fs_on_dev: ext4 on $DEV, mounted at $CHECK_MNT for one exercise's run
# only (the others read and write its sectors raw: fs_off_dev unmounts it).
fs_on_dev() {
	if ! command -v mkfs.ext4 >/dev/null 2>&1; then
		say run "FAIL: the checker needs mkfs.ext4 (Debian: apt-get install e2fsprogs)"
		return 1
	fi
	# inode tables and journal written now, not by a thread behind our back
	if ! mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 \
		"/dev/$DEV" >"$T_TMP/mkfs.err" 2>&1 ||
		! mkdir -p "$T_TMP/mnt" || ! mount "/dev/$DEV" "$T_TMP/mnt" 2>>"$T_TMP/mkfs.err"; then
		say run "FAIL: the checker cannot make a filesystem on /dev/$DEV: $(tail -n 1 "$T_TMP/mkfs.err")"
		return 1
	fi
	CHECK_MNT=$T_TMP/mnt
}

fs_off_dev() {
	[ -n "$CHECK_MNT" ] && umount "$CHECK_MNT" 2>/dev/null
	CHECK_MNT=
}

# fs_run FUNCTION: FUNCTION's run on the filesystem fs_on_dev makes,
# unmounted after however it went; FUNCTION's status
fs_run() {
	fs_on_dev || return 1
	"$1"
	_fs_rc=$?
	fs_off_dev
	return $_fs_rc
}

# dev2_make: CHECK_DEV2, a second loop device (a name such as loop4)
dev2_make() {
	if ! dd if=/dev/zero of="$T_TMP/disk2.$$.img" bs=1M count=1 2>/dev/null ||
		! CHECK_DEV2=$(loop_attach "$T_TMP/disk2.$$.img"); then
		CHECK_DEV2=
		say run "FAIL: the checker cannot make a second loop device"
		return 1
	fi
	CHECK_DEV2=${CHECK_DEV2#/dev/}
	command -v udevadm >/dev/null 2>&1 && udevadm settle -t 60 2>/dev/null
	return 0
}

# slow_make: CHECK_DEV2, a loop device over $DEV (O_DIRECT where it can),
# whose reads by a task of CHECK_CG wait below it, in blk-throttle: the
# first read of that cgroup takes about 1/SLOW_IOPS s (lib.sh's slow_dev,
# in the check's names). io_or_fail with IO_CG=$CHECK_CG reads so.
slow_make() {
	CHECK_DEV2=$(loop_attach "/dev/$DEV" --direct-io=on) ||
		CHECK_DEV2=$(loop_attach "/dev/$DEV") || {
		CHECK_DEV2=
		say run "FAIL: the checker cannot make a loop device over /dev/$DEV"
		return 1
	}
	CHECK_DEV2=${CHECK_DEV2#/dev/}
	command -v udevadm >/dev/null 2>&1 && udevadm settle -t 60 2>/dev/null
	CHECK_CG=$(throttled_cg "bwb-check.$$" "$(cat "/sys/block/$DEV/dev")") && return 0
	CHECK_CG=
	say run "FAIL: the checker cannot slow a read down: no cgroup blkio or io controller"
	return 1
}

# bio_dev_ok: this kernel can give the check a bio-based disk
bio_dev_ok() {
	dm_ok || [ -d /sys/class/zram-control ] ||
		{ modprobe zram 2>/dev/null && [ -d /sys/class/zram-control ]; }
}

dm_ok() {
	grep -qw device-mapper /proc/misc ||
		{ modprobe dm_mod 2>/dev/null && grep -qw device-mapper /proc/misc; }
}

# bio_dev_make: BIO_DEV, a bio-based disk of the check's own: dm-linear
# over $DEV (tests/helpers/dm_linear, what dmsetup does), else a zram
# device of 16 MiB
bio_dev_make() {
	if dm_ok; then
		CHECK_DM=bwb-check-$$
		BIO_DEV=$("$BIN/dm_linear" create "$CHECK_DM" "/dev/$DEV" 2>"$T_TMP/dm.err") ||
			CHECK_DM='' BIO_DEV=''
	elif CHECK_ZRAM=$(cat /sys/class/zram-control/hot_add 2>"$T_TMP/dm.err"); then
		BIO_DEV=zram$CHECK_ZRAM
		echo 16M 2>"$T_TMP/dm.err" >"/sys/block/$BIO_DEV/disksize" || BIO_DEV=
	fi
	if [ -z "$BIO_DEV" ]; then
		say run "FAIL: the checker cannot make a bio-based disk: $(cat "$T_TMP/dm.err")"
		return 1
	fi
	command -v udevadm >/dev/null 2>&1 && udevadm settle -t 60 2>/dev/null
	return 0
}

# zram_remove N: zramN emptied and gone (busy while udev still holds it)
zram_remove() {
	echo 1 2>/dev/null >"/sys/block/zram$1/reset"
	echo "$1" 2>/dev/null >/sys/class/zram-control/hot_remove
}

# cg_make: CHECK_CG, an empty cgroup v2 directory of this check's own
cg_make() {
	_v2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	if [ -z "$_v2" ]; then
		say run "FAIL: the checker needs cgroup v2 mounted (none in /proc/mounts)"
		return 1
	fi
	CHECK_CG=$_v2/bwb-check.$$
	mkdir "$CHECK_CG" 2>/dev/null && return 0
	CHECK_CG=
	say run "FAIL: the checker cannot make a cgroup in $_v2"
	return 1
}

# scratch_cleanup: undo what is set above, the uppermost first. A task
# leaves its cgroup, a detached device lets go of its file, a moment
# later (later still on a busy machine: the bounds are for a hang).
scratch_cleanup() {
	if [ -n "$CHECK_READER" ]; then
		kill "$CHECK_READER" 2>/dev/null
		wait "$CHECK_READER" 2>/dev/null
		CHECK_READER=
	fi
	fs_off_dev
	# udev may still hold them open a moment after they appeared
	[ -n "$CHECK_DM" ] && wait_for 30 "$BIN/dm_linear" remove "$CHECK_DM" 2>/dev/null
	[ -n "$CHECK_ZRAM" ] && wait_for 30 zram_remove "$CHECK_ZRAM"
	CHECK_DM='' CHECK_ZRAM='' BIO_DEV=''
	if [ -n "$CHECK_DEV2" ]; then
		# the limit a check set (10.1) would outlive the device
		_q=/sys/block/$CHECK_DEV2/queue
		_m=$(cat "$_q/max_hw_sectors_kb" 2>/dev/null) && echo "$_m" >"$_q/max_sectors_kb" 2>/dev/null
		losetup -d "/dev/$CHECK_DEV2" 2>/dev/null
		wait_for 30 test ! -e "/sys/block/$CHECK_DEV2/loop"
		CHECK_DEV2=
	fi
	[ -n "$CHECK_CG" ] && wait_for 30 rmdir "$CHECK_CG" 2>/dev/null
	CHECK_CG=
	return 0
}

# writer_copy DIR: DIR/sw11, a copy of tests/bin/shape_io (stage 11's
# -c names it), and PAGE_BYTES, the kernel's page size; says why and
# returns 1 if it cannot
writer_copy() {
	mkdir -p "$1" && cp "$BIN/shape_io" "$1/sw11" || {
		say run "FAIL: the checker cannot copy tests/bin/shape_io"
		return 1
	}
	_kb=$(page_kb) || {
		say run "FAIL: the checker cannot tell the kernel's page size (pc_reader -m)"
		return 1
	}
	PAGE_BYTES=$((_kb * 1024))
}
