// SPDX-License-Identifier: GPL-2.0
/* Stage 07: the latency of each request, from blk_mq_start_request() to its end. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "doors.bpf.h"

/*
 * Lesson#7: the same map, another section of the stack. A request is
 * what the driver sees: several bios merged, started when the driver
 * takes it. Keyed by the request's address; blk-mq preallocates one
 * request per tag, so the addresses repeat all the time.
 */
#define MAX_INFLIGHT 16384

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_INFLIGHT);
	__type(key, u64);	/* struct request * */
	__type(value, u64);	/* start time, ns */
} start SEC(".maps");

/* Where the request ends on this kernel, set by the loader for the lines. */
const volatile char done_name[32] = "request end";

/* Lesson#1: bpf_ktime_get_ns() is the kernel's monotonic clock, in ns. */
static __always_inline int on_start(void *ctx, struct request *rq)
{
	u64 ts = bpf_ktime_get_ns();
	u64 key = (u64)rq;
	int err;	/* not long: 6.1 returns a 32-bit -EEXIST */

	/* BPF_NOEXIST: a start still there was requeued, or its end was missed */
	err = bpf_map_update_elem(&start, &key, &ts, BPF_NOEXIST);
	if (err == -EEXIST) {
		stat_inc(STAT_STALE);
		err = bpf_map_update_elem(&start, &key, &ts, BPF_ANY);
	}
	if (err)
		stat_inc(STAT_MAP_FULL);
	if (!quiet)
		bpf_printk("blk_mq_start_request(rq=0x%llx) is called!", key);
	return 0;
}
RQ_START_DOORS(on_start)

static __always_inline int on_done(void *ctx, struct request *rq)
{
	u64 key = (u64)rq;
	u64 *tsp, ts;

	tsp = bpf_map_lookup_elem(&start, &key);
	if (!tsp) {
		/* started before we attached */
		stat_inc(STAT_NO_START);
		return 0;
	}
	if (!quiet) {
		ts = bpf_ktime_get_ns();
		bpf_printk("%s(rq=0x%llx) is called!", done_name, key);
		bpf_printk("blk_mq_start_request() -> %s() time duration: %llu ns",
			   done_name, ts - *tsp);
	}
	/* Delete on completion, or the map fills and later requests are lost. */
	bpf_map_delete_elem(&start, &key);
	return 0;
}
RQ_DONE_DOORS(on_done)

char LICENSE[] SEC("license") = "GPL";
