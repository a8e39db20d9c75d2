/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* iofollow's samples: each sampled call's hops joined into its story. */
#ifndef __SAMPLES_H
#define __SAMPLES_H
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "iofollow.h"

#define PATHS_MAX	16	/* folios followed per sample; more are counted */

/* Where and by whom a hop ran. */
struct at {
	__u64 ts;
	__u32 cpu, pid, tid;
	char comm[16];
};

/* One folio of a sample, followed down: each layer's identity and time. */
struct path {
	__u64 folio, ino, index;
	__u32 pages;
	struct at dirty;		/* dirtied, or added to the cache */
	__u64 bio, sector, page;	/* the bio, where the page lies, which page */
	__u64 owner;			/* the sample whose mark the bio carries: a
					   bio address reused later is not this one */
	__u32 bio_bytes;
	struct at queue, split, join, issue, done;
	__u64 whole_bio;		/* split: the bio the page's part came from */
	long how;			/* join: 0 new request, 1 back merge, 2 front merge */
	__u64 rq, rq_sector;
	__u32 rq_bytes;
	long status;
};

/* One sampled call and the folios followed of it. */
struct sample {
	__u64 id;		/* 0: a free slot */
	struct at call;		/* the call's return */
	__u32 tid;
	__u64 t0, fsync_t0, fsync_t1;
	long ret;
	bool returned;
	int n;
	__u64 more;		/* folios past PATHS_MAX */
	struct path p[PATHS_MAX];
	double ready;		/* when it was seen whole (tracer_now()) */
};

extern const char *const hop_names[HOP_MAX];
extern bool follow_read;	/* -r: the samples are read() calls */

/* What became of the events and samples, for the summary. */
struct sample_stats {
	__u64 hops_seen[HOP_MAX];
	__u64 unlinked[HOP_MAX];	/* hops no followed sample led to */
	__u64 table_full;	/* samples not kept: the table was full */
	__u64 no_folio;		/* calls that dirtied (or added) no folio */
	__u64 printed, dirty_left, flight_left;
	__u64 rest_hops;	/* hops of marked bios with no followed page */
};
extern struct sample_stats st;

/* The ring buffer's callback: one hop into its sample. */
int samples_event(void *ctx, void *data, size_t size);
/* Every tick: print the samples whole for a second with no fsync() to wait for. */
int samples_tick(void *arg);
/* At exit: the samples left, said how far they got. */
void samples_left(void);

#endif /* __SAMPLES_H */
