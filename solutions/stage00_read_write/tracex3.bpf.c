// SPDX-License-Identifier: GPL-2.0
/*
 * Stage 00, solved: request latency as a log2 histogram, as the kernel's
 * tracex3 sample, one for reads and one for writes.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "trace.bpf.h"
#include "disk.bpf.h"
#include "bio_end.bpf.h"
#include "hist.h"

/* The operation is cmd_flags' low 8 bits (a #define: not in vmlinux.h). */
#define REQ_OP_MASK ((1 << 8) - 1)

/* Set by the user side before load; the verifier then drops dead branches. */
const volatile __u32 targ_dev = 0;	/* -d: the disk's dev_t, 0 = every disk */

/* When each request was started, keyed by its address. */
#define MAX_INFLIGHT 16384

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_INFLIGHT);
	__type(key, u64);	/* struct request * */
	__type(value, u64);	/* start time, ns */
} start SEC(".maps");

/*
 * The histograms: one counter per log2 slot of microseconds, the reads'
 * in slots 0 … HIST_SLOTS - 1, the writes' in the HIST_SLOTS after.
 * Per-CPU, so an I/O adds to its own CPU's copy with no atomic and no
 * shared cache line; user space adds the copies up once per interval (-i).
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2 * HIST_SLOTS);
	__type(key, u32);
	__type(value, u64);
} hist SEC(".maps");

static __always_inline int on_start(struct request *rq)
{
	u64 ts = bpf_ktime_get_ns();
	u64 key = (u64)rq;
	int err;	/* not long: 6.1 returns a 32-bit -EEXIST */

	stat_inc(STAT_RQ_START);
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

static __always_inline int on_done(struct request *rq)
{
	u64 key = (u64)rq;
	u64 *tsp, *count;
	u32 slot, write;

	stat_inc(STAT_RQ_DONE);
	tsp = bpf_map_lookup_elem(&start, &key);
	if (!tsp) {
		stat_inc(STAT_NO_START);	/* started before we attached */
		return 0;
	}
	slot = hist_slot((bpf_ktime_get_ns() - *tsp) / 1000);
	bpf_map_delete_elem(&start, &key);
	if (slot >= HIST_SLOTS)
		slot = HIST_SLOTS - 1;
	/* op_is_write(): an odd operation writes (REQ_OP_WRITE 1) */
	write = BPF_CORE_READ(rq, cmd_flags) & REQ_OP_MASK & 1;
	slot += write * HIST_SLOTS;
	count = bpf_map_lookup_elem(&hist, &slot);
	if (count)
		(*count)++;
	return 0;
}

/*
 * Each request blk_mq_end_request_batch() ends (rq_batch_end()): a
 * global function, so the verifier checks it once, not once per round.
 */
__noinline int on_done_batched(u64 rq)
{
	struct request *r = (struct request *)rq;

	if (targ_dev && rq_dev_core(r) != targ_dev)
		return 0;
	return rq_ends_core(r, ~0U) ? on_done(r) : 0;
}

/*
 * The doors, one program each; the loader keeps one door per probe point
 * and switches the others off before load. A kprobe program gets the
 * argument as a plain number and reads its fields with BPF_CORE_READ()
 * (the _core helpers); fentry and tp_btf programs get a BTF-typed
 * pointer and read fields with plain loads.
 */
SEC("kprobe/blk_mq_start_request")
int BPF_KPROBE(blk_mq_start_request_kprobe, struct request *rq)
{
	if (targ_dev && rq_dev_core(rq) != targ_dev)
		return 0;
	return on_start(rq);
}

SEC("fentry/blk_mq_start_request")
int BPF_PROG(blk_mq_start_request_fentry, struct request *rq)
{
	if (targ_dev && rq_dev(rq) != targ_dev)
		return 0;
	return on_start(rq);
}

/* Fired inside blk_mq_start_request(); the request only since 5.11 (and 5.10.137). */
SEC("tp_btf/block_rq_issue")
int BPF_PROG(block_rq_issue_btf, struct request *rq)
{
	if (targ_dev && rq_dev(rq) != targ_dev)
		return 0;
	return on_start(rq);
}

SEC("kprobe/blk_update_request")
int BPF_KPROBE(blk_update_request_kprobe, struct request *rq, blk_status_t error,
	       unsigned int nr_bytes)
{
	if (targ_dev && rq_dev_core(rq) != targ_dev)
		return 0;
	return rq_ends_core(rq, nr_bytes) ? on_done(rq) : 0;
}

SEC("fentry/blk_update_request")
int BPF_PROG(blk_update_request_fentry, struct request *rq, blk_status_t error,
	     unsigned int nr_bytes)
{
	if (targ_dev && rq_dev(rq) != targ_dev)
		return 0;
	return rq_ends(rq, nr_bytes) ? on_done(rq) : 0;
}

/* Fired at the top of blk_update_request(), and for each request of a batch. */
SEC("tp_btf/block_rq_complete")
int BPF_PROG(block_rq_complete_btf, struct request *rq, blk_status_t error,
	     unsigned int nr_bytes)
{
	if (targ_dev && rq_dev(rq) != targ_dev)
		return 0;
	return rq_ends(rq, nr_bytes) ? on_done(rq) : 0;
}

/* NVMe ends requests in batches, without blk_update_request() (5.16+). */
SEC("kprobe/blk_mq_end_request_batch")
int BPF_KPROBE(blk_mq_end_request_batch_kprobe, struct io_comp_batch *iob)
{
	rq_batch_end(iob, on_done_batched);
	return 0;
}

SEC("fentry/blk_mq_end_request_batch")
int BPF_PROG(blk_mq_end_request_batch_fentry, struct io_comp_batch *iob)
{
	rq_batch_end(iob, on_done_batched);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
