# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Stage 00, exercise 1: a second loop device beside the check's, traced
# with no -d: 3 reads on the first, 2 on the second, each in its disk's
# histogram (whatever the other disks of the machine do meanwhile).
ex_run() {
	dev2_make || return 1
	start_prog || return 1
	io_or_fail "/dev/$DEV" 0 8 16 || return 1
	io_or_fail "/dev/$CHECK_DEV2" 0 8 || return 1
	stop_prog || return 1
	want_eq "$(awk -v a="$DEV" -v b="$CHECK_DEV2" '/^disk = / { d = $3; next }
		d != "" && /^ *[0-9]+ -> [0-9]+ +: [0-9]+ +\|/ { n[d] += $5 }
		END { printf "%s %d, %s %d", a, n[a], b, n[b] }' "$T_TMP/out")" \
		"$DEV 3, $CHECK_DEV2 2" \
		"requests in the histograms under 'disk = <name>' (3 reads on $DEV, 2 on $CHECK_DEV2)" \
		"is the key the request's disk (rq_dev_core()) and its slot, and are the per-CPU counts added up?" || return 1
	say run "ok: 3 requests in $DEV's histogram, 2 in $CHECK_DEV2's"
}
