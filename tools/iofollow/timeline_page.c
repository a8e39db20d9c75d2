// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * iofollow --html: the page of three timelines. Each sample is drawn on
 * the path whose end came last (the one its call waited for): a bar for
 * the call in the page cache's lane, then a line through its folio (page
 * cache), its bio's queueing (bio) and its request's issue and end
 * (request), each hop a dot, the sample's name at its folio. An SVG
 * drawn here, in C: the page needs no script to show it.
 */
#include <errno.h>
#include <stdio.h>
#include "page.h"
#include "timeline_page.h"

#define SAMPLES_DRAWN 256

/* What the picture needs of a sample: its call and its last path's hops. */
struct drawn {
	__u64 id, t0, ret_ts, fsync_t1;
	__u64 hop[4];	/* folio, bio queued, request issued, request done (0: not seen) */
	long ret;
};

static struct drawn drawn[SAMPLES_DRAWN];
static int ndrawn;
static __u64 not_drawn;

void timeline_add(const struct sample *s)
{
	const struct path *p = NULL;
	struct drawn *d;

	for (int i = 0; i < s->n; i++)
		if (s->p[i].done.ts && (!p || s->p[i].done.ts > p->done.ts))
			p = &s->p[i];
	if (!p)
		return;	/* not to the disk and back: nothing to draw */
	if (ndrawn == SAMPLES_DRAWN) {
		not_drawn++;
		return;
	}
	d = &drawn[ndrawn++];
	*d = (struct drawn){ s->id, s->t0, s->returned ? s->call.ts : 0, s->fsync_t1,
			     { p->dirty.ts, p->queue.ts, p->issue.ts, p->done.ts }, s->ret };
}

/* The picture's geometry: a lane per timeline, time from left to right. */
#define LEFT	110
#define WIDTH	1000
#define LANE	90
#define TOP	40

static const char *const lanes[] = { "page cache", "bio", "request" };
/* the lane of each hop of struct drawn */
static const int hop_lane[4] = { 0, 1, 2, 2 };

static __u64 t_min, t_max;

static double x_of(__u64 t)
{
	return LEFT + (double)(t - t_min) * WIDTH / (t_max > t_min ? t_max - t_min : 1);
}

static double y_of(int lane)
{
	return TOP + LANE / 2.0 + lane * LANE;
}

static const char css[] =
	"body { font: 14px sans-serif; margin: 1em; }\n"
	"svg text { font: 12px sans-serif; }\n"
	".lane { fill: #f4f4f8; stroke: #ccc; }\n"
	".call { fill: #9ecae1; }\n"
	".path { fill: none; stroke-width: 1.5; }\n"
	"table { border-collapse: collapse; margin-top: 1em; }\n"
	"td, th { border: 1px solid #ccc; padding: 2px 8px; text-align: right; }\n";

/* a sample's colour, from its place in the picture */
static void colour(FILE *f, int i)
{
	fprintf(f, "hsl(%d,70%%,40%%)", (i * 137) % 360);
}

int timeline_write(const char *path)
{
	FILE *f = fopen(path, "w");
	char title[96];
	int h = TOP + 3 * LANE + 40, err;

	if (!f)
		return -errno;
	t_min = ~0ULL;
	t_max = 0;
	for (int i = 0; i < ndrawn; i++) {
		if (drawn[i].t0 && drawn[i].t0 < t_min)
			t_min = drawn[i].t0;
		for (int k = 0; k < 4; k++) {
			if (drawn[i].hop[k] && drawn[i].hop[k] < t_min)
				t_min = drawn[i].hop[k];
			if (drawn[i].hop[k] > t_max)
				t_max = drawn[i].hop[k];
		}
	}
	snprintf(title, sizeof(title), "iofollow: %d sampled %s calls, page cache to disk",
		 ndrawn, follow_read ? "read()" : "write()");
	page_begin(f, title, css);
	fputs("<h1>", f);
	page_html_str(f, title);
	fputs("</h1>\n", f);
	if (!ndrawn) {
		fputs("<p>No sample reached the disk and back during the run.</p>\n", f);
		goto end;
	}
	fprintf(f, "<p>Time from left to right: %.3f us in all. Each sample is drawn on the "
		"path its call waited for: its folio, its bio queued, its request issued and "
		"done.%s</p>\n", (t_max - t_min) / 1e3,
		not_drawn ? " Samples past the first 256 are not drawn." : "");
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\">\n",
		LEFT + WIDTH + 40, h);
	for (int l = 0; l < 3; l++) {
		fprintf(f, "<rect class=\"lane\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>"
			"<text x=\"4\" y=\"%.1f\">%s</text>\n", LEFT, TOP + l * LANE, WIDTH,
			LANE - 6, y_of(l) + 4, lanes[l]);
	}
	for (int i = 0; i < ndrawn; i++) {
		const struct drawn *d = &drawn[i];
		const char *sep = "";

		if (d->t0 && d->ret_ts)
			fprintf(f, "<rect class=\"call\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
				"height=\"6\"/>\n", x_of(d->t0), TOP + 4,
				x_of(d->ret_ts) - x_of(d->t0) + 1);
		fprintf(f, "<polyline class=\"path\" data-sample=\"%llu\" stroke=\"",
			(unsigned long long)d->id);
		colour(f, i);
		fputs("\" points=\"", f);
		for (int k = 0; k < 4; k++) {
			if (!d->hop[k])
				continue;
			fprintf(f, "%s%.1f,%.1f", sep, x_of(d->hop[k]), y_of(hop_lane[k]));
			sep = " ";
		}
		fputs("\"/>\n", f);
		for (int k = 0; k < 4; k++)
			if (d->hop[k]) {
				fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"",
					x_of(d->hop[k]), y_of(hop_lane[k]));
				colour(f, i);
				fputs("\"/>\n", f);
			}
		fprintf(f, "<text class=\"label\" x=\"%.1f\" y=\"%.1f\">S%llu</text>\n",
			x_of(d->hop[0]) - 6, y_of(0) + 18 + (i % 3) * 12, (unsigned long long)d->id);
	}
	fputs("</svg>\n<table>\n<tr><th>sample</th><th>returned</th><th>page cache us</th>"
	      "<th>queued us</th><th>device us</th></tr>\n", f);
	for (int i = 0; i < ndrawn; i++) {
		const struct drawn *d = &drawn[i];

		fprintf(f, "<tr><td>S%llu</td><td>%ld</td><td>%.3f</td><td>%.3f</td>"
			"<td>%.3f</td></tr>\n", (unsigned long long)d->id, d->ret,
			d->hop[1] ? (d->hop[1] - d->hop[0]) / 1e3 : 0.0,
			d->hop[2] && d->hop[1] ? (d->hop[2] - d->hop[1]) / 1e3 : 0.0,
			d->hop[3] && d->hop[2] ? (d->hop[3] - d->hop[2]) / 1e3 : 0.0);
	}
	fputs("</table>\n", f);
end:
	page_end(f, NULL);
	err = ferror(f) ? -EIO : 0;
	if (fclose(f) && !err)
		err = -errno;
	return err;
}
