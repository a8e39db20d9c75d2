/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What the BPF side and the user side of iofollow share. */
#ifndef __IOFOLLOW_H
#define __IOFOLLOW_H

/* The hops of one sampled call, in about the order they happen. */
enum hop {
	HOP_SYSCALL,	/* the sampled write() or read() returned */
	HOP_FOLIO,	/* a folio it dirtied (write) or added to the cache (read) */
	HOP_BIO,	/* a bio carrying that folio was queued (block_bio_queue) */
	HOP_SPLIT,	/* a followed bio was split: its front part goes on as a bio */
	HOP_GETRQ,	/* the bio started a new request (block_getrq) */
	HOP_MERGE,	/* the bio joined a request already there (back or front merge) */
	HOP_ISSUE,	/* the request holding the bio went to the driver */
	HOP_DONE,	/* that request completed the bio (block_rq_complete), or a
			   bio-based disk ended it (block_bio_complete) */
	HOP_FSYNC,	/* an fsync() of a task whose sampled write() dirtied folios returned */
	HOP_MAX,
};

enum kind {
	KIND_WRITE = 1,
	KIND_READ,
	KIND_FSYNC,	/* a task's mark inside that fsync() */
};

/* One hop, sent through the ring buffer. */
struct event {
	__u32 hop;		/* enum hop */
	__u32 cpu;
	__u32 pid, tid;		/* the task that ran it: the caller, a kworker, an interrupt's */
	char comm[16];
	__u64 ts;		/* bpf_ktime_get_ns() */
	__u64 id;		/* the sample: the call's number (HOP_FSYNC: the last write's) */
	__u64 t0;		/* when that call (HOP_FSYNC: the fsync()) was entered */
	__u64 folio, bio, rq;	/* each layer's object, as far as the hop has them */
	__u64 parent;		/* HOP_SPLIT: the bio split, which goes on with the rest */
	__u64 ino, index;	/* HOP_FOLIO: file and first page; HOP_BIO: the folio's page */
	__u64 sector;		/* HOP_BIO: where that page lies; HOP_SPLIT: the part's start;
				   HOP_ISSUE: the request's start */
	__s64 ret;		/* HOP_SYSCALL, HOP_FSYNC: the return; HOP_DONE: the status;
				   HOP_MERGE: 1 back, 2 front */
	__u64 owner;		/* HOP_BIO: the sample whose mark the bio took (0: none); the
				   hops below carry it as id */
	__u32 bytes;		/* HOP_BIO: the bio's; HOP_SPLIT: the part's; HOP_ISSUE: the request's */
	__u32 pages;		/* HOP_FOLIO: the folio's pages */
	__u32 kind;		/* enum kind */
	__u32 pad;
};

/* The tool's counters (one per-CPU array, "counts"). */
enum count {
	CNT_SAMPLED,		/* calls sampled: 1 in N (all calls: the "calls" map) */
	CNT_FOLIOS,		/* folio marks stored, and deleted (handed on, or the folio left the cache) */
	CNT_FOLIO_DEL,
	CNT_BIOS,		/* bio marks stored, and deleted at completion */
	CNT_BIO_DEL,
	CNT_RB_FULL,		/* events not sent: ring buffer full */
	CNT_MARK_FAIL,		/* marks not stored */
	CNT_WALK_CUT,		/* bio_vec or rq->bio walks cut at their bound */
	CNT_MAX,
};

#endif /* __IOFOLLOW_H */
