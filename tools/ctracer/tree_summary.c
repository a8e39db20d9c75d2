// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* ctracer's summary, as text or JSON lines: see tree_summary.h. */
#include "options.h"
#include "tree_summary.h"

/* One "btt" object per phase seen (btt_print()'s histograms), then "summary". */
static void summary_json(FILE *out, const struct btt_hists *h, const struct tree_counts *c,
			 const struct loss *l, int n)
{
	for (int p = 0; p < BTT_PHASES; p++) {
		if (!h->count[p])
			continue;
		fprintf(out, "{\"type\":\"btt\",\"phase\":\"%s\",\"count\":%llu,\"mean_ns\":%llu,"
			"\"slots\":[", btt_phase_name(p), h->count[p], h->sum_ns[p] / h->count[p]);
		for (int i = 0; i < HIST_SLOTS; i++)
			fprintf(out, "%s%llu", i ? "," : "", h->slots[p][i]);
		fprintf(out, "]}\n");
	}
	fprintf(out, "{\"type\":\"summary\",\"events\":{\"hits\":%llu", c->hits);
	if (!env.quiet)
		fprintf(out, ",\"bios\":%llu", c->bios);
	fprintf(out, "},\"in_flight\":{\"at_start\":%llu,\"at_exit\":%llu,\"calls_at_exit\":%llu},"
		"\"unfinished\":%llu,\"late\":%llu,\"begun_again\":%llu,\"stacked_unlinked\":%llu",
		c->no_submit, c->no_end, c->no_return, c->unfinished, c->late, c->begun_again,
		c->unlinked);
	lost_json(out, l, n);
	fprintf(out, "}\n");
}

void tree_summary_print(FILE *out, const struct btt_hists *h, const struct tree_counts *c,
			const struct loss *l, int n)
{
	if (env.json) {
		summary_json(out, h, c, l, n);
		return;
	}
	btt_print(out, h);	/* nothing under -q: no bio was sent */
	fprintf(out, "Events: hits %llu", c->hits);
	if (!env.quiet)		/* -q: the bios are not sent, so not known */
		fprintf(out, ", bios %llu", c->bios);
	fprintf(out, "\n");
	/* I/O under way at the run's edges: not lost, said apart */
	if (c->no_submit || c->no_end || c->no_return)
		fprintf(out, "In flight at start: %llu bios seen without their submit; at exit: "
			"%llu bios without their end, %llu calls without their return\n",
			c->no_submit, c->no_end, c->no_return);
	if (c->unfinished)
		fprintf(out, "Unfinished: %llu bios printed without their end after %g s with no "
			"event (--tree-timeout)\n", c->unfinished, c->tree_timeout);
	if (c->late)
		fprintf(out, "Late: %llu events of those bios came after their tree was "
			"printed\n", c->late);
	/* their end dropped (Lost: says why), or never traced */
	if (c->begun_again)
		fprintf(out, "Begun again: %llu bios printed without their end when their "
			"address began a new bio\n", c->begun_again);
	if (c->unlinked)
		fprintf(out, "Stacked: %llu bios a loop worker sent below while which of its "
			"requests it served was not known: not linked\n", c->unlinked);
	lost_lines(out, l, n);
}
