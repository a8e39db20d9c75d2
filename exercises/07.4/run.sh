# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Stage 07, exercise 4: nvmelatency, a log2 histogram of latency per disk
# and NVMe command, printed at the end. No -d: the program sees every
# NVMe disk (the VM's workbook disk is one too), and the check reads the
# rows of its own disk only.
# Its disk: the NVMe disk under an ext4 of a folder, CHECK_NVME_DIR, else
# the tests' TEST_FS_DIR (the VM's /mnt/scratch, on its scratch NVMe
# disk). The check writes a file of 64 KiB there (synced: its blocks are
# on the disk, ext4 then has nothing left to write), finds its sectors
# (FIEMAP, tests/bin/file_sector), then issues O_DIRECT reads and writes
# of 4 KiB at those sectors through the disk itself: one NVMe command
# each, no filesystem in the way, and only the file's own blocks written.
# The ground truth: the commands it issued, and the disk's own count of
# reads and writes ended while the program ran (/sys/block/DEV/stat).
# Each histogram of that disk holds at least the commands issued and at
# most what the disk ended: on a quiet disk (the VM's) exactly those.
# Where there is no NVMe driver or no such disk (the host), or before
# 5.13 (the answer refuses), skipped, with the reason.
NV_READS=5	# at the file's sectors 0, 8, ... 32
NV_WRITES=3	# at 40, 48, 56

ex_run() {
	nv_disk || return 1
	_f=$NV_DIR/.bwb-nvme-check.$$
	if ! dd if=/dev/urandom of="$_f" bs=64k count=1 conv=fsync 2>/dev/null ||
		! _s=$("$BIN/file_sector" "$_f" 0 2>/dev/null) ||
		[ "$("$BIN/file_sector" "$_f" 61440 2>/dev/null)" != $((_s + 120)) ]; then
		rm -f "$_f"
		say run "FAIL: the checker cannot place a file of 64 KiB in one piece on $NV_DIR ($NV_PART)"
		return 1
	fi
	sync	# nothing of ext4's own left to write during the run
	_s0=$(nv_stat)
	if ! start_prog; then
		rm -f "$_f"
		return 1
	fi
	# shellcheck disable=SC2046
	if ! io_or_fail "/dev/$NV_PART" $(seq "$_s" 8 $((_s + 8 * (NV_READS - 1)))) ||
		! io_or_fail -w "/dev/$NV_PART" $(seq $((_s + 40)) 8 $((_s + 40 + 8 * (NV_WRITES - 1)))); then
		rm -f "$_f"
		return 1
	fi
	stop_prog || { rm -f "$_f"; return 1; }
	_s1=$(nv_stat)
	rm -f "$_f"
	# reads and writes the disk ended while the program ran
	_dr=$((${_s1% *} - ${_s0% *})) _dw=$((${_s1#* } - ${_s0#* }))
	awk -v d="$NV_DISK" '/^usecs \[/ { k = $0; sub(/^usecs \[/, "", k); sub(/\]$/, "", k); next }
		k != "" && /^ *[0-9]+ -> [0-9]+ +: [0-9]+ +\|/ { sub(/^[^:]*: */, ""); n[k] += $1; next }
		/^$/ { k = "" }
		END { printf "nvme_cmd_read %d, nvme_cmd_write %d\n", n[d ", nvme_cmd_read"], n[d ", nvme_cmd_write"] }' \
		"$T_TMP/out" >"$T_TMP/hist"
	_got=$(cat "$T_TMP/hist")
	_r=${_got#nvme_cmd_read } _r=${_r%%,*} _w=${_got##* }
	_want="nvme_cmd_read $NV_READS, nvme_cmd_write $NV_WRITES"
	# a busy disk: any count between what was issued and what it ended
	if [ "$_dr" -ne "$NV_READS" ] || [ "$_dw" -ne "$NV_WRITES" ]; then
		if [ "$_r" -ge "$NV_READS" ] && [ "$_r" -le "$_dr" ] &&
			[ "$_w" -ge "$NV_WRITES" ] && [ "$_w" -le "$_dw" ]; then
			_want=$_got
		else
			_want="nvme_cmd_read $NV_READS to $_dr, nvme_cmd_write $NV_WRITES to $_dw"
		fi
	fi
	want_eq "$_got" "$_want" \
		"commands in the histograms titled 'usecs [$NV_DISK, nvme_cmd_read]' and '... nvme_cmd_write]', against the $NV_READS reads and $NV_WRITES writes of 4 KiB the checker issued on $NV_DISK (/sys/block/$NV_DISK/stat: $_dr reads and $_dw writes ended meanwhile)" \
		"is each command counted once, at its end, under its disk and its opcode read from nvme_req(rq)->cmd, and both ends taken (nvme_complete_rq and, for a batch, nvme_complete_batch_req)?" ||
		return 1
	say run "ok: $NV_DISK: $_r reads and $_w writes in its histograms"
}

# nv_disk: NV_DIR, a folder on an ext4 right on an NVMe disk; NV_PART, the
# block device under it (nvme1n1, or a partition nvme0n1p2), NV_DISK its
# disk. Else RUN_SKIP says why, and 1.
nv_disk() {
	# the driver and the kernel: the spec's NEEDS=nvme
	NV_DIR=${CHECK_NVME_DIR:-${TEST_FS_DIR:-}}
	if [ -z "$NV_DIR" ]; then
		RUN_SKIP="no folder on an NVMe disk given: CHECK_NVME_DIR=DIR make check EX=07.4, DIR on an ext4 right on an NVMe disk (a partition will do)"
		return 1
	fi
	# the device under the folder: stat's hex number, as the kernel
	# encodes it (minor's low 8 bits, major, then minor's high bits)
	_d=$(stat -c %D "$NV_DIR" 2>/dev/null) || _d=
	_d=$((0x${_d:-0}))
	_mm=$(((_d >> 8) & 0xfff)):$(((_d & 0xff) | ((_d >> 12) & 0xfff00)))
	_sys=$(readlink -f "/sys/dev/block/$_mm" 2>/dev/null)
	NV_PART=${_sys##*/}
	NV_DISK=$NV_PART
	[ -f "$_sys/partition" ] && NV_DISK=$(basename "$(dirname "$_sys")")
	_fs=$(awk -v d="$_mm" '$3 == d { for (i = 7; i < NF; i++) if ($i == "-") { print $(i + 1); exit } }' \
		/proc/self/mountinfo)
	case "$NV_DISK:$_fs" in
	nvme*n*:ext4) return 0 ;;
	esac
	RUN_SKIP="$NV_DIR is not on ext4 right on an NVMe disk (${NV_PART:-no block device}${_fs:+, $_fs}): CHECK_NVME_DIR names a folder that is"
	return 1
}

# nv_stat: the reads and the writes NV_DISK ended so far
nv_stat() {
	awk '{ print $1, $5 }' "/sys/block/$NV_DISK/stat"
}
