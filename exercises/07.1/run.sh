# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Stage 07, exercise 1: 3 reads and 2 writes, 5 requests, each line with
# its queue time: more than 0 and within the run (a time taken the wrong
# way round is a huge unsigned number).
ex_run() {
	start_prog -d "$DEV" || return 1
	_t0=$(date +%s)
	io_or_fail "/dev/$DEV" 0 8 16 || return 1
	io_or_fail -w "/dev/$DEV" 200 208 || return 1
	stop_prog || return 1
	_max=$((($(date +%s) - _t0 + 1) * 1000000000))
	want_eq "$(grep -c ': [a-z_]*() -> [a-z_]*() time duration: [0-9]* ns' "$T_TMP/out")" 5 \
		"request lines 'rq 0x...: ... time duration: <ns> ns' (3 reads, 2 writes)" \
		"does the stage still time every request, now that it has a third point?" &&
	want_eq "$(grep -c '^io_start: tracepoint door, tp_btf/block_io_start' "$T_TMP/err")" 1 \
		"door lines 'io_start: tracepoint door, tp_btf/block_io_start' (${B#"$ROOT"/}/run.err)" \
		"is there a probe point named io_start, with .tps = { \"block_io_start\" }, in points[]?" &&
	want_eq "$(awk -v max="$_max" '/ time duration: [0-9]+ ns/ {
		q = $0; if (!sub(/.*, queued /, "", q) || !sub(/ ns$/, "", q) || q !~ /^[0-9]+$/) q = -1
		q += 0
		n += q > 0 && q < max } END { print n + 0 }' "$T_TMP/out")" 5 \
		"request lines ending ', queued <ns> ns', more than 0 and less than the run's $((_max / 1000000000)) s" \
		"is the queue time the issue's time minus block_io_start's, of the same request?" || return 1
	say run "ok: 5 requests, each with its queue time"
}
