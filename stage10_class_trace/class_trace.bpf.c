// SPDX-License-Identifier: GPL-2.0
/*
 * class_trace, the BPF side: an event each time a bio passes a kernel
 * function that takes a struct bio * (or, in the tracepoint door, a
 * block tracepoint), sent to user space through a ring buffer.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "trace.bpf.h"
#include "ringbuf.bpf.h"
#include "disk.bpf.h"
#include "bio_end.bpf.h"
#include "class_trace.h"

/* Set by the user side before load; the verifier then drops dead branches. */
const volatile bool quiet = false;	/* -q: no events, counts only */
const volatile __u32 targ_dev = 0;	/* -d: the disk's dev_t, 0 = every disk */

/*
 * The bios in flight, as in stage 03: a bio goes in at its submit and
 * out at its end. What is left at exit was still in flight; an end that
 * finds nothing was submitted before tracing began.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, u64);	/* struct bio * */
	__type(value, u8);	/* 1: submitted, not yet ended */
} start SEC(".maps");

/*
 * Lesson#4: the events, to this run's reader only. A bio passes 5 or 6
 * tracepoints but dozens of functions: 4 MiB holds about 50,000 events.
 */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20);
} events SEC(".maps");

/* The summary's counts: submits and ends in and out of start. */
static __always_inline void count_life(u64 bio, u32 flags, bool split_part)
{
	u8 one = 1;
	int err;	/* not long: 6.1 returns a 32-bit -EEXIST */

	if (split_part) {	/* a piece bio_split() cut off: it ends with its bio */
		if (flags & EV_END)
			stat_inc(STAT_SPLIT_PART);
		return;
	}
	if (flags & EV_SUBMIT) {
		stat_inc(STAT_SUBMIT);
		err = bpf_map_update_elem(&start, &bio, &one, BPF_NOEXIST);
		if (err == -EEXIST)
			stat_inc(STAT_STALE);	/* its last end was not seen */
		else if (err)
			stat_inc(STAT_MAP_FULL);
	}
	if (flags & EV_END) {
		stat_inc(STAT_DONE);
		if (bpf_map_delete_elem(&start, &bio))
			stat_inc(STAT_NO_START);
	}
}

/*
 * Lesson#4: the one handler. bio passed point (a function's index or a
 * tracepoint); flags say what that means for its life. core says how to
 * read the bio: a kprobe's argument is a plain number, read with
 * BPF_CORE_READ(); fentry and tp_btf programs get a BTF-typed pointer,
 * read with plain loads. A constant: the compiler keeps one branch.
 */
static __always_inline int on_bio(struct bio *bio, u32 point, u32 flags, bool core)
{
	struct event *e;

	if (!bio)
		return 0;
	/*
	 * -d: the bio's disk. Not at bio_init(): at its entry the disk is
	 * not set yet (the last bio's, or stack garbage); the user side takes
	 * it only as the address's new life.
	 */
	if (targ_dev && !(flags & EV_BEGIN) &&
	    (core ? bio_dev_core(bio) : bio_dev(bio)) != targ_dev)
		return 0;
	if (flags & (EV_SUBMIT | EV_END))
		count_life((u64)bio, flags, core ? bio_split_part_core(bio) : bio_split_part(bio));
	if (quiet)
		return 0;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		stat_inc(STAT_RB_FULL);	/* user space fell behind */
		return 0;
	}
	e->bio = (u64)bio;
	e->ts = bpf_ktime_get_ns();
	e->point = point;
	e->flags = flags;
	e->pid = (u32)bpf_get_current_pid_tgid();
	e->cpu = bpf_get_smp_processor_id();
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	if (core) {
		e->sector = BPF_CORE_READ(bio, bi_iter.bi_sector);
		e->size = BPF_CORE_READ(bio, bi_iter.bi_size);
		e->opf = BPF_CORE_READ(bio, bi_opf);
	} else {
		e->sector = bio->bi_iter.bi_sector;
		e->size = bio->bi_iter.bi_size;
		e->opf = bio->bi_opf;
	}
	bpf_ringbuf_submit(e, ringbuf_wakeup(&events));
	return 0;
}

/*
 * Lesson#3: the function doors. One program serves hundreds of
 * functions: the attach cookie says which one fired, and which argument
 * holds its bio. A kprobe reads that argument from its register; the
 * _CORE forms read it with a helper, so the switch may pick the register
 * at run time (a plain load from the context must have a fixed offset).
 */
static __always_inline struct bio *kprobe_bio(struct pt_regs *ctx, u32 arg)
{
	switch (arg) {
	case 0:
		return (struct bio *)PT_REGS_PARM1_CORE(ctx);
	case 1:
		return (struct bio *)PT_REGS_PARM2_CORE(ctx);
	case 2:
		return (struct bio *)PT_REGS_PARM3_CORE(ctx);
	case 3:
		return (struct bio *)PT_REGS_PARM4_CORE(ctx);
	}
	return (struct bio *)PT_REGS_PARM5_CORE(ctx);
}

static __always_inline int on_kprobe(struct pt_regs *ctx)
{
	u64 c = bpf_get_attach_cookie(ctx);

	return on_bio(kprobe_bio(ctx, COOKIE_ARG(c)), COOKIE_IDX(c), COOKIE_FLAGS(c), true);
}

