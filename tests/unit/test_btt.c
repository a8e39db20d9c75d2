// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of tools/ctracer/btt.c: marks from both doors' points, phases, sums. */
#include <stdlib.h>
#include <string.h>
#include "btt.h"
#include "tap.h"

int main(void)
{
	struct btt_marks m = { 0 };
	struct btt_hists *h = calloc(1, sizeof(*h)), *big = calloc(1, sizeof(*big));
	char line[160], *buf = NULL;
	size_t len = 0;
	FILE *f;
	__u64 ns;

	/* the tracepoint door: Q G I D, then the completion that ends it */
	btt_mark(&m, "block_bio_queue", false, 1000);
	btt_mark(&m, "block_getrq", false, 4000);
	btt_mark(&m, "block_rq_insert", false, 5000);
	btt_mark(&m, "block_rq_issue", false, 9000);
	btt_mark(&m, "block_rq_issue", false, 9500);	/* a requeue: the first counts */
	btt_mark(&m, "block_rq_complete", false, 20000);	/* a partial completion */
	btt_mark(&m, "block_rq_complete", true, 51000);
	ok(btt_phase(&m, BTT_Q2G, &ns) && ns == 3000, "Q2G: queue to request");
	ok(btt_phase(&m, BTT_G2I, &ns) && ns == 1000, "G2I");
	ok(btt_phase(&m, BTT_I2D, &ns) && ns == 4000, "I2D: the first issue");
	ok(btt_phase(&m, BTT_Q2D, &ns) && ns == 8000, "Q2D");
	ok(btt_phase(&m, BTT_D2C, &ns) && ns == 42000, "D2C: to the completion that ended it");
	ok(btt_phase(&m, BTT_Q2C, &ns) && ns == 50000, "Q2C: the whole life");
	is_str(btt_line(line, sizeof(line), &m),
	       "Q2G 3.0 us  G2I 1.0 us  I2D 4.0 us  Q2D 8.0 us  D2C 42.0 us  Q2C 50.0 us",
	       "the tree's line");
	btt_add(h, &m);

	/* a function door: submit_bio(), a request, bio_endio(); no I or D */
	memset(&m, 0, sizeof(m));
	btt_mark(&m, "submit_bio", false, 100000);
	btt_mark(&m, "submit_bio_noacct", false, 100500);
	btt_mark(&m, "bio_alloc_bioset", false, 100700);	/* no mark */
	btt_mark(&m, "blk_mq_bio_to_request", false, 103000);
	btt_mark(&m, "bio_endio", true, 300000);
	is_str(btt_line(line, sizeof(line), &m), "Q2G 3.0 us  Q2C 200.0 us",
	       "function doors: the phases they see, the others left out");
	ok(!btt_phase(&m, BTT_D2C, &ns), "no D2C without an issue");
	btt_add(h, &m);

	/* a bio still in flight: no C, no Q2C */
	memset(&m, 0, sizeof(m));
	btt_mark(&m, "block_bio_queue", false, 5);
	ok(!btt_phase(&m, BTT_Q2C, &ns), "in flight: no Q2C");

	/* a bio held 2^33 us (a frozen file system): the last slot, not past it */
	memset(&m, 0, sizeof(m));
	btt_mark(&m, "block_bio_queue", false, 1000);
	btt_mark(&m, "block_rq_complete", true, 1000 + (1ULL << 33) * 1000);
	if (big) {
		btt_add(big, &m);
		is_int((int)big->slots[BTT_Q2C][HIST_SLOTS - 1], 1, "2^33 us: in the last slot");
		free(big);
	}

	is_int((int)h->count[BTT_Q2C], 2, "two bios in Q2C");
	is_int((int)h->count[BTT_D2C], 1, "one in D2C");
	is_int((int)h->slots[BTT_Q2C][hist_slot(50)], 1, "50 us in its log2 slot");
	is_int((int)h->slots[BTT_Q2C][hist_slot(200)], 1, "200 us in its");
	f = open_memstream(&buf, &len);
	btt_print(f, h);
	fclose(f);
	ok(strstr(buf, "Q2C over 2 bios queued and completed during the run: mean 125.0 us\n") != NULL, "the summary: count and mean");
	ok(strstr(buf, "D2C over 1 bio issued and completed during the run: mean 42.0 us\n") != NULL, "per phase");
	ok(strstr(buf, "I2D") && strstr(buf, "usecs"), "with its histogram");
	free(buf);
	free(h);
	return done();
}
