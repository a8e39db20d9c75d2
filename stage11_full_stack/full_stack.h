/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What the BPF side and the user side of full_stack share. */
#ifndef __FULL_STACK_H
#define __FULL_STACK_H

/* The hops of one sampled write(), in the order they happen. */
enum hop {
	HOP_ENTER,	/* the sampled write() was entered */
	HOP_FOLIO,	/* it dirtied a folio of the page cache */
	HOP_RETURN,	/* it returned */
	HOP_BIO,	/* a bio carrying that folio was queued (block_bio_queue) */
	HOP_SPLIT,	/* that bio was split: its front part goes on as a bio of its own */
	HOP_ISSUE,	/* the request holding the bio went to the driver */
	HOP_DONE,	/* that request completed the bio (block_rq_complete) */
	HOP_MAX,
};

/* One hop, sent through the ring buffer. */
struct event {
	__u32 hop;		/* enum hop */
	__u32 cpu;
	__u32 pid;		/* the thread that ran it: the writer, a kworker, an interrupt's */
	char comm[16];
	__u64 ts;		/* bpf_ktime_get_ns() */
	__u64 id;		/* the sample: the sampled write()'s number */
	__u64 t0;		/* when that write() was entered */
	__u64 folio, bio, rq;	/* each layer's object, as far as the hop has them */
	__u64 parent;		/* HOP_SPLIT: the bio split, which goes on with the rest */
	__u64 ino, index;	/* HOP_FOLIO, HOP_BIO: the file and its page */
	__u64 sector;		/* HOP_BIO: where that page lies; HOP_SPLIT: the part's start;
				   HOP_ISSUE: the request's start */
	__s64 ret;		/* HOP_RETURN: the bytes written; HOP_DONE: the status */
	__u32 bytes;		/* HOP_BIO: the bio's; HOP_SPLIT: the part's; HOP_ISSUE: the request's */
	__u32 pad;
};

/* The gates: the folio and bio marks out (full_stack.bpf.c, Lesson#2). */
struct gates {
	__s64 folios, bios;
};

/* The stage's counters (one per-CPU array, "counts"). */
enum count {
	CNT_SAMPLED,		/* write() calls sampled: 1 in N */
	CNT_RB_FULL,		/* events not sent: ring buffer full */
	CNT_MARK_FAIL,		/* marks not stored */
	CNT_WALK_CUT,		/* bio_vec or rq->bio walks cut at their bound */
	CNT_MAX,
};

#endif /* __FULL_STACK_H */
