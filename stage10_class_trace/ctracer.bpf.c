// SPDX-License-Identifier: GPL-2.0
/*
 * ctracer, the BPF side: one event for every function (or tracepoint) a
 * bio goes through, sent to user space through a ring buffer.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "disk.bpf.h"
#include "bio_end.bpf.h"
#include "ctracer.h"

/* Set by the user side before load. */
const volatile bool quiet = false;	/* -q: count, send nothing */
const volatile __u32 targ_dev = 0;	/* -d: the disk's dev_t, 0 = every disk */
const volatile __u32 targ_pid = 0;	/* -p: the process, 0 = every one */

/*
 * Lesson#1: a ring buffer carries the events to user space, in order, as
 * records of any size; one buffer shared by every CPU. When it is full,
 * bpf_ringbuf_reserve() fails: the event is counted, not waited for.
 */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);	/* bytes: about 90,000 events */
} events SEC(".maps");

/* ctracer's counters (enum ct_stat), per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CT_STAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} ctstats SEC(".maps");

/*
 * -p: the bios the process submitted, followed to their end whatever
 * task or interrupt then handles them.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, u64);	/* struct bio * */
	__type(value, u8);
} followed SEC(".maps");

static __always_inline void ct_inc(enum ct_stat s)
{
	__u32 key = s;
	__u64 *v = bpf_map_lookup_elem(&ctstats, &key);

	if (v)
		(*v)++;
}

/* -p: is this bio one of the process's? Its submit decides. */
static __always_inline bool followed_bio(u64 bio, u8 flags)
{
	u8 one = 1;

	if (!targ_pid)
		return true;
	if (flags & CT_END)
		return !bpf_map_delete_elem(&followed, &bio);
	if ((flags & CT_SUBMIT) && bpf_get_current_pid_tgid() >> 32 == targ_pid) {
		if (bpf_map_update_elem(&followed, &bio, &one, BPF_ANY))
			ct_inc(CT_PID_FULL);
		return true;
	}
	return bpf_map_lookup_elem(&followed, &bio) != NULL;
}

/*
 * Lesson#2: the bio's fields, as tp_btf programs read them (plain loads,
 * checked by the verifier) and as kprobe programs must (BPF_CORE_READ()).
 * A bio chained to another (bio_chain(): a split's front part, pieces of
 * a large discard) ends into it: bi_private is that parent.
 */
static __always_inline void fill(struct ct_event *e, struct bio *bio)
{
	e->sector = bio->bi_iter.bi_sector;
	e->size = bio->bi_iter.bi_size;
	e->opf = bio->bi_opf;
	e->status = bio->bi_status;
	if (&bio_chain_endio && bio->bi_end_io == (void *)&bio_chain_endio)
		e->parent = (u64)bio->bi_private;
}

static __always_inline void fill_core(struct ct_event *e, struct bio *bio)
{
	e->sector = BPF_CORE_READ(bio, bi_iter.bi_sector);
	e->size = BPF_CORE_READ(bio, bi_iter.bi_size);
	e->opf = BPF_CORE_READ(bio, bi_opf);
	e->status = BPF_CORE_READ(bio, bi_status);
	if (&bio_chain_endio && BPF_CORE_READ(bio, bi_end_io) == (void *)&bio_chain_endio)
		e->parent = (u64)BPF_CORE_READ(bio, bi_private);
}

/*
 * The one handler: an event for bio at function or tracepoint id. core
 * says how to read it (a constant: the compiler keeps one branch).
 * status < 0: the bio's own bi_status, else the request's error.
 */
