# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Stage 01, exercise 2: in the tracepoint door, 3 reads and a write by
# bio_io, each printed once with its sector and rwbs, by the classic
# tracepoint program the door line names.
ex_run() {
	start_prog -d "$DEV" || return 1
	io_or_fail "/dev/$DEV" 0 8 2048 || return 1
	io_or_fail -w "/dev/$DEV" 4096 || return 1
	stop_prog || return 1
	want_eq "$(sed -n '/^submit_bio: tracepoint door, /{ s///; s/ (passed over: .*//; p; }' "$T_TMP/err")" \
		"tracepoint/block/block_bio_queue" \
		"the program the door line names (${B#"$ROOT"/}/run.err)" \
		"is block_bio_queue_btf deleted, and the new program's SEC() the classic tracepoint's?" &&
	want_eq "$(awk '/submit_bio\(\) called: [0-9]+ sector [0-9]+ [A-Z]+$/ {
		printf "%s%s %s", n++ ? ", " : "", $(NF - 1), substr($NF, 1, 1) }' "$T_TMP/out")" \
		"0 R, 8 R, 2048 R, 4096 W" \
		"lines ending 'sector <sector> <rwbs>' (reads at sectors 0, 8, 2048, a write at 4096)" \
		"does the bpf_printk() line end with ctx->sector and ctx->rwbs, once per bio?" || return 1
	say run "ok: 3 reads and a write, each once, with its sector and rwbs"
}
