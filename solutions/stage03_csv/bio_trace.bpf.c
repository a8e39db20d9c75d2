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
#include "bio_trace.h"

/* include/linux/blk_types.h: the operation is the low REQ_OP_BITS (8) of bi_opf */
#define REQ_OP_LOW_BITS 0xff

/*
 * Lesson#3: a map remembers when each bio was submitted, keyed by the
 * bio's address: insert at submit, look up and delete at completion.
 * Sized for the bios a fast machine has in flight at once (an NVMe disk:
 * queues x 1023 tags); a full map is counted.
 */
#define MAX_INFLIGHT 16384

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_INFLIGHT);
	__type(key, u64);	/* struct bio * */
	__type(value, u64);	/* submit time, ns */
} start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} rows SEC(".maps");

__u64 rows_lost = 0;	/* ring buffer full: read by the user side */

/* Lesson#1: bpf_ktime_get_ns() is the kernel's monotonic clock, in ns. */
static __always_inline int on_submit(void *ctx, struct bio *bio)
{
	u64 ts = bpf_ktime_get_ns();
	u64 key = (u64)bio;
	int err;	/* not long: 6.1 returns a 32-bit -EEXIST */

	/* BPF_NOEXIST: a start still there is one whose completion was missed */
	err = bpf_map_update_elem(&start, &key, &ts, BPF_NOEXIST);
	if (err == -EEXIST) {
		stat_inc(STAT_STALE);
		err = bpf_map_update_elem(&start, &key, &ts, BPF_ANY);
	}
	if (err)
		stat_inc(STAT_MAP_FULL);
	return 0;
}
BIO_SUBMIT_DOORS(on_submit)

static __always_inline int on_done(void *ctx, struct bio *bio)
{
	u64 ts = bpf_ktime_get_ns();
	u64 key = (u64)bio;
	struct csv_row *row;
	u64 *tsp;

	tsp = bpf_map_lookup_elem(&start, &key);
	if (!tsp) {
		/* submitted before we attached */
		stat_inc(STAT_NO_START);
		return 0;
	}
	row = bpf_ringbuf_reserve(&rows, sizeof(*row), 0);
	if (row) {
		row->done_ns = ts;
		row->latency_ns = ts - *tsp;
		/* op_is_write(): odd operations (write, discard …) write */
		row->write = BPF_CORE_READ(bio, bi_opf) & REQ_OP_LOW_BITS & 1;
		bpf_ringbuf_submit(row, 0);
	} else {
		__sync_fetch_and_add(&rows_lost, 1);
	}
	/* Delete on completion, or the map fills and later bios are lost. */
	bpf_map_delete_elem(&start, &key);
	return 0;
}
BIO_DONE_DOORS(on_done)

char LICENSE[] SEC("license") = "GPL";