static __always_inline int emit(struct bio *bio, u32 id, u8 flags, int status, bool core)
{
	struct ct_event *e;
	u64 task = bpf_get_current_pid_tgid();

	if (!followed_bio((u64)bio, flags))
		return 0;
	ct_inc(CT_EVENTS);
	if (quiet)
		return 0;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		ct_inc(CT_RB_DROP);
		return 0;
	}
	e->bio = (u64)bio;
	e->parent = 0;
	e->ts = bpf_ktime_get_ns();
	e->id = id;
	e->flags = flags;
	e->pid = (u32)task;
	e->cpu = bpf_get_smp_processor_id();
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	if (core)
		fill_core(e, bio);
	else
		fill(e, bio);
	if (status >= 0)
		e->status = status;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/*
 * One event for a bio of a request's chain. A global function (not
 * inlined): the verifier checks it once, not once per turn of the loop
 * below, which older kernels (6.1) would find too long to walk.
 */
__noinline int rq_bio_event(u64 bio, u32 id, u32 flags, int status)
{
	return emit((struct bio *)bio, id, flags, status, true);
}

/* A request's bios, chained by bi_next: loop merges up to 320 of them. */
#define RQ_BIOS_MAX 512

/*
 * Lesson#3: the request-level tracepoints name a request, not a bio: one
 * event for each bio it carries, from the first (rq->bio) along bi_next.
 * At completion (ends) the bios whose bytes nr_bytes covers are ended; a
 * bio only partly done ends later. A global function: the verifier
 * checks its loop once, but it takes plain numbers, not BTF pointers, so
 * its caller reads rq->bio with BPF_CORE_READ() and it reads the same way.
 */
__noinline int rq_bios(u64 bio, u32 id, u32 ends, u32 nr_bytes, int status)
{
	u32 size;
	int i;

	for (i = 0; i < RQ_BIOS_MAX && bio; i++) {
		size = BPF_CORE_READ((struct bio *)bio, bi_iter.bi_size);
		if (ends && size <= nr_bytes) {
			nr_bytes -= size;
			rq_bio_event(bio, id, CT_END, status);
		} else {
			rq_bio_event(bio, id, 0, -1);
		}
		bio = (u64)BPF_CORE_READ((struct bio *)bio, bi_next);
	}
	if (bio)
		ct_inc(CT_WALK_CUT);
	return 0;
}

/*
 * Lesson#4: the function doors. One program serves every function: the
 * attach cookie (bpf_get_attach_cookie()) says which function fired and
 * which of its arguments is the bio. A kprobe sees the registers, so
 * the argument is picked by number: PT_REGS_PARM1 … PARM5. Their _CORE
 * forms read the register with bpf_probe_read_kernel(): the compiler
 * turns this switch into one load at a computed offset, and the
 * verifier refuses a load from the context at an offset it cannot see.
 */
static __always_inline int on_function(struct pt_regs *ctx)
{
	u64 cookie = bpf_get_attach_cookie(ctx);
	struct bio *bio;

	switch (CT_COOKIE_ARG(cookie)) {
	case 0:
		bio = (struct bio *)PT_REGS_PARM1_CORE(ctx);
		break;
	case 1:
		bio = (struct bio *)PT_REGS_PARM2_CORE(ctx);
		break;
	case 2:
		bio = (struct bio *)PT_REGS_PARM3_CORE(ctx);
		break;
	case 3:
		bio = (struct bio *)PT_REGS_PARM4_CORE(ctx);
		break;
	default:
		bio = (struct bio *)PT_REGS_PARM5_CORE(ctx);
		break;
	}
	if (!bio)
		return 0;
	if (targ_dev && bio_dev_core(bio) != targ_dev)
		return 0;
	return emit(bio, CT_COOKIE_IDX(cookie), CT_COOKIE_FLAGS(cookie), -1, true);
}

/* kprobe.multi (5.18, CONFIG_FPROBE): every function in one attachment. */
SEC("kprobe.multi")
int bio_func_multi(struct pt_regs *ctx)
{
	return on_function(ctx);
}

/* Else one kprobe per function, each with its cookie (5.15). */
SEC("kprobe")
int bio_func_kprobe(struct pt_regs *ctx)
{
	return on_function(ctx);
}

