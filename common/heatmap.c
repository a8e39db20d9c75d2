// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The latency heat map page: see heatmap.h. */
#include <stdlib.h>
#include <string.h>
#include "heatmap.h"
#include "page.h"

/* Geometry in pixels: the map's plot starts at (X0, Y0). */
#define X0 64		/* room for the slot labels */
#define Y0 12
#define PLOT_W 640
#define ROW_H 18
#define MIN_ROWS 10	/* a few empty slots around the data; the legend's height */
#define LEGEND_W 170
#define LABEL_W 150	/* the bars' slot ranges */
#define BAR_W 420

/* hist_shade()'s shades, light to dark; shade 0 (no count) draws no cell. */
static const char *const fill[HIST_SHADES] = {
	"#ffffff", "#fde38f", "#fdd07a", "#fcb35a", "#f99245",
	"#f06c3c", "#db4a3e", "#bb2f4a", "#8e1f55", "#5a1357",
};

static const char css[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:1em 2em;color:#222;background:#fff}\n"
	"h1{font-size:1.3em;margin:.3em 0}\n"
	"h2{font-size:1.1em;margin:1.4em 0 .3em}\n"
	".meta{color:#555;margin:.2em 0}\n"
	".how{color:#555;font-size:12px;max-width:56em}\n"
	"svg{display:block;margin:.6em 0}\n"
	"svg text{font:11px system-ui,sans-serif;fill:#333}\n"
	"svg text.axis{font-size:12px;fill:#111}\n"
	".grid{stroke:#e6e6e6}\n"
	".frame{fill:none;stroke:#888}\n"
	"rect.bar{fill:#4f78b0}\n";

int heatmap_add(struct heatmap *h, double t, const unsigned long long *slots)
{
	if (h->n == h->cap) {
		int cap = h->cap ? 2 * h->cap : 64;
		struct heat_col *c = realloc(h->cols, cap * sizeof(*c));

		if (!c)
			return -1;
		h->cols = c;
		h->cap = cap;
	}
	h->cols[h->n].t = t;
	memcpy(h->cols[h->n].slots, slots, sizeof(h->cols[0].slots));
	h->n++;
	return 0;
}

void heatmap_free(struct heatmap *h)
{
	free(h->cols);
	h->cols = NULL;
	h->n = h->cap = 0;
}

/* A slot's lower edge, 2^s us, short and in decimal units: 0, 2us, 1ms, 4s. */
static void edge_label(char *buf, size_t len, int s)
{
	unsigned long long us = s ? 1ULL << s : 0;

	if (!us)
		snprintf(buf, len, "0");
	else if (us < 1000)
		snprintf(buf, len, "%lluus", us);
	else if (us < 1000000)
		snprintf(buf, len, "%llums", us / 1000);
	else
		snprintf(buf, len, "%llus", us / 1000000);
}

/* A slot's exact range: "2048-4095 us" (slot 0 also holds 0). */
static void range_label(char *buf, size_t len, int s)
{
	snprintf(buf, len, "%llu-%llu us", s ? 1ULL << s : 0, (2ULL << s) - 1);
}

/* A tick step of 1, 2 or 5 times a power of ten: at most 8 ticks over span. */
static double tick_step(double span)
{
	for (double p = 0.001;; p *= 10) {
		if (8 * p >= span)
			return p;
		if (16 * p >= span)
			return 2 * p;
		if (40 * p >= span)
			return 5 * p;
	}
}

/* The counts shade s stands for, against max: [*lo, *hi], or false if none. */
static bool shade_range(int s, unsigned long long max, unsigned long long *lo,
			unsigned long long *hi)
{
	/* hist_shade(): s = 1 + count * (HIST_SHADES - 2) / max, max alone darkest */
	if (!max)
		return false;
	if (s == HIST_SHADES - 1) {
		*lo = *hi = max;
		return true;
	}
	*lo = ((s - 1) * max + HIST_SHADES - 3) / (HIST_SHADES - 2);
	*hi = (s * max + HIST_SHADES - 3) / (HIST_SHADES - 2) - 1;
	if (*lo < 1)
		*lo = 1;
	if (*hi > max - 1)
		*hi = max - 1;
	return *lo <= *hi;
}

static void legend(FILE *f, const struct heatmap *h, unsigned long long max, int x)
{
	unsigned long long lo, hi;
	int y = Y0 + 12;

	fprintf(f, "<text class=\"axis\" x=\"%d\" y=\"%d\">%s per cell</text>\n", x, y, h->what);
	for (int s = HIST_SHADES - 1; s >= 1; s--) {
		if (!shade_range(s, max, &lo, &hi))
			continue;
		y += 18;
		fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"%s\"/>", x,
			y - 11, fill[s]);
		if (lo == hi)
			fprintf(f, "<text x=\"%d\" y=\"%d\">%llu</text>\n", x + 20, y, lo);
		else
			fprintf(f, "<text x=\"%d\" y=\"%d\">%llu-%llu</text>\n", x + 20, y, lo, hi);
	}
	y += 18;
	fprintf(f, "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"14\" height=\"14\"/>"
		"<text x=\"%d\" y=\"%d\">none</text>\n", x, y - 11, x + 20, y);
}

