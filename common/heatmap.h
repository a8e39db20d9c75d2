/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A latency heat map as one self-contained HTML page (common/page.c):
 * x is time, y the log2 latency slots of hist.h (microseconds), the
 * colour of a cell the count in that slot and interval; under it the
 * whole run's histogram as bars. Inline SVG, no script, nothing fetched.
 * tracex3 --heatmap and scripts/heatmap (from JSON lines) both write it.
 *
 *	struct heatmap h = { .title = "…", .what = "requests" };
 *	heatmap_add(&h, 1.0, slots);	// each interval, in time order
 *	heatmap_write(&h, f);
 *	heatmap_free(&h);
 */
#ifndef __HEATMAP_H
#define __HEATMAP_H

#include <stdio.h>
#include "hist.h"

/* One column: the time at its end (seconds since the start) and its slots. */
struct heat_col {
	double t;
	unsigned long long slots[HIST_SLOTS];
};

struct heatmap {
	const char *title;	/* the page's heading */
	const char *note;	/* a line under it: what was measured, or NULL */
	const char *what;	/* what a count counts: "requests", "bios" */
	struct heat_col *cols;
	int n, cap;
};

/* Append a column ending at t (after the previous one); -1 without memory. */
int heatmap_add(struct heatmap *h, double t, const unsigned long long *slots);

/* The page; -1 if f reports a write error. */
int heatmap_write(const struct heatmap *h, FILE *f);

void heatmap_free(struct heatmap *h);

#endif /* __HEATMAP_H */
