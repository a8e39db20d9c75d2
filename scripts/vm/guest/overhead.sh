#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The seed's overhead setup as a smoke check, in the classroom VM: fio
# (randrw, the seed's block-size mix, libaio, depth 64) on a null_blk with
# queue_mode=2 (TEST_BENCH_DEV), alone and then with stage 03's latency
# map attached in each door, interleaved with baselines. The IOPS are
# figures, not assertions (under TCG they say little); the checks: fio and
# the tracer work under load and the tracer pairs what it sees.
WB=$(cd "$(dirname "$0")/../../.." && pwd)
. "$WB/tests/lib.sh"
ROOT=$WB
S=$ROOT/stage03_latency_map/bio_trace
DEV=${TEST_BENCH_DEV:-}
SECS=${VM_FIO_SECONDS:-3}

need_bin "$S"
need_root
[ -n "$DEV" ] && [ -b "/dev/$DEV" ] || skip_all "no null_blk bench device (TEST_BENCH_DEV)"
command -v fio >/dev/null 2>&1 || skip_all "fio is not on the disk image (not installed on the host)"
[ "$(cat "/sys/block/$DEV/queue/nr_requests" 2>/dev/null)" ] ||
	skip_all "/dev/$DEV is not a blk-mq device"

# iops: run fio; prints read+write IOPS (terse fields 8 and 49)
iops() {
	fio --name=overhead --filename="/dev/$DEV" --rw=randrw:2 \
		--bssplit=512/20:1k/16:2k/9:4k/12:8k/19:16k/10:32k/8:64k/4 \
		--direct=1 --ioengine=libaio --iodepth=64 --iodepth_batch_submit=64 \
		--iodepth_batch_complete=64 --thread --time_based --runtime="$SECS" \
		--minimal >"$T_TMP/fio.out" 2>"$T_TMP/fio.err" || {
		diag "fio failed: $(head -n 3 "$T_TMP/fio.err")"
		return 1
	}
	awk -F';' '{ print $8 + $49 }' "$T_TMP/fio.out"
}

# Interleaved: B D1 B D2 B D3 B, the doors backwards in every other
# round; each traced run is compared with the mean of the baselines on
# either side of it, so the drift of an emulated CPU cancels.
ROUNDS=${VM_FIO_ROUNDS:-2}
base=$(iops)
ok $? "fio on /dev/$DEV (queue_mode=2) alone: ${base:-?} IOPS"
: >"$T_TMP/drops"
r=1
while [ $r -le "$ROUNDS" ]; do
	doors=$TEST_DOORS
	[ $((r % 2)) -eq 0 ] && doors=$(echo $TEST_DOORS | tr ' ' '\n' | sed -n '1!G;h;$p')
	for door in $doors; do
		t="stage03 [$door] round $r under fio"
		if ! why=$(door_ok "$S" "$door"); then
			skip "$t" "$why"
			continue
		fi
		start "$S" -q -a "$door" -d "$DEV" || { ok 1 "$t: starts"; continue; }
		n=$(iops)
		rc=$?
		stop
		ok $rc "$t: fio runs: ${n:-?} IOPS"
		is "$TRC" 0 "$t: exits 0 on Ctrl-C"
		sub=$(sed -n 's/^Events: submit_bio \([0-9]*\), bio_endio \([0-9]*\)$/\1/p' "$T_TMP/out")
		end=$(sed -n 's/^Events: submit_bio \([0-9]*\), bio_endio \([0-9]*\)$/\2/p' "$T_TMP/out")
		check "$t: sees the bios (${sub:-none} submitted, ${end:-none} completed)" \
			test "${sub:-0}" -gt 0 -a "${end:-0}" -gt 0
		next=$(iops)
		[ -n "$base" ] && [ -n "$n" ] && [ -n "$next" ] &&
			echo "$door $base $n $next" >>"$T_TMP/drops"
		base=$next
	done
	r=$((r + 1))
done
# The median IOPS change per door (seed: -27% with a kprobe tracer).
awk '{ d = 100 * ($3 / (($2 + $4) / 2) - 1); v[$1] = v[$1] " " d
	if (!($1 in seen)) { seen[$1]; o[++n] = $1 } }
	END { for (i = 1; i <= n; i++) {
		m = split(substr(v[o[i]], 2), a, " ")
		for (x = 2; x <= m; x++) for (y = x; y > 1 && a[y - 1] + 0 > a[y] + 0; y--) {
			t = a[y]; a[y] = a[y - 1]; a[y - 1] = t }
		med = m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
		printf "# overhead: stage03 quiet, %s door: IOPS %+.0f%% vs neighbouring baselines (median of %d)\n", o[i], med, m } }' \
	"$T_TMP/drops"

# ctracer's attach rate (tools/ctracer) in each door, entries alone and with -r: the
# figures docs/overhead.md quotes (diagnostics, not assertions: under
# TCG they say little of a real machine but the ratios). A function
# door must attach its hundred-odd functions.
CT=$ROOT/tools/ctracer/ctracer
for door in $TEST_DOORS; do
	for r in "" -r; do
		t="ctracer [$door${r:+ $r}] attaches"
		if [ ! -x "$CT" ] || ! why=$(door_ok "$CT" "$door"); then
			skip "$t" "${why:-ctracer is not built}"
			continue
		fi
		"$CT" -a "$door" $r -q -d "$DEV" --duration 0.1 >/dev/null 2>"$T_TMP/ct.err"
		rc=$?
		line=$(grep ' attached in ' "$T_TMP/ct.err" | head -n 1)
		set -- $(echo "$line" | sed -n 's/.*: \([0-9]*\) of [0-9]* .* attached in \([0-9]*\) ms.*/\1 \2/p')
		min=1
		[ "$door" = tracepoint ] || min=100
		check "$t: ${1:-no} points in ${2:-?} ms" test "$rc" -eq 0 -a "${1:-0}" -ge $min
		[ -n "$2" ] && [ "$2" -gt 0 ] &&
			diag "overhead: ${line#ctracer: }: $(($1 * 1000 / $2)) a second"
	done
done
done_testing
