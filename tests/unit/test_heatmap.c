// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of common/heatmap.c: the page's cells, legend and bars. */
#include <stdlib.h>
#include <string.h>
#include "heatmap.h"
#include "tap.h"

/* The page for h, in memory (caller frees). */
static char *page(const struct heatmap *h)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	heatmap_write(h, f);
	fclose(f);
	return buf;
}

/* The number after attr=" in s, or -1. */
static long long attr(const char *s, const char *attr)
{
	char pat[32];
	const char *p;

	snprintf(pat, sizeof(pat), "%s=\"", attr);
	p = strstr(s, pat);
	return p ? strtoll(p + strlen(pat), NULL, 10) : -1;
}

/* Sum and number of the rects of class cls; -1 if any has no data-count. */
static long long rects(const char *s, const char *cls, int *n)
{
	char pat[32];
	long long sum = 0;

	snprintf(pat, sizeof(pat), "<rect class=\"%s\"", cls);
	*n = 0;
	for (s = strstr(s, pat); s; s = strstr(s + 1, pat)) {
		long long c = attr(s, "data-count");

		if (c < 0)
			return -1;
		sum += c;
		(*n)++;
	}
	return sum;
}

/*
 * Every cell's fill is the legend's for the range that holds its count
 * (the legend's 14 px boxes, each followed by "lo-hi" or "n").
 */
static bool cells_match_legend(const char *s)
{
	for (const char *c = strstr(s, "<rect class=\"cell\""); c;
	     c = strstr(c + 1, "<rect class=\"cell\"")) {
		long long n = attr(c, "data-count");
		const char *fill = strstr(c, "fill=\"") + 6, *box;
		bool found = false;

		for (box = strstr(s, "height=\"14\" fill=\""); box;
		     box = strstr(box + 1, "height=\"14\" fill=\"")) {
			const char *t = strstr(box, "<text");
			unsigned long long lo, hi;
			int k;

			t = t ? strchr(t, '>') : NULL;
			if (!t)
				return false;
			k = sscanf(t + 1, "%llu-%llu", &lo, &hi);
			if (k == 1)
				hi = lo;
			if (k >= 1 && (unsigned long long)n >= lo && (unsigned long long)n <= hi) {
				found = !strncmp(box + 18, fill, 7);
				break;
			}
		}
		if (!found)
			return false;
	}
	return true;
}

int main(void)
{
	unsigned long long s[HIST_SLOTS] = {};
	struct heatmap h = { .title = "a <b> & c", .what = "requests" };
	long long sum;
	char *out;
	int n, bad;

	out = page(&h);
	ok(strstr(out, "0 requests in 0.0 s, 0 columns") != NULL, "an empty run: a page that says so");
	is_int(rects(out, "cell", &n), 0, "an empty run: no cells");
	free(out);

	/* three columns: 10 in slot 11, then 1 and 3, then nothing */
	s[11] = 10;
	heatmap_add(&h, 1.0, s);
	memset(s, 0, sizeof(s));
	s[4] = 1;
	s[11] = 3;
	heatmap_add(&h, 2.0, s);
	memset(s, 0, sizeof(s));
	heatmap_add(&h, 2.5, s);
	out = page(&h);
	ok(!strncmp(out, "<!DOCTYPE html>", 15) && strstr(out, "</html>\n"), "a whole page");
	ok(strstr(out, "a &lt;b&gt; &amp; c") && !strstr(out, "<b>"), "the title is escaped");
	ok(!strstr(out, "http") && !strstr(out, "src=") && !strstr(out, "<link") &&
	   !strstr(out, "<script"), "self-contained: nothing fetched, no script");
	is_int(rects(out, "cell", &n), 14, "the cells add up to the 14 counted");
	is_int(n, 3, "one cell per column and slot with a count");
	is_int(rects(out, "bar", &n), 14, "the bars add up to 14");
	is_int(n, 2, "one bar per slot with a count");
	ok(strstr(out, "data-t=\"2.000\" data-slot=\"4\" data-count=\"1\"") != NULL,
	   "a cell names its column's end, its slot, its count");
	ok(strstr(out, ">2ms</text>") && strstr(out, ">16us</text>"),
	   "slot edges labelled with units (2ms, 16us)");
	/* slots 4 and 11 used: rows 2 (4-7 us) to 13 (8192-16383 us) */
	ok(strstr(out, ">4us</text>") && strstr(out, ">16ms</text>") && !strstr(out, ">2us</text>") &&
	   !strstr(out, ">32ms</text>"), "the slots used and two more either side: 4us to 16ms");
	ok(strstr(out, "time since the start (s)") && strstr(out, ">2.5</text>"),
	   "the time axis, labelled in seconds");
	ok(strstr(out, "2048-4095 us") != NULL, "the bars name each slot's exact range");
	ok(cells_match_legend(out), "each cell has the legend's colour for its count");
	free(out);

	/* the legend's ranges meet hist_shade() for every max and count */
	bad = 0;
	for (unsigned long long max = 1; max <= 60 && !bad; max++) {
		struct heatmap g = { .title = "t", .what = "bios" };

		for (unsigned long long c = 1; c <= max; c++) {
			memset(s, 0, sizeof(s));
			s[c % HIST_SLOTS] = c;
			heatmap_add(&g, c, s);
		}
		out = page(&g);
		sum = rects(out, "cell", &n);
		bad = !cells_match_legend(out) || sum != (long long)(max * (max + 1) / 2);
		if (bad)
			printf("#   max %llu\n", max);
		free(out);
		heatmap_free(&g);
	}
	ok(!bad, "legend ranges and cell colours agree for busiest counts 1 to 60");
	heatmap_free(&h);
	return done();
}
