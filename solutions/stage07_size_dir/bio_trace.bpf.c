// SPDX-License-Identifier: GPL-2.0
/* bio_trace, the BPF side: its maps, its handlers, one program per door. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "trace.bpf.h"
#include "ringbuf.bpf.h"
#include "disk.bpf.h"
#include "bio_end.bpf.h"
#include "bio_trace.h"

/* The operation is cmd_flags' low 8 bits (a #define: not in vmlinux.h). */
#define REQ_OP_MASK ((1 << 8) - 1)

/* Set by the user side before load; the verifier then drops dead branches. */
const volatile bool quiet = false;	/* -q: no events, counts only */
const volatile __u32 targ_dev = 0;	/* -d: the disk's dev_t, 0 = every disk */

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
	__type(value, struct start_rec);
} start SEC(".maps");

/*
 * Lesson#3: a ring buffer carries one event per request to user space, to
 * this run's reader only (bpf_printk's trace buffer is shared by every
 * program on the machine). Its size is in bytes; a full one is counted.
 */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} events SEC(".maps");

/* Lesson#1: bpf_ktime_get_ns() is the kernel's monotonic clock, in ns. */
static __always_inline int on_start(struct request *rq)
{
	struct start_rec rec = { .ts = bpf_ktime_get_ns() };
	u64 key = (u64)rq;
	int err;	/* not long: 6.1 returns a 32-bit -EEXIST */

	stat_inc(STAT_RQ_START);
	/* read now: completion counts __data_len down as the bytes end */
	rec.bytes = BPF_CORE_READ(rq, __data_len);
	rec.op = BPF_CORE_READ(rq, cmd_flags) & REQ_OP_MASK;
	/* BPF_NOEXIST: a start still there was requeued, or its end was missed */
	err = bpf_map_update_elem(&start, &key, &rec, BPF_NOEXIST);
	if (err == -EEXIST) {
		stat_inc(STAT_STALE);
		err = bpf_map_update_elem(&start, &key, &rec, BPF_ANY);
	}
	if (err)
		stat_inc(STAT_MAP_FULL);
	return 0;
}

/* Reserve room in the ring buffer, fill it, submit it: one event. */
static __always_inline void send_event(u64 key, struct start_rec *sr, u64 ts, bool batch)
{
	struct event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		stat_inc(STAT_RB_FULL);	/* user space fell behind */
		return;
	}
	e->rq = key;
	e->start_ns = sr->ts;
	e->end_ns = ts;
	e->latency_ns = ts - sr->ts;
	e->batch = batch;
	e->bytes = sr->bytes;
	e->op = sr->op;
	bpf_ringbuf_submit(e, ringbuf_wakeup(&events));
}

/* batch: ended by blk_mq_end_request_batch(), not the door's usual end */
static __always_inline int on_done(struct request *rq, bool batch)
{
	u64 ts = bpf_ktime_get_ns();
	u64 key = (u64)rq;
	struct start_rec *sr;

	stat_inc(STAT_RQ_DONE);
	sr = bpf_map_lookup_elem(&start, &key);
	if (!sr) {
		/* started before we attached: in flight, not lost */
		stat_inc(STAT_NO_START);
		return 0;
	}
	if (!quiet)
		send_event(key, sr, ts, batch);
	/* Delete on completion, or the map fills and later requests are lost. */
	bpf_map_delete_elem(&start, &key);
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
	return rq_ends_core(r, ~0U) ? on_done(r, true) : 0;
}

/*
 * Lesson#2: the doors, one program each; the loader keeps one door per
 * probe point and switches the others off before load. A kprobe program
 * gets the argument as a plain number and reads its fields with
 * BPF_CORE_READ() (the _core helpers); fentry and tp_btf programs get a
 * BTF-typed pointer and read fields with plain loads.
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
	return rq_ends_core(rq, nr_bytes) ? on_done(rq, false) : 0;
}

SEC("fentry/blk_update_request")
int BPF_PROG(blk_update_request_fentry, struct request *rq, blk_status_t error,
	     unsigned int nr_bytes)
{
	if (targ_dev && rq_dev(rq) != targ_dev)
		return 0;
	return rq_ends(rq, nr_bytes) ? on_done(rq, false) : 0;
}

/* Fired at the top of blk_update_request(), and for each request of a batch. */
SEC("tp_btf/block_rq_complete")
int BPF_PROG(block_rq_complete_btf, struct request *rq, blk_status_t error,
	     unsigned int nr_bytes)
{
	if (targ_dev && rq_dev(rq) != targ_dev)
		return 0;
	return rq_ends(rq, nr_bytes) ? on_done(rq, false) : 0;
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
