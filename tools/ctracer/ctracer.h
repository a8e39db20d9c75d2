/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* ctracer: what its two sides share, the event and its counters. */
#ifndef __CTRACER_H
#define __CTRACER_H

/* The tracepoint door's probe points; the function doors number functions. */
enum ct_tp {
	TP_BIO_QUEUE,
	TP_BIO_BACKMERGE,
	TP_BIO_FRONTMERGE,
	TP_BIO_REMAP,
	TP_SPLIT,
	TP_GETRQ,
	TP_RQ_INSERT,
	TP_RQ_ISSUE,
	TP_RQ_COMPLETE,
	TP_BIO_COMPLETE,
	TP_MAX,
};

/*
 * What an event means for the bio's life (ct_event.flags): the user side
 * starts a new tree when an ended bio's address comes back with BEGIN or
 * SUBMIT (addresses are reused), and prints a tree once its bio ended.
 */
#define CT_BEGIN	0x1	/* a new bio: bio_init(), block_split, a part first followed */
#define CT_SUBMIT	0x2	/* submitted: submit_bio(), block_bio_queue */
#define CT_END		0x4	/* ended: bio_endio(), a completion */
#define CT_RET		0x8	/* a function returned (-r): no fields read */
#define CT_STACKED	0x10	/* parent: the bio a stacked device sent this one for */
#define CT_NO_DISK	0x20	/* bio_init(): the bio's disk is not set yet (-d) */
#define CT_CHAIN	0x40	/* bio_chain(): a begin, but after bio_init() */

/* Where the event ran (ct_event.ctx), from the CPU's preempt count. */
enum ct_ctx {
	CT_CTX_TASK,
	CT_CTX_SOFTIRQ,
	CT_CTX_HARDIRQ,
	CT_CTX_NMI,
	CT_CTX_IRQ,	/* no count readable: off the task stack, hard or soft */
};

#define CT_COMM_LEN	16

/* One function (or tracepoint) a bio went through, sent by ring buffer. */
struct ct_event {
	__u64 bio;		/* its address: the key of its tree */
	__u64 parent;		/* a split part: the bio it was cut from; CT_STACKED: above */
	__u64 ts;		/* bpf_ktime_get_ns() */
	__u64 sector;		/* bi_iter.bi_sector, 512-byte units */
	__u32 size;		/* bi_iter.bi_size, bytes */
	__u32 opf;		/* bi_opf: REQ_OP_* in the low 8 bits, flags above */
	__u32 id;		/* function index (its cookie) or enum ct_tp */
	__u32 pid;		/* thread: in an interrupt, whoever ran there */
	__u32 dev;		/* its disk, as the kernel numbers it (MAJOR << 20 | MINOR) */
	__u16 cpu;
	__u8 status;		/* bi_status, or the request's error at completion */
	__u8 flags;		/* CT_BEGIN, CT_SUBMIT, CT_END, CT_RET, CT_STACKED ... */
	__u8 ctx;		/* enum ct_ctx */
	char comm[CT_COMM_LEN];
};

/* The followed map's values (-p, -s): ctracer.bpf.c's followed_bio(). */
#define CT_FOLLOWED		1
#define CT_FOLLOWED_ENDED	2	/* function doors: after its end, until a new life */

/* ctracer's own per-CPU counters (map ctstats). */
enum ct_stat {
	CT_EVENTS,		/* events that passed the filters */
	CT_RB_DROP,		/* events the ring buffer had no room for */
	CT_PID_FULL,		/* -p: bios the followed map could not hold */
	CT_WALK_CUT,		/* rq->bio walks cut at the bound */
	CT_CALLS_FULL,		/* -r: entries the calls map could not hold */
	CT_STACK_UNLINKED,	/* bios a loop worker sent for a request not known */
	CT_STACK_FULL,		/* stacked bios the stacked or serving map could not hold */
	/*
	 * followed and calls are LRU maps: a full one forgets its oldest.
	 * What went in and came out by itself; at exit, what is left in the
	 * map says how many were forgotten (ctracer.c, evicted()).
	 */
	CT_FOLLOW_IN,		/* bios followed (-p, -s): entries FOLLOWED */
	CT_FOLLOW_OUT,		/* FOLLOWED no more: ended, or the address begun again */
	CT_CALLS_IN,		/* -r: calls entered */
	CT_CALLS_OUT,		/* -r: calls returned */
	CT_STAT_MAX,
};

/*
 * Function doors: one program for every function, told apart by the
 * cookie each attachment carries: the function's index in the user
 * side's list, its CT_* flags and which argument holds the bio.
 */
#define CT_COOKIE(idx, flags, arg)	((__u64)(idx) << 16 | (flags) << 8 | (arg))
#define CT_COOKIE_IDX(c)		((__u32)((c) >> 16))
#define CT_COOKIE_FLAGS(c)		((__u8)((c) >> 8))
#define CT_COOKIE_ARG(c)		((__u8)(c))

#endif /* __CTRACER_H */
