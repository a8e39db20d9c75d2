// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* btt's phases of a bio's life (see btt.h). */
#include <string.h>
#include "btt.h"

static const char *const phase_names[BTT_PHASES] = {
	[BTT_Q2G] = "Q2G", [BTT_G2I] = "G2I", [BTT_I2D] = "I2D",
	[BTT_Q2D] = "Q2D", [BTT_D2C] = "D2C", [BTT_Q2C] = "Q2C",
};

/* The bios a phase counts: those seen at both its marks, in order. */
static const char *const phase_bios[BTT_PHASES] = {
	[BTT_Q2G] = "queued and given a request", [BTT_G2I] = "given a request and inserted",
	[BTT_I2D] = "inserted and issued", [BTT_Q2D] = "queued and issued",
	[BTT_D2C] = "issued and completed", [BTT_Q2C] = "queued and completed",
};

/* Each phase: from mark, to mark. */
static const enum btt_mark phase_from[BTT_PHASES] = {
	[BTT_Q2G] = BTT_Q, [BTT_G2I] = BTT_G, [BTT_I2D] = BTT_I,
	[BTT_Q2D] = BTT_Q, [BTT_D2C] = BTT_D, [BTT_Q2C] = BTT_Q,
};
static const enum btt_mark phase_to[BTT_PHASES] = {
	[BTT_Q2G] = BTT_G, [BTT_G2I] = BTT_I, [BTT_I2D] = BTT_D,
	[BTT_Q2D] = BTT_D, [BTT_D2C] = BTT_C, [BTT_Q2C] = BTT_C,
};

/* The points of both doors that stand for a mark. */
static const struct {
	const char *point;
	enum btt_mark mark;
} points[] = {
	{ "block_bio_queue", BTT_Q },
	{ "submit_bio", BTT_Q },
	{ "submit_bio_noacct", BTT_Q },
	{ "block_getrq", BTT_G },
	{ "blk_mq_get_new_requests", BTT_G },
	{ "blk_mq_bio_to_request", BTT_G },
	{ "block_rq_insert", BTT_I },
	{ "block_rq_issue", BTT_D },
};

const char *btt_phase_name(enum btt_phase p)
{
	return p < BTT_PHASES ? phase_names[p] : "?";
}

void btt_mark(struct btt_marks *m, const char *point, bool end, __u64 ts)
{
	size_t i;

	if (end && !m->ts[BTT_C])
		m->ts[BTT_C] = ts;
	for (i = 0; i < sizeof(points) / sizeof(points[0]); i++) {
		if (strcmp(point, points[i].point))
			continue;
		/* the first time: a bio goes through submit_bio() once */
		if (!m->ts[points[i].mark])
			m->ts[points[i].mark] = ts;
		return;
	}
}

bool btt_phase(const struct btt_marks *m, enum btt_phase p, __u64 *ns)
{
	__u64 from = m->ts[phase_from[p]], to = m->ts[phase_to[p]];

	if (!from || !to || to < from)
		return false;
	*ns = to - from;
	return true;
}

char *btt_line(char *buf, size_t len, const struct btt_marks *m)
{
	size_t n = 0;
	__u64 ns;
	int p;

	buf[0] = '\0';
	for (p = 0; p < BTT_PHASES && n < len; p++) {
		if (!btt_phase(m, p, &ns))
			continue;
		n += snprintf(buf + n, len - n, "%s%s %.1f us", n ? "  " : "",
			      phase_names[p], ns / 1000.0);
	}
	return buf;
}

void btt_add(struct btt_hists *h, const struct btt_marks *m)
{
	unsigned int slot;
	__u64 ns;
	int p;

	for (p = 0; p < BTT_PHASES; p++) {
		if (!btt_phase(m, p, &ns))
			continue;
		slot = hist_slot(ns / 1000);
		if (slot >= HIST_SLOTS)		/* 71 minutes or more: the last slot */
			slot = HIST_SLOTS - 1;
		h->slots[p][slot]++;
		h->count[p]++;
		h->sum_ns[p] += ns;
	}
}

void btt_print(FILE *out, const struct btt_hists *h)
{
	int p;

	for (p = 0; p < BTT_PHASES; p++) {
		if (!h->count[p])
			continue;
		/* not every bio of the run: one in flight at its start or end lacks a mark */
		fprintf(out, "\n%s over %llu bio%s %s during the run: mean %.1f us\n",
			phase_names[p], h->count[p], h->count[p] == 1 ? "" : "s", phase_bios[p],
			h->sum_ns[p] / 1000.0 / h->count[p]);
		print_log2_hist(out, h->slots[p], HIST_SLOTS, "usecs");
	}
}
