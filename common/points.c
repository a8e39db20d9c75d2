// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The probe points of the workbook: the kernel functions the seed probed
 * (kprobe/fentry doors) and the tracepoints that mark the same event. The
 * BPF side generates the matching programs with the macros in doors.bpf.h.
 */
#include "doors.h"
#include "stats.h"

/* block/blk-core.c: submit_bio(); tracepoint in submit_bio_noacct_nocheck() */
const struct probe_point point_submit_bio = {
	.name = "submit_bio",
	.funcs = { "submit_bio" },
	.tps = { { "submit_bio", "block_bio_queue" } },
	.stat = STAT_SUBMIT,
};

/* block/bio.c: bio_endio(); tracepoints in blk_update_request() and bio_endio() */
const struct probe_point point_bio_endio = {
	.name = "bio_endio",
	.funcs = { "bio_endio" },
	.tps = {
		{ "bio_endio_rq", "block_rq_complete" },
		{ "bio_endio_bio", "block_bio_complete" },
	},
	.stat = STAT_DONE,
};
