# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Stage 00, exercise 1: a second loop device beside the check's, traced
# with no -d: 3 reads on the first, 2 on the second, each in its disk's
# histogram (whatever the other disks of the machine do meanwhile).
ex_run() {
	# T_UPPER: lib.sh's cleanup detaches it, also on an interrupt
	if ! dd if=/dev/zero of="$T_TMP/disk2.img" bs=1M count=1 2>/dev/null ||
		! T_UPPER=$(loop_attach "$T_TMP/disk2.img"); then
		T_UPPER=
		say run "FAIL: the checker cannot make a second loop device"
		return 1
	fi
	T_UPPER=${T_UPPER#/dev/}
	command -v udevadm >/dev/null 2>&1 && udevadm settle -t 60 2>/dev/null
	ex_run_two
	_rc=$?
	slow_dev_cleanup	# the second device
	return $_rc
}

ex_run_two() {
	start_prog || return 1
	io_or_fail "/dev/$DEV" 0 8 16 || return 1
	io_or_fail "/dev/$T_UPPER" 0 8 || return 1
	stop_prog || return 1
	want_eq "$(awk -v a="$DEV" -v b="$T_UPPER" '/^disk = / { d = $3; next }
		d != "" && /^ *[0-9]+ -> [0-9]+ +: [0-9]+ +\|/ { n[d] += $5 }
		END { printf "%s %d, %s %d", a, n[a], b, n[b] }' "$T_TMP/out")" \
		"$DEV 3, $T_UPPER 2" \
		"requests in the histograms under 'disk = <name>' (3 reads on $DEV, 2 on $T_UPPER)" \
		"is the key the request's disk (rq_dev_core()) and its slot, and are the per-CPU counts added up?" || return 1
	say run "ok: 3 requests in $DEV's histogram, 2 in $T_UPPER's"
}
