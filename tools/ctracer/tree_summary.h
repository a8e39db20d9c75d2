/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ctracer's summary at exit: where the bios' time went (btt.h), what
 * the run counted, and every loss; with -j the same as JSON objects, a
 * "btt" one per phase and the "summary" (docs/json.md).
 */
#ifndef __TREE_SUMMARY_H
#define __TREE_SUMMARY_H

#include <stdio.h>
#include "btt.h"
#include "summary.h"

struct tree_counts {
	unsigned long long hits;	/* events the BPF side counted */
	unsigned long long bios;	/* trees (not known under -q: no event sent) */
	unsigned long long no_submit;	/* trees without their submit: in flight at start */
	unsigned long long no_end;	/* without their end at exit */
	unsigned long long no_return;	/* calls without their return (-r) */
	unsigned long long unfinished;	/* printed without their end by --tree-timeout */
	unsigned long long late;	/* their events that came after: not new bios */
	unsigned long long begun_again;	/* without their end: their address began anew */
	unsigned long long unlinked;	/* sent below by a loop worker, for a bio not known */
	double tree_timeout;		/* its seconds */
};

/* The btt histograms, Events:, In flight, Unfinished:, Begun again: and Lost: lines, on out. */
void tree_summary_print(FILE *out, const struct btt_hists *h, const struct tree_counts *c,
			const struct loss *l, int n);

#endif /* __TREE_SUMMARY_H */