/*
 * Lesson#5: the tracepoint door, the block layer's own marks along the
 * path (include/trace/events/block.h). Fewer points than the functions,
 * but they need no kprobes.
 */
SEC("tp_btf/block_bio_queue")
int BPF_PROG(block_bio_queue_btf, struct bio *bio)
{
	if (targ_dev && bio_dev(bio) != targ_dev)
		return 0;
	return emit(bio, TP_BIO_QUEUE, CT_SUBMIT, -1, false);
}

/* Merged into a request already queued: behind its last bio, or before. */
SEC("tp_btf/block_bio_backmerge")
int BPF_PROG(block_bio_backmerge_btf, struct bio *bio)
{
	if (targ_dev && bio_dev(bio) != targ_dev)
		return 0;
	return emit(bio, TP_BIO_BACKMERGE, 0, -1, false);
}

SEC("tp_btf/block_bio_frontmerge")
int BPF_PROG(block_bio_frontmerge_btf, struct bio *bio)
{
	if (targ_dev && bio_dev(bio) != targ_dev)
		return 0;
	return emit(bio, TP_BIO_FRONTMERGE, 0, -1, false);
}

/* Sent on to another device (a partition to its disk, dm, md): bi_bdev is the new one. */
SEC("tp_btf/block_bio_remap")
int BPF_PROG(block_bio_remap_btf, struct bio *bio, dev_t dev, sector_t from)
{
	if (targ_dev && bio_dev(bio) != targ_dev)
		return 0;
	return emit(bio, TP_BIO_REMAP, 0, -1, false);
}

/* The front part bio_split() cut off; it is chained to the rest (parent). */
SEC("tp_btf/block_split")
int BPF_PROG(block_split_btf, struct bio *bio, unsigned int new_sector)
{
	if (targ_dev && bio_dev(bio) != targ_dev)
		return 0;
	return emit(bio, TP_SPLIT, 0, -1, false);
}

/* A new request for the bio. */
SEC("tp_btf/block_getrq")
int BPF_PROG(block_getrq_btf, struct bio *bio)
{
	if (targ_dev && bio_dev(bio) != targ_dev)
		return 0;
	return emit(bio, TP_GETRQ, 0, -1, false);
}

SEC("tp_btf/block_rq_insert")
int BPF_PROG(block_rq_insert_btf, struct request *rq)
{
	if (targ_dev && rq_dev(rq) != targ_dev)
		return 0;
	return rq_bios((u64)BPF_CORE_READ(rq, bio), TP_RQ_INSERT, 0, 0, -1);
}

/* The driver takes the request. */
SEC("tp_btf/block_rq_issue")
int BPF_PROG(block_rq_issue_btf, struct request *rq)
{
	if (targ_dev && rq_dev(rq) != targ_dev)
		return 0;
	return rq_bios((u64)BPF_CORE_READ(rq, bio), TP_RQ_ISSUE, 0, 0, -1);
}

/*
 * Request-based disks (loop, virtio, nvme) end their bios here, in
 * blk_update_request(); a write's flush data step ends none (bio_end.bpf.h).
 */
SEC("tp_btf/block_rq_complete")
int BPF_PROG(block_rq_complete_btf, struct request *rq, blk_status_t error,
	     unsigned int nr_bytes)
{
	if (targ_dev && rq_dev(rq) != targ_dev)
		return 0;
	return rq_bios((u64)BPF_CORE_READ(rq, bio), TP_RQ_COMPLETE, !rq_flush_data_step(rq), nr_bytes, error);
}

/* Bio-based disks (zram, dm, md) end each bio with this one. */
SEC("tp_btf/block_bio_complete")
int BPF_PROG(block_bio_complete_btf, struct request_queue *q, struct bio *bio)
{
	if (targ_dev && bio_dev(bio) != targ_dev)
		return 0;
	return emit(bio, TP_BIO_COMPLETE, CT_END, -1, false);
}

char LICENSE[] SEC("license") = "GPL";
