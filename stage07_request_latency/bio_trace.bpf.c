// SPDX-License-Identifier: GPL-2.0
/* Stage 07: the latency of each request, from blk_mq_start_request() to its end. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "doors.bpf.h"
#include "start.bpf.h"

/*
 * Lesson#7: the same map, another section of the stack. A request is
 * what the driver sees: several bios merged, started when the driver
 * takes it. Keyed by the request's address; blk-mq preallocates one
 * request per tag, so the addresses repeat all the time.
 */
struct start_rec {
	u64 key;	/* struct request *, 0 = free slot */
	u64 ts;		/* start time, ns */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, START_SLOTS);
	__type(key, u32);
	__type(value, struct start_rec);
} start SEC(".maps");

/* Where the request ends on this kernel, set by the loader for the lines. */
const volatile char done_name[32] = "request end";

/* Lesson#1: bpf_ktime_get_ns() is the kernel's monotonic clock, in ns. */
static __always_inline int on_start(void *ctx, struct request *rq)
{
	u64 ts = bpf_ktime_get_ns();
	u64 key = start_key(rq);
	struct start_rec *sr;
	bool stale;

	sr = start_claim(&start, key, &stale);
	if (!sr) {
		stat_inc(STAT_MAP_FULL);
		return 0;
	}
	/* still there: the request was requeued, or its end was missed */
	if (stale)
		stat_inc(STAT_STALE);
	sr->ts = ts;
	if (!quiet)
		bpf_printk("blk_mq_start_request(rq=0x%llx) is called!", key);
	return 0;
}
RQ_START_DOORS(on_start)

static __always_inline int on_done(void *ctx, struct request *rq)
{
	u64 key = start_key(rq);
	struct start_rec *sr;
	u64 ts;

	sr = start_find(&start, key);
	if (!sr) {
		/* started before we attached */
		stat_inc(STAT_NO_START);
		return 0;
	}
	if (!quiet) {
		ts = bpf_ktime_get_ns();
		bpf_printk("%s(rq=0x%llx) is called!", done_name, key);
		bpf_printk("blk_mq_start_request() -> %s() time duration: %llu ns",
			   done_name, ts - sr->ts);
	}
	/* Free the slot on completion, or the map fills and later requests are lost. */
	start_release(sr, key);
	return 0;
}
RQ_DONE_DOORS(on_done)

char LICENSE[] SEC("license") = "GPL";
