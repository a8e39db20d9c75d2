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

/* Set by the user side before load; the verifier then drops dead branches. */
const volatile bool quiet = false;	/* -q: no events, counts only */
const volatile __u32 targ_dev = 0;	/* -d: the disk's dev_t, 0 = every disk */

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

/*
 * Lesson#3: a ring buffer carries one event per bio to user space, to
 * this run's reader only (bpf_printk's trace buffer is shared by every
 * program on the machine). Its size is in bytes; a full one is counted.
 */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} events SEC(".maps");

/*
 * Lesson#4: the slowest bio so far, records per CPU. Each CPU only writes
 * its own, so no lock is needed (bpf_spin_lock is refused in kprobe
 * and classic tracepoint programs); user space merges them all.
 *
 * One record per nesting level: in the tracepoint door the two completion
 * programs (block_rq_complete, block_bio_complete) are different programs,
 * and an interrupt can run one while the other is between its compare and
 * its store: a shared record would lose a maximum or mix two bios. So a
 * program takes its CPU's next level (max_depth) for the update and gives
 * it back after. A program that interrupts another ends before the other
 * goes on, so two never share a level.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, MAX_LEVELS);
	__type(key, u32);
	__type(value, struct max_rec);
} max_latency SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, u32);
} max_depth SEC(".maps");

/* Lesson#1: bpf_ktime_get_ns() is the kernel's monotonic clock, in ns. */
static __always_inline int on_submit(struct bio *bio)
{
	u64 ts = bpf_ktime_get_ns();
	u64 key = (u64)bio;
	int err;	/* not long: 6.1 returns a 32-bit -EEXIST */

	stat_inc(STAT_SUBMIT);
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

/* A new maximum replaces the whole record: bio and times stay a pair. */
static __always_inline void keep_max(u64 key, u64 start, u64 ts)
{
	u32 zero = 0, level, *depth;
	struct max_rec *max;

	/*
	 * Most bios are no new maximum: one at or below this CPU's level-0
	 * record cannot be the largest, and needs no level of its own.
	 */
	max = bpf_map_lookup_elem(&max_latency, &zero);
	if (max && ts - start <= max->duration)
		return;
	depth = bpf_map_lookup_elem(&max_depth, &zero);
	if (!depth)
		return;
	level = (*depth)++;
	barrier();	/* the level is ours before we touch its record */
	max = bpf_map_lookup_elem(&max_latency, &level);
	if (max && ts - start > max->duration) {
		struct max_rec rec = {
			.bio = key,
			.start = start,
			.end = ts,
			.duration = ts - start,
		};

		*max = rec;
	}
	barrier();	/* and given back once the record is written */
	(*depth)--;
}

static __always_inline int on_done(struct bio *bio)
{
	u64 ts = bpf_ktime_get_ns();
	u64 key = (u64)bio;
	u64 *tsp;

	stat_inc(STAT_DONE);
	tsp = bpf_map_lookup_elem(&start, &key);
	if (!tsp) {
		/* submitted before we attached: in flight, not lost */
		stat_inc(STAT_NO_START);
		return 0;
	}
	if (!quiet)
		send_event(key, *tsp, ts);
	keep_max(key, *tsp, ts);
	/* Delete on completion, or the map fills and later bios are lost. */
	bpf_map_delete_elem(&start, &key);
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
