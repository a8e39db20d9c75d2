// SPDX-License-Identifier: GPL-2.0
/*
 * The floor of the overhead lab: the cheapest I/O latency histogram we
 * know how to build. One program at block_rq_complete; the start time is
 * the block layer's own timestamp in the request, so there is nothing to
 * remember at submit and no hash map at all.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "trace.bpf.h"
#include "disk.bpf.h"
#include "hist.h"

/* Per-CPU slots: no atomic add, no cache line bouncing between CPUs. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, HIST_SLOTS);
	__type(key, u32);
	__type(value, u64);
} hist SEC(".maps");

/*
 * io_start_time_ns is set at issue only when something asked the queue
 * for statistics (QUEUE_FLAG_STATS: wbt, iolatency ...); start_time_ns is
 * set at allocation when iostats is on or a scheduler is used. Both 0:
 * there is no start, count it rather than make up a latency.
 */
static __always_inline int on_rq_done(u64 io_start, u64 alloc)
{
	u64 start = io_start ?: alloc;
	u32 slot;
	u64 *v;

	if (!start) {
		stat_inc(STAT_NO_START);
		return 0;
	}
	slot = hist_slot((bpf_ktime_get_ns() - start) / 1000);
	if (slot >= HIST_SLOTS)
		slot = HIST_SLOTS - 1;
	v = bpf_map_lookup_elem(&hist, &slot);
	if (v)
		(*v)++;
	return 0;
}

/* Set by the user side before load. */
const volatile __u32 targ_dev = 0;	/* -d: the disk's dev_t, 0 = every disk */

/*
 * tp_btf: rq is a BTF pointer, so its fields are plain loads, no helper.
 * A completion short of the request's remaining bytes does not end it.
 */
SEC("tp_btf/block_rq_complete")
int BPF_PROG(block_rq_complete_btf, struct request *rq, blk_status_t error,
	     unsigned int nr_bytes)
{
	if (targ_dev && rq_dev(rq) != targ_dev)
		return 0;
	if (nr_bytes < rq->__data_len)
		return 0;
	return on_rq_done(rq->io_start_time_ns, rq->start_time_ns);
}

char LICENSE[] SEC("license") = "GPL";
