# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Stage 05, exercise 4: each disk's seek distances at the end, in the
# order its bios were submitted and in the order they completed. One run
# on the check's disk (-d):
#  - 4 O_DIRECT reads of 4 KiB one after the other, at sectors 0, 1000,
#    200 and 5000: each ends before the next starts, so both orders see
#    the same distances;
#  - 8 reads of 4 KiB at adjacent sectors, from the highest down, in one
#    io_submit() (bio_io -A): the kernel plugs the queue for the batch
#    and merges each bio into the request before it, at its front. The
#    disk gets one request whose bios run upwards: submitted 16 sectors
#    apart each (back over the one before), completed 0 apart.
# The ground truth is the sectors the check read and, for the batch, the
# disk's own count of requests and merges (/sys/block/DEV/stat): the
# wanted rows are worked out from them, not written down.
SEEK_ONE="0 1000 200 5000"
SEEK_BATCH="4152 4144 4136 4128 4120 4112 4104 4096"

ex_run() {
	start_prog -d "$DEV" || return 1
	_s0=$(seek_stat "$DEV")
	# shellcheck disable=SC2086
	io_or_fail "/dev/$DEV" $SEEK_ONE || return 1
	# shellcheck disable=SC2086
	io_or_fail -A "/dev/$DEV" $SEEK_BATCH || return 1
	# a request is counted after its bios end: the reader may see them end first
	if ! wait_for 10 seek_reached "$DEV" "$_s0" 12; then
		stop_prog_quiet
		say run "FAIL: /dev/$DEV did not count the checker's 12 reads (/sys/block/$DEV/stat: $(seek_stat "$DEV") requests and merges, from $_s0)"
		return 1
	fi
	_s1=$(seek_stat "$DEV")
	stop_prog || return 1
	_rq=$((${_s1% *} - ${_s0% *})) _mg=$((${_s1#* } - ${_s0#* }))
	if [ "$_rq" -ne 5 ] || [ "$_mg" -ne 7 ]; then
		say run "FAIL: the checker cannot make one request of its batch on $DEV: 4 reads and a batch of 8 made $_rq requests and $_mg merges, not 5 and 7 (/sys/block/$DEV/stat)"
		return 1
	fi
	# the batch's request ends its bios from its first sector up
	_done="$SEEK_ONE $(echo "$SEEK_BATCH" | tr ' ' '\n' | sort -n | tr '\n' ' ')"
	want_eq "$(seek_got submit)" "$(seek_want $SEEK_ONE $SEEK_BATCH)" \
		"seek distances in submit order on $DEV (rows 'LOW -> HIGH : COUNT' under 'disk = $DEV, seek distances in submit order'), from each read's first sector to where the read submitted before it ended: reads of 4 KiB at $SEEK_ONE, then $SEEK_BATCH in one batch" \
		"is the distance taken at submit, from the last submitted bio's end (sector + size / 512) on the same disk, either way, and the disk's first bio left out?" &&
	want_eq "$(seek_got completion)" "$(seek_want $_done)" \
		"seek distances in completion order on $DEV (under 'disk = $DEV, seek distances in completion order'): the batch was one request, whose bios end from its lowest sector up" \
		"is the distance taken where the bio ends, from the start record's sector and size, against the last ended bio's end on its disk?" ||
		return 1
	say run "ok: submit order $(seek_got submit); completion order $(seek_got completion)"
}

# seek_want SECTOR...: the rows reads of 4 KiB at these sectors, in this
# order, make: 'LOW-HIGH:COUNT' for each log2 slot used, lowest first
seek_want() {
	echo "$@" | awk '{
		for (i = 2; i <= NF; i++) {
			d = $i - ($(i - 1) + 8)
			if (d < 0)
				d = -d
			for (s = 0; d >= 2; s++)
				d = int(d / 2)
			n[s]++
		}
		# doubling, not 2 ^ s: busybox awk (the VM) may lack pow()
		p = 1
		for (s = 0; s < 64; s++) {
			if (n[s]) {
				printf "%s%d-%d:%d", sep, s ? p : 0, 2 * p - 1, n[s]
				sep = " "
			}
			p *= 2
		}
		print ""
	}'
}

# seek_got ORDER: the rows the program printed for $DEV in that order
# (submit, completion), as seek_want writes them; rows of 0 left out
seek_got() {
	awk -v h="disk = $DEV, seek distances in $1 order" '
		$0 == h { on = 1; next }
		/^disk = / || /^$/ { on = 0 }
		on && $2 == "->" && $4 == ":" && $5 > 0 {
			printf "%s%d-%d:%d", sep, $1, $3, $5
			sep = " "
		}
		END { print "" }' "$T_TMP/out"
}

# seek_stat DEV: the requests DEV completed so far, and the bios it
# merged into a request (reads and writes)
seek_stat() {
	awk '{ print $1 + $5, $2 + $6 }' "/sys/block/$1/stat"
}

seek_reached() {
	[ "$(awk '{ print $1 + $5 + $2 + $6 }' "/sys/block/$1/stat")" -ge \
		$(($(echo "$2" | awk '{ print $1 + $2 }') + $3)) ]
}