static void map_svg(FILE *f, const struct heatmap *h, int lo, int hi, unsigned long long max)
{
	int rows = hi - lo + 1, bottom = Y0 + rows * ROW_H;
	double tmax = h->n && h->cols[h->n - 1].t > 0 ? h->cols[h->n - 1].t : 1;
	double step = tick_step(tmax);
	char label[32], range[48];

	fprintf(f, "<svg class=\"map\" width=\"%d\" height=\"%d\" role=\"img\">\n",
		X0 + PLOT_W + LEGEND_W, bottom + 48);
	/* a line and a label at each slot's lower edge, and the top one */
	for (int s = lo; s <= hi + 1; s++) {
		int y = bottom - (s - lo) * ROW_H;

		edge_label(label, sizeof(label), s);
		fprintf(f, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\"/>"
			"<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n",
			X0, X0 + PLOT_W, y, y, X0 - 6, y + 4, label);
	}
	/* time ticks; k * step, so no error adds up */
	for (int k = 0; k * step <= tmax * 1.0001; k++) {
		double x = X0 + k * step / tmax * PLOT_W;

		fprintf(f, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>"
			"<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>\n",
			x, x, Y0, bottom + 4, x, bottom + 16, k * step);
	}
	/* the cells: one per column and slot with a count */
	for (int c = 0; c < h->n; c++) {
		double t0 = c ? h->cols[c - 1].t : 0, t1 = h->cols[c].t;
		double x = X0 + t0 / tmax * PLOT_W, w = (t1 - t0) / tmax * PLOT_W;
		double gap = w > 4 ? 1 : 0;	/* a white line between wide cells */

		for (int s = lo; s <= hi; s++) {
			unsigned long long n = h->cols[c].slots[s];

			if (!n)
				continue;
			range_label(range, sizeof(range), s);
			fprintf(f, "<rect class=\"cell\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" "
				"height=\"%.0f\" fill=\"%s\" data-t=\"%.3f\" data-slot=\"%d\" "
				"data-count=\"%llu\"><title>%.3f-%.3f s, %s, %s: %llu</title></rect>\n",
				x + gap / 2, bottom - (s - lo + 1) * ROW_H + 0.5,
				w - gap > 1 ? w - gap : 1, ROW_H - 1.0,
				fill[hist_shade(n, max)], t1, s, n, t0, t1, range, h->what, n);
		}
	}
	fprintf(f, "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n",
		X0, Y0, PLOT_W, rows * ROW_H);
	fprintf(f, "<text class=\"axis\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">"
		"time since the start (s)</text>\n", X0 + PLOT_W / 2, bottom + 36);
	fprintf(f, "<text class=\"axis\" transform=\"translate(14 %d) rotate(-90)\" "
		"text-anchor=\"middle\">latency (log2 slots)</text>\n", Y0 + rows * ROW_H / 2);
	legend(f, h, max, X0 + PLOT_W + 24);
	fputs("</svg>\n", f);
}

