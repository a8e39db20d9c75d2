/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Where a bio's time went, in blktrace's btt words. Each probe point that
 * stands for a step of the block layer marks the time the bio reached it:
 *   Q  queued: block_bio_queue, submit_bio(), submit_bio_noacct()
 *   G  got a request: block_getrq, blk_mq_get_new_requests(),
 *      blk_mq_bio_to_request()
 *   I  inserted into the scheduler's queue: block_rq_insert
 *   D  issued to the driver: block_rq_issue
 *   C  completed: the event that ended the bio
 * A phase is the time between two marks, where both were seen: the
 * function doors see only functions that take a bio, so they have Q, G
 * and C but no I or D (block_rq_insert and _issue name a request).
 */
#ifndef __BTT_H
#define __BTT_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "hist.h"

enum btt_mark { BTT_Q, BTT_G, BTT_I, BTT_D, BTT_C, BTT_MARKS };

/* The first time each mark was reached, 0 if it was not seen. */
struct btt_marks {
	__u64 ts[BTT_MARKS];
};

enum btt_phase {
	BTT_Q2G,	/* waiting for a request (tags, the plug) */
	BTT_G2I,	/* request made, into the scheduler */
	BTT_I2D,	/* in the scheduler's queue */
	BTT_Q2D,	/* everything before the driver */
	BTT_D2C,	/* the driver and the device */
	BTT_Q2C,	/* the whole life */
	BTT_PHASES,
};

/* Per phase, over a run: a log2 histogram in microseconds. */
struct btt_hists {
	unsigned long long slots[BTT_PHASES][HIST_SLOTS];
	unsigned long long count[BTT_PHASES];
	unsigned long long sum_ns[BTT_PHASES];
};

/* "Q2G" … "Q2C" */
const char *btt_phase_name(enum btt_phase p);

/* Record point (its name) reached at ts; end: the event ended the bio. */
void btt_mark(struct btt_marks *m, const char *point, bool end, __u64 ts);

/* The phase's length in ns, if both its marks were seen in order. */
bool btt_phase(const struct btt_marks *m, enum btt_phase p, __u64 *ns);

/* "Q2G 3.2 us  D2C 41.0 us  Q2C 50.1 us" into buf: the phases seen. */
char *btt_line(char *buf, size_t len, const struct btt_marks *m);

/* Count a bio's phases into the run's histograms. */
void btt_add(struct btt_hists *h, const struct btt_marks *m);

/* At exit: per phase seen, the bios it counts and their mean, then its histogram. */
void btt_print(FILE *out, const struct btt_hists *h);

#endif /* __BTT_H */
