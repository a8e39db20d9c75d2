// SPDX-License-Identifier: GPL-2.0
/* Stage 00: request latency as a log2 histogram, as the kernel's tracex3 sample. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "doors.bpf.h"
#include "hist.h"

/* When each request was started, keyed by its address. */
#define MAX_INFLIGHT 16384

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_INFLIGHT);
	__type(key, u64);	/* struct request * */
	__type(value, u64);	/* start time, ns */
} start SEC(".maps");

/*
 * The histogram: one counter per log2 slot of microseconds. Per-CPU, so
 * an I/O adds to its own CPU's copy with no atomic and no shared cache
 * line; user space adds the copies up once a second.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, HIST_SLOTS);
	__type(key, u32);
	__type(value, u64);
} hist SEC(".maps");

static __always_inline int on_start(void *ctx, struct request *rq)
{
	u64 ts = bpf_ktime_get_ns();
	u64 key = (u64)rq;
	int err;	/* not long: 6.1 returns a 32-bit -EEXIST */

	/* BPF_NOEXIST: a request still there was requeued, or its end was missed */
	err = bpf_map_update_elem(&start, &key, &ts, BPF_NOEXIST);
	if (err == -EEXIST) {
		stat_inc(STAT_STALE);
		err = bpf_map_update_elem(&start, &key, &ts, BPF_ANY);
	}
	if (err)
		stat_inc(STAT_MAP_FULL);
	return 0;
}
RQ_START_DOORS(on_start)

static __always_inline int on_done(void *ctx, struct request *rq)
{
	u64 key = (u64)rq;
	u64 *tsp, *count;
	u32 slot;

	tsp = bpf_map_lookup_elem(&start, &key);
	if (!tsp) {
		stat_inc(STAT_NO_START);	/* started before we attached */
		return 0;
	}
	slot = hist_slot((bpf_ktime_get_ns() - *tsp) / 1000);
	bpf_map_delete_elem(&start, &key);
	if (slot >= HIST_SLOTS)
		slot = HIST_SLOTS - 1;
	count = bpf_map_lookup_elem(&hist, &slot);
	if (count)
		(*count)++;
	return 0;
}
RQ_DONE_DOORS(on_done)

char LICENSE[] SEC("license") = "GPL";
