# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# What a check makes for its run besides lib.sh's loop device ($DEV),
# each in a name of the checker's own, so that scratch_cleanup can undo
# it however the check ends (a Ctrl-C too):
#   CHECK_MNT     ext4 made on $DEV, mounted (stages 08 and 09)
#   CHECK_DEV2    a second loop device (00.1)
#   CHECK_CG      a cgroup v2 directory (09.1)
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
	if ! dd if=/dev/zero of="$T_TMP/disk2.img" bs=1M count=1 2>/dev/null ||
		! CHECK_DEV2=$(loop_attach "$T_TMP/disk2.img"); then
		CHECK_DEV2=
		say run "FAIL: the checker cannot make a second loop device"
		return 1
	fi
	CHECK_DEV2=${CHECK_DEV2#/dev/}
	command -v udevadm >/dev/null 2>&1 && udevadm settle -t 60 2>/dev/null
	return 0
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
	if [ -n "$CHECK_DEV2" ]; then
		losetup -d "/dev/$CHECK_DEV2" 2>/dev/null
		wait_for 30 test ! -e "/sys/block/$CHECK_DEV2/loop"
		CHECK_DEV2=
	fi
	[ -n "$CHECK_CG" ] && wait_for 30 rmdir "$CHECK_CG" 2>/dev/null
	CHECK_CG=
	return 0
}
