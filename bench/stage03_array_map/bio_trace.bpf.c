// SPDX-License-Identifier: GPL-2.0
/*
 * The overhead lab's fast stage 03: the same program, events and counts,
 * with the start map built for speed. Stage 03 keeps starts in a
 * BPF_MAP_TYPE_HASH; this one keeps them in a hash table of its own
 * inside a BPF_MAP_TYPE_ARRAY (start.bpf.h, in this folder, says how and
 * why). README.md here explains the trick, its race, and what it saves.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "trace.bpf.h"
#include "ringbuf.bpf.h"
#include "disk.bpf.h"
#include "bio_end.bpf.h"
#include "bio_trace.h"
#include "start.bpf.h"

/* Set by the user side before load; the verifier then drops dead branches. */
const volatile bool quiet = false;	/* -q: no events, counts only */
const volatile __u32 targ_dev = 0;	/* -d: the disk's dev_t, 0 = every disk */

/*
 * Lesson#3: a map remembers when each bio was submitted, keyed by the
 * bio's address. It is a hash table in an array map (start.bpf.h says
 * why not BPF_MAP_TYPE_HASH: cost): START_SLOTS slots, room for
 * thousands of bios in flight; a full map is counted.
 */
struct start_rec {
	u64 key;	/* struct bio *, 0 = free slot */
	u64 ts;		/* submit time, ns */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, START_SLOTS);
	__type(key, u32);
	__type(value, struct start_rec);
} start SEC(".maps");

/*
 * Lesson#3: a ring buffer carries one event per bio to user space, to
 * this run's reader only (bpf_printk's trace buffer is shared by every
 * program on the machine). Its size is in bytes; a full one is counted.
 */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} events SEC(".maps");

/* Lesson#1: bpf_ktime_get_ns() is the kernel's monotonic clock, in ns. */
static __always_inline int on_submit(struct bio *bio)
{
	u64 ts = bpf_ktime_get_ns();
	u64 key = start_key(bio);
	struct start_rec *sr;
	bool stale;

	stat_inc(STAT_SUBMIT);
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

/* Reserve room in the ring buffer, fill it, submit it: one event. */
static __always_inline void send_event(u64 key, u64 start, u64 ts)
{
	struct event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		stat_inc(STAT_RB_FULL);	/* user space fell behind */
		return;
	}
	e->bio = key;
	e->start_ns = start;
	e->end_ns = ts;
	e->latency_ns = ts - start;
	bpf_ringbuf_submit(e, ringbuf_wakeup(&events));
}

static __always_inline int on_done(struct bio *bio)
{
	u64 ts = bpf_ktime_get_ns();
	u64 key = start_key(bio);
	struct start_rec *sr;

	stat_inc(STAT_DONE);
	sr = start_find(&start, key);
	if (!sr) {
		/* submitted before we attached: in flight, not lost */
		stat_inc(STAT_NO_START);
		return 0;
	}
	if (!quiet)
		send_event(key, sr->ts, ts);
	/* Free the slot on completion, or the map fills and later bios are lost. */
	start_release(sr, key);
	return 0;
}

/*
 * The bios merged behind a request's first one, from the tracepoint
 * door's walk (rq_end_bios()): a global function, checked once.
 */
__noinline int on_done_merged(u64 bio)
{
	return on_done((struct bio *)bio);
}

/*
 * Lesson#2: the doors, one program each; the loader keeps one door per
 * probe point and switches the others off before load. A kprobe program
 * gets the argument as a plain number and reads its fields with
 * BPF_CORE_READ() (the _core helpers); fentry and tp_btf programs get a
 * BTF-typed pointer and read fields with plain loads.
 */
SEC("kprobe/submit_bio")
int BPF_KPROBE(submit_bio_kprobe, struct bio *bio)
{
	if (targ_dev && bio_dev_core(bio) != targ_dev)
		return 0;
	return bio_split_part_core(bio) ? 0 : on_submit(bio);
}

SEC("fentry/submit_bio")
int BPF_PROG(submit_bio_fentry, struct bio *bio)
{
	if (targ_dev && bio_dev(bio) != targ_dev)
		return 0;
	return bio_split_part(bio) ? 0 : on_submit(bio);
}

/* Fired in submit_bio_noacct_nocheck(), after the partition remap. */
SEC("tp_btf/block_bio_queue")
int BPF_PROG(block_bio_queue_btf, struct bio *bio)
{
	if (targ_dev && bio_dev(bio) != targ_dev)
		return 0;
	return bio_split_part(bio) ? 0 : on_submit(bio);
}

SEC("kprobe/bio_endio")
int BPF_KPROBE(bio_endio_kprobe, struct bio *bio)
{
	if (targ_dev && bio_dev_core(bio) != targ_dev)
		return 0;
	if (bio_split_part_core(bio)) {
		stat_inc(STAT_SPLIT_PART);	/* it ends with its bio */
		return 0;
	}
	return on_done(bio);
}

SEC("fentry/bio_endio")
int BPF_PROG(bio_endio_fentry, struct bio *bio)
{
	if (targ_dev && bio_dev(bio) != targ_dev)
		return 0;
	if (bio_split_part(bio)) {
		stat_inc(STAT_SPLIT_PART);	/* it ends with its bio */
		return 0;
	}
	return on_done(bio);
}

/* Request-based disks (loop, virtio, nvme): the bios this completion ends. */
SEC("tp_btf/block_rq_complete")
int BPF_PROG(block_rq_complete_btf, struct request *rq, blk_status_t error,
	     unsigned int nr_bytes)
{
	if (targ_dev && rq_dev(rq) != targ_dev)
		return 0;
	rq_end_bios(rq, nr_bytes, on_done, on_done_merged);
	return 0;
}

/* Bio-based disks (zram, dm, md) end each bio with this tracepoint. */
SEC("tp_btf/block_bio_complete")
int BPF_PROG(block_bio_complete_btf, struct request_queue *q, struct bio *bio)
{
	if (targ_dev && bio_dev(bio) != targ_dev)
		return 0;
	if (bio_split_part(bio)) {
		stat_inc(STAT_SPLIT_PART);	/* it ends with its bio */
		return 0;
	}
	return on_done(bio);
}

char LICENSE[] SEC("license") = "GPL";
