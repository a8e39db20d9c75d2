// SPDX-License-Identifier: GPL-2.0
/*
 * Stage 03, solved: one CSV row per completed bio,
 * completion_time,direction,latency_ms (BPF Performance Tools,
 * chapter 9, exercise 4). Rows go to user space in a ring buffer
 * (5.8+), not through bpf_printk, so they come out as plain lines.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "doors.bpf.h"
#include "start.bpf.h"
#include "bio_trace.h"

/* include/linux/blk_types.h: the operation is the low REQ_OP_BITS (8) of bi_opf */
#define REQ_OP_LOW_BITS 0xff

struct start_rec {
	u64 key;	/* struct bio *, 0 = free slot */
	u64 ts;		/* submit time, ns */
};

/* The start map of stage 03 (common/start.bpf.h). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, START_SLOTS);
	__type(key, u32);
	__type(value, struct start_rec);
} start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} rows SEC(".maps");

__u64 rows_lost = 0;	/* ring buffer full: read by the user side */

static __always_inline int on_submit(void *ctx, struct bio *bio)
{
	u64 ts = bpf_ktime_get_ns();
	u64 key = start_key(bio);
	struct start_rec *sr;
	bool stale;

	sr = start_claim(&start, key, &stale);
	if (!sr) {
		stat_inc(STAT_MAP_FULL);
		return 0;
	}
	/* still there: a start whose completion was missed */
	if (stale)
		stat_inc(STAT_STALE);
	sr->ts = ts;
	return 0;
}
BIO_SUBMIT_DOORS(on_submit)

static __always_inline int on_done(void *ctx, struct bio *bio)
{
	u64 ts = bpf_ktime_get_ns();
	u64 key = start_key(bio);
	struct csv_row *row;
	struct start_rec *sr;

	sr = start_find(&start, key);
	if (!sr) {
		stat_inc(STAT_NO_START);
		return 0;
	}
	row = bpf_ringbuf_reserve(&rows, sizeof(*row), 0);
	if (row) {
		row->done_ns = ts;
		row->latency_ns = ts - sr->ts;
		/* op_is_write(): odd operations (write, discard …) write */
		row->write = BPF_CORE_READ(bio, bi_opf) & REQ_OP_LOW_BITS & 1;
		bpf_ringbuf_submit(row, 0);
	} else {
		__sync_fetch_and_add(&rows_lost, 1);
	}
	start_release(sr, key);
	return 0;
}
BIO_DONE_DOORS(on_done)

char LICENSE[] SEC("license") = "GPL";
