/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What the BPF side and the user side of class_trace share. */
#ifndef __CLASS_TRACE_H
#define __CLASS_TRACE_H

/* The tracepoint door's points; in the function doors, point is a function's index. */
enum tp_point {
	TP_BIO_QUEUE,
	TP_BIO_BACKMERGE,
	TP_GETRQ,
	TP_RQ_ISSUE,
	TP_RQ_COMPLETE,
	TP_BIO_COMPLETE,
	TP_MAX,
};

/* What a point means for the bio's life (event.flags). */
#define EV_BEGIN	0x1	/* bio_init(): the address holds a new bio */
#define EV_SUBMIT	0x2	/* submit_bio(), block_bio_queue */
#define EV_END		0x4	/* bio_endio(), a completion that ends it */

/* One bio passing one function (or tracepoint), sent through the ring buffer. */
struct event {
	__u64 bio;		/* its address: which tree the event goes to */
	__u64 ts;		/* bpf_ktime_get_ns() */
	__u64 sector;		/* bi_iter.bi_sector, in 512-byte units */
	__u32 size;		/* bi_iter.bi_size, bytes */
	__u32 opf;		/* bi_opf: the operation in its low 8 bits */
	__u32 point;		/* enum tp_point, or the function's index */
	__u32 pid;		/* the thread that ran it (in an interrupt: whoever ran) */
	__u32 cpu;
	__u32 flags;		/* EV_* */
	char comm[16];
};

/*
 * Function doors: one program serves every function, and the cookie of
 * each attachment says which one fired: its index in the user side's
 * list, its EV_* flags, and which argument (0 to 4) holds the bio.
 */
#define COOKIE(idx, flags, arg)	((__u64)(idx) << 32 | (flags) << 8 | (arg))
#define COOKIE_IDX(c)		((__u32)((c) >> 32))
#define COOKIE_FLAGS(c)		((__u32)((c) >> 8) & 0xff)
#define COOKIE_ARG(c)		((__u32)(c) & 0xff)

#endif /* __CLASS_TRACE_H */
