# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Stage 07, exercise 3: how many bios each request carried, a histogram
# per disk printed at the end. No -d, and two disks:
#  - the check's: 3 O_DIRECT reads of 4 KiB one after the other, a
#    request of one bio each;
#  - a second loop device that takes at most 64 KiB a request
#    (max_sectors_kb): 8 O_DIRECT reads of 16 KiB at adjacent sectors in
#    one io_submit() (bio_io -A), then 3 more: the kernel plugs the
#    queue for a batch and merges each bio into the request before it,
#    up to 64 KiB (as exercise 10.1): requests of 4, 4 and 3 bios.
# The ground truth is each disk's own count (/sys/block/DEV/stat): its
# histogram holds as many requests as the disk completed, and their bios
# add up to those requests plus the bios the disk merged into one.
RQ_MAX=65536		# max_sectors_kb, in bytes: a request's most
BATCH_BIO=16384		# each read of a batch, one bio

ex_run() {
	dev2_make || return 1
	if ! echo $((RQ_MAX / 1024)) 2>/dev/null >"/sys/block/$CHECK_DEV2/queue/max_sectors_kb"; then
		say run "FAIL: the checker cannot set $CHECK_DEV2's max_sectors_kb to $((RQ_MAX / 1024))"
		return 1
	fi
	start_prog || return 1
	_a0=$(rq_stat "$DEV")
	_b0=$(rq_stat "$CHECK_DEV2")
	io_or_fail "/dev/$DEV" 0 8 16 || return 1
	# shellcheck disable=SC2046
	io_or_fail -A -s "$BATCH_BIO" "/dev/$CHECK_DEV2" $(seq 512 32 736) || return 1
	# shellcheck disable=SC2046
	io_or_fail -A -s "$BATCH_BIO" "/dev/$CHECK_DEV2" $(seq 1024 32 1088) || return 1
	# every bio issued is a request's first or merged into one; a request
	# is counted after its bios end, and the reader may see them end first
	if ! bio_wait "$DEV" "$_a0" 3 || ! bio_wait "$CHECK_DEV2" "$_b0" $((8 + 3)); then
		stop_prog_quiet
		say run "FAIL: the disks did not count the checker's reads (/sys/block/$DEV/stat: $(rq_stat "$DEV"), $CHECK_DEV2: $(rq_stat "$CHECK_DEV2"); requests and merges, from $_a0 and $_b0)"
		return 1
	fi
	_a1=$(rq_stat "$DEV")
	_b1=$(rq_stat "$CHECK_DEV2")
	stop_prog || return 1
	# requests and merges of each disk during the run
	_ar=$((${_a1% *} - ${_a0% *})) _am=$((${_a1#* } - ${_a0#* }))
	_br=$((${_b1% *} - ${_b0% *})) _bm=$((${_b1#* } - ${_b0#* }))
	# a kernel or disk that merged nothing tells nothing here
	if [ "$_bm" -eq 0 ]; then
		say run "FAIL: the checker cannot make requests of several bios on $CHECK_DEV2: 2 batches of reads of $((BATCH_BIO / 1024)) KiB made $_br requests and no merge (/sys/block/$CHECK_DEV2/stat)"
		return 1
	fi
	# each disk's rows '<bios> : <count> |...|' under 'disk = <name>'
	awk -v a="$DEV" -v b="$CHECK_DEV2" '/^disk = / { d = $3; next }
		d != "" && /^ *[0-9]+\+? +: [0-9]+ +\|/ { v = $1; sub(/\+$/, "", v); r[d] += $3; n[d] += v * $3 }
		/^$/ { d = "" }
		END { printf "%s %d, %s %d\n%s %d, %s %d\n", a, r[a], b, r[b], a, n[a], b, n[b] }' \
		"$T_TMP/out" >"$T_TMP/hist"
	want_eq "$(sed -n 1p "$T_TMP/hist")" "$DEV $_ar, $CHECK_DEV2 $_br" \
		"requests in the histograms under 'disk = <name>', against the requests each disk completed (/sys/block/DEV/stat: 3 single reads on $DEV; on $CHECK_DEV2, batches of 8 and 3 merged into $_br requests)" \
		"is each request counted once, at its end, under its own disk (rq_dev_core() in the key), and printed at the end?" &&
	want_eq "$(sed -n 2p "$T_TMP/hist")" "$DEV $((_ar + _am)), $CHECK_DEV2 $((_br + _bm))" \
		"bios over the requests (bios x count, added up), against each disk's requests plus its merges ($CHECK_DEV2: $_br + $_bm)" \
		"is the count the walk of rq->bio along bi_next to NULL, at the start (the end's bios may already be gone)?" ||
		return 1
	say run "ok: $DEV $_ar requests of 1 bio; $CHECK_DEV2 $_br requests of $((_br + _bm)) bios"
}

# rq_stat DEV: the requests DEV completed so far (reads and writes), and
# the bios it merged into a request (reads and writes)
rq_stat() {
	awk '{ print $1 + $5, $2 + $6 }' "/sys/block/$1/stat"
}

# bio_wait DEV "REQ MERGES" N: until DEV's requests and merges since REQ
# MERGES add up to N bios; the bound is for a count that never comes
bio_wait() {
	wait_for 10 bio_reached "$1" $(($(echo "$2" | awk '{ print $1 + $2 }') + $3))
}

bio_reached() {
	[ "$(awk '{ print $1 + $5 + $2 + $6 }' "/sys/block/$1/stat")" -ge "$2" ]
}