/* The whole run as bars, one row per slot, slowest at the top as in the map. */
static void bars_svg(FILE *f, const unsigned long long *total, int lo, int hi)
{
	unsigned long long max = 0, all = hist_total(total, HIST_SLOTS);
	char range[48], pct[16];

	for (int s = lo; s <= hi; s++)
		if (total[s] > max)
			max = total[s];
	fprintf(f, "<svg class=\"bars\" width=\"%d\" height=\"%d\" role=\"img\">\n",
		LABEL_W + BAR_W + 120, (hi - lo + 1) * ROW_H + 8);
	for (int s = hi; s >= lo; s--) {
		int y = 4 + (hi - s) * ROW_H;
		double w = max ? (double)total[s] * BAR_W / max : 0;

		range_label(range, sizeof(range), s);
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>", LABEL_W - 8,
			y + 13, range);
		if (total[s]) {
			if (w < 1)	/* a count of 1 in a million still shows */
				w = 1;
			if (100 * total[s] < all)
				snprintf(pct, sizeof(pct), "&lt;1%%");
			else
				snprintf(pct, sizeof(pct), "%.0f%%", 100.0 * total[s] / all);
			fprintf(f, "<rect class=\"bar\" x=\"%d\" y=\"%d\" width=\"%.2f\" "
				"height=\"%d\" data-slot=\"%d\" data-count=\"%llu\"/>"
				"<text x=\"%.2f\" y=\"%d\">%llu (%s)</text>", LABEL_W, y + 2, w,
				ROW_H - 4, s, total[s], LABEL_W + w + 6, y + 13, total[s], pct);
		}
		fputc('\n', f);
	}
	fputs("</svg>\n", f);
}

int heatmap_write(const struct heatmap *h, FILE *f)
{
	unsigned long long total[HIST_SLOTS] = {}, max = 0, all;
	int lo = HIST_SLOTS, hi = -1;
	double span = h->n ? h->cols[h->n - 1].t : 0;

	for (int c = 0; c < h->n; c++) {
		for (int s = 0; s < HIST_SLOTS; s++) {
			unsigned long long n = h->cols[c].slots[s];

			total[s] += n;
			if (n > max)
				max = n;
			if (n && s < lo)
				lo = s;
			if (n && s > hi)
				hi = s;
		}
	}
	all = hist_total(total, HIST_SLOTS);
	/* The slots in use, two more either side, at least MIN_ROWS. */
	if (hi < 0) {
		lo = 0;
		hi = MIN_ROWS - 1;
	}
	lo = lo > 2 ? lo - 2 : 0;
	hi = hi + 2 < HIST_SLOTS ? hi + 2 : HIST_SLOTS - 1;
	while (hi - lo + 1 < MIN_ROWS) {
		if (hi < HIST_SLOTS - 1)
			hi++;
		else
			lo--;
	}

	page_begin(f, h->title, css);
	fputs("<h1>", f);
	page_html_str(f, h->title);
	fputs("</h1>\n", f);
	if (h->note) {
		fputs("<p class=\"meta\">", f);
		page_html_str(f, h->note);
		fputs("</p>\n", f);
	}
	fprintf(f, "<p class=\"meta\">%llu %s in %.1f s, %d columns; the busiest cell holds "
		"%llu.</p>\n", all, h->what, span, h->n, max);
	map_svg(f, h, lo, hi, max);
	fprintf(f, "<p class=\"how\">Each column is one interval of the run, each row one log2 "
		"slot of latency: a row holds %s that took from its lower edge up to the next "
		"one (2ms: 2048-4095 us; the labels write powers of two in whole decimal "
		"units). The darker the cell, the more %s ended in that interval with that "
		"latency; hover over a cell for its count.</p>\n", h->what, h->what);
	fprintf(f, "<h2>The whole run: %llu %s per slot</h2>\n", all, h->what);
	bars_svg(f, total, lo, hi);
	page_end(f, NULL);
	return ferror(f) ? -1 : 0;
}
