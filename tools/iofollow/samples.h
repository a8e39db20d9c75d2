/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* iofollow's samples: each sampled call's hops joined into its story. */
#ifndef __SAMPLES_H
#define __SAMPLES_H
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "iofollow.h"

#define PATHS_MAX	16	/* folios followed per sample; more are counted */

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