/* Every function in one kprobe.multi link (5.18, CONFIG_FPROBE) … */
SEC("kprobe.multi")
int func_multi(struct pt_regs *ctx)
{
	return on_kprobe(ctx);
}

/* … else one kprobe per function, each with its cookie (5.15). */
SEC("kprobe")
int func_kprobe(struct pt_regs *ctx)
{
	return on_kprobe(ctx);
}

/*
 * An fentry program is typed by the BTF of the one function it is
 * loaded for: its bio argument is a struct bio * there. So one template
 * per position of the bio; the user side loads each for a function with
 * its bio there (no target in SEC(): it is set at run time), then a copy
 * of its instructions for every such function (common/mass_attach.c).
 * Each attachment's cookie (5.19) says which function it is.
 */
static __always_inline int fentry_bio(void *ctx, struct bio *bio)
{
	u64 c = bpf_get_attach_cookie(ctx);

	return on_bio(bio, COOKIE_IDX(c), COOKIE_FLAGS(c), false);
}

SEC("fentry")
int BPF_PROG(fentry_arg1, struct bio *bio)
{
	return fentry_bio(ctx, bio);
}

SEC("fentry")
int BPF_PROG(fentry_arg2, void *a1, struct bio *bio)
{
	return fentry_bio(ctx, bio);
}

SEC("fentry")
int BPF_PROG(fentry_arg3, void *a1, void *a2, struct bio *bio)
{
	return fentry_bio(ctx, bio);
}

SEC("fentry")
int BPF_PROG(fentry_arg4, void *a1, void *a2, void *a3, struct bio *bio)
{
	return fentry_bio(ctx, bio);
}

SEC("fentry")
int BPF_PROG(fentry_arg5, void *a1, void *a2, void *a3, void *a4, struct bio *bio)
{
	return fentry_bio(ctx, bio);
}

/*
 * Lesson#5: the tracepoint door, the block layer's own marks along a
 * bio's path (include/trace/events/block.h): fewer points than the
 * functions, but no kprobes or trampolines needed.
 */
SEC("tp_btf/block_bio_queue")
int BPF_PROG(block_bio_queue_btf, struct bio *bio)
{
	return on_bio(bio, TP_BIO_QUEUE, EV_SUBMIT, false);
}

/* Merged behind the last bio of a request already waiting. */
SEC("tp_btf/block_bio_backmerge")
int BPF_PROG(block_bio_backmerge_btf, struct bio *bio)
{
	return on_bio(bio, TP_BIO_BACKMERGE, 0, false);
}

/* Not merged: a new request for it. */
SEC("tp_btf/block_getrq")
int BPF_PROG(block_getrq_btf, struct bio *bio)
{
	return on_bio(bio, TP_GETRQ, 0, false);
}

/*
 * One bio of a request, from the walk below: a global function, so the
 * verifier checks it once, not once per turn of the loop. It takes a
 * plain number, so it reads with BPF_CORE_READ().
 */
__noinline int rq_bio(u64 bio, u32 point, u32 flags)
{
	return on_bio((struct bio *)bio, point, flags, true);
}

/*
 * The request tracepoints name a request, not a bio: an event for each
 * bio it carries, from rq->bio along bi_next. left: the bytes a
 * completion ends; bio_covered() says which bios at the head that ends
 * (-1: none, an issue).
 */
static __always_inline int rq_bios(struct request *rq, u32 point, __s64 left)
{
	u64 bio = (u64)BPF_CORE_READ(rq, bio);	/* a number, for rq_bio() */
	int i;

	if (targ_dev && rq_dev(rq) != targ_dev)
		return 0;
	for (i = 0; i < BIO_WALK_MAX && bio; i++) {
		struct bio *b = (struct bio *)bio;

		rq_bio(bio, point, bio_covered(BPF_CORE_READ(b, bi_iter.bi_size), &left) ? EV_END : 0);
		bio = (u64)BPF_CORE_READ(b, bi_next);
	}
	if (bio)
		stat_inc(STAT_WALK_CUT);
	return 0;
}

/* The driver takes the request. */
SEC("tp_btf/block_rq_issue")
int BPF_PROG(block_rq_issue_btf, struct request *rq)
{
	return rq_bios(rq, TP_RQ_ISSUE, -1);
}

/*
 * Request-based disks (loop, virtio, nvme) end their bios here, in
 * blk_update_request(); a write's flush data step ends none (bio_end.bpf.h).
 */
SEC("tp_btf/block_rq_complete")
int BPF_PROG(block_rq_complete_btf, struct request *rq, blk_status_t error,
	     unsigned int nr_bytes)
{
	return rq_bios(rq, TP_RQ_COMPLETE, rq_flush_data_step(rq) ? -1 : (__s64)nr_bytes);
}

/* Bio-based disks (zram, dm, md) end each bio with this one. */
SEC("tp_btf/block_bio_complete")
int BPF_PROG(block_bio_complete_btf, struct request_queue *q, struct bio *bio)
{
	return on_bio(bio, TP_BIO_COMPLETE, EV_END, false);
}

char LICENSE[] SEC("license") = "GPL";
