// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * heatmap: the latency heat map of a recorded run, as one HTML page
 * (common/heatmap.c, the page tracex3 --heatmap writes), from its JSON
 * lines (docs/plotting.md):
 *   tracex3 --json > run.jsonl       its "interval" objects, a column each;
 *   bio_trace -j > run.jsonl         stages 03-07: the events with a
 *                                    latency_ns, in columns of -i seconds
 *                                    by their end_ns.
 * Our own compact JSON lines only (jq -c keeps them so): it looks for the
 * keys, it is no JSON parser.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "heatmap.h"

#define MAX_COLUMNS 100000	/* 26 MB of columns */
/*
 * What a recorded value may be; beyond it the line is not from a run
 * (hand-edited, or a corrupt file) and would draw outside the map. No
 * run or uptime lasts 1e9 s (31 years); 2^53 counts in all keep the
 * totals and the shading's products from wrapping (and is what jq holds
 * exactly).
 */
#define MAX_SECONDS 1e9
#define MAX_COUNT (1ULL << 53)

static const char usage[] =
	"Usage: heatmap [-o OUT.html] [-i SECONDS] RUN.jsonl\n"
	"Draw the latency heat map of a run recorded with tracex3 --json (one\n"
	"column per interval) or bio_trace -j of stages 03-07 (latency events in\n"
	"columns of -i SECONDS, default 1) as one HTML page.\n"
	"  -o OUT.html   the page (default: RUN.html beside RUN.jsonl; - for stdout)\n"
	"  -i SECONDS    column width for latency events (e.g. 0.1)\n";

/* A latency event: when it ended (end_ns, in s) and its slot. */
struct event {
	double t;
	int slot;
};

/* The number after "key": in line; false if there is none. */
static bool number(const char *line, const char *key, double *v)
{
	char pat[32];
	const char *p;
	char *end;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(line, pat);
	if (!p)
		return false;
	p += strlen(pat);
	*v = strtod(p, &end);
	return end != p;
}

/* "slots":[n0,…,n31] into v; false unless all HIST_SLOTS are there. */
static bool slots(const char *line, unsigned long long *v)
{
	const char *p = strstr(line, "\"slots\":[");
	char *end;
	int n = 0;

	if (!p)
		return false;
	p += strlen("\"slots\":[");
	while (n < HIST_SLOTS) {
		v[n++] = strtoull(p, &end, 10);
		if (end == p)
			return false;
		p = end;
		if (*p != ',')
			break;
		p++;
	}
	return n == HIST_SLOTS && *p == ']';
}

/* A time or latency out of range: one line naming the file, line and key. */
static int bad(const char *in, long lineno, const char *key, double v, const char *want)
{
	fprintf(stderr, "heatmap: %s:%ld: %s %g is out of range: %s\n", in, lineno, key, v,
		want);
	return 1;
}

/* The events in columns of width seconds from the first; 0, or -1 said. */
static int bucket(struct heatmap *h, const struct event *ev, int n, double width)
{
	unsigned long long (*cols)[HIST_SLOTS];
	double t0 = ev[0].t, t1 = ev[0].t;
	long ncols;
	double span;

	for (int i = 1; i < n; i++) {
		if (ev[i].t < t0)	/* CPUs print out of order */
			t0 = ev[i].t;
		if (ev[i].t > t1)
			t1 = ev[i].t;
	}
	/* compared as a double: a cast of more than a long holds is undefined */
	span = (t1 - t0) / width;
	if (span >= MAX_COLUMNS) {
		fprintf(stderr, "heatmap: %g s of events make %g columns of %g s: "
			"give a wider -i\n", t1 - t0, span + 1, width);
		return -1;
	}
	ncols = (long)span + 1;
	cols = calloc(ncols, sizeof(*cols));
	if (!cols)
		goto oom;
	for (int i = 0; i < n; i++) {
		long c = (long)((ev[i].t - t0) / width);

		cols[c < ncols ? c : ncols - 1][ev[i].slot]++;
	}
	for (long c = 0; c < ncols; c++)
		if (heatmap_add(h, (c + 1) * width, cols[c]))
			break;
	free(cols);
	if (h->n == ncols)
		return 0;
oom:
	fprintf(stderr, "heatmap: out of memory\n");
	return -1;
}

int main(int argc, char **argv)
{
	struct heatmap h = { .what = "requests" };
	const char *in, *out = NULL;
	char *line = NULL, *end, title[256], note[256], outname[4096];
	struct event *ev = NULL;
	int nev = 0, cap = 0, c, err = 0;
	bool oom = false;
	double width = 1, t, ns, prev_t = 0;
	unsigned long long count = 0;	/* the run's, so far */
	long lineno = 0;
	size_t len = 0;
	FILE *f;

	while ((c = getopt(argc, argv, "o:i:h")) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'i':
			width = strtod(optarg, &end);
			if (*end || !(width > 0 && width <= 3600)) {
				fprintf(stderr, "heatmap: -i needs seconds above 0, at most 3600, "
					"not '%s'\n", optarg);
				return 2;
			}
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs("Try 'heatmap -h' for more information.\n", stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "heatmap: give one JSON lines file (heatmap -h for more)\n");
		return 2;
	}
	in = argv[optind];
	f = fopen(in, "r");
	if (!f) {
		fprintf(stderr, "heatmap: cannot read %s: %s\n", in, strerror(errno));
		return 1;
	}

	/* tracex3's intervals are columns as they stand; events wait for bucket(). */
	while (getline(&line, &len, f) > 0) {
		unsigned long long v[HIST_SLOTS];

		lineno++;
		if (strstr(line, "\"type\":\"interval\"") && number(line, "t_s", &t) &&
		    slots(line, v)) {
			/* !(a <= b) also refuses NaN */
			if (!(t >= prev_t && t <= MAX_SECONDS))
				return bad(in, lineno, "t_s", t, h.n ?
					   "one run's intervals, in time order, up to 1e9 s" :
					   "seconds from 0 to 1e9");
			prev_t = t;
			for (int s = 0; s < HIST_SLOTS; s++) {
				/* strtoull reads "-1" as 2^64 - 1: caught here too */
				if (v[s] > MAX_COUNT - count) {
					fprintf(stderr, "heatmap: %s:%ld: slot %d's count is out of "
						"range: whole numbers, at most 2^53 in a run\n", in,
						lineno, s);
					return 1;
				}
				count += v[s];
			}
			if ((oom = heatmap_add(&h, t, v)))
				break;
		} else if ((strstr(line, "\"type\":\"latency\"") ||
			    strstr(line, "\"type\":\"rq_latency\"")) &&
			   number(line, "end_ns", &t) && number(line, "latency_ns", &ns)) {
			if (!(t >= 0 && t <= MAX_SECONDS * 1e9))
				return bad(in, lineno, "end_ns", t, "nanoseconds from 0 to 1e18");
			t /= 1e9;	/* the columns are in seconds */
			/* 2^64 ns: as much as a u64 holds */
			if (!(ns >= 0 && ns < 18446744073709551616.0))
				return bad(in, lineno, "latency_ns", ns, "from 0 to 2^64 - 1");
			if (nev == cap) {
				struct event *e = realloc(ev, (cap = cap ? 2 * cap : 1024) * sizeof(*e));

				if ((oom = !e))
					break;
				ev = e;
			}
			ev[nev].t = t;
			/* beyond the last slot in it, as tracex3 counts them */
			ev[nev].slot = hist_slot((unsigned long long)ns / 1000);
			if (ev[nev].slot >= HIST_SLOTS)
				ev[nev].slot = HIST_SLOTS - 1;
			nev++;
			/* stage 03-06 time bios, stage 07 requests */
			h.what = strstr(line, "\"type\":\"rq_latency\"") ? "requests" : "bios";
		}
	}
	err = ferror(f) ? errno : 0;
	free(line);
	fclose(f);
	if (err) {
		fprintf(stderr, "heatmap: cannot read %s: %s\n", in, strerror(err));
		return 1;
	}
	if (oom) {
		fprintf(stderr, "heatmap: out of memory reading %s\n", in);
		return 1;
	}
	if (!h.n && !nev) {
		fprintf(stderr, "heatmap: %s has no \"interval\" objects (tracex3 --json) and no "
			"events with latency_ns (bio_trace -j)\n", in);
		return 1;
	}
	if (h.n) {
		h.what = "requests";
		snprintf(note, sizeof(note), "From %s: tracex3's %d intervals.", in, h.n);
	} else {
		if (bucket(&h, ev, nev, width))
			return 1;
		snprintf(note, sizeof(note), "From %s: %d latency events, a column every %g s "
			 "from the first.", in, nev, width);
	}
	free(ev);
	snprintf(title, sizeof(title), "Latency heat map: %s", in);
	h.title = title;
	h.note = note;

	/* run.jsonl -> run.html */
	if (!out) {
		size_t n = strlen(in);

		if (n > 6 && !strcmp(in + n - 6, ".jsonl"))
			n -= 6;
		else if (n > 5 && !strcmp(in + n - 5, ".json"))
			n -= 5;
		snprintf(outname, sizeof(outname), "%.*s.html", (int)n, in);
		out = outname;
	}
	f = strcmp(out, "-") ? fopen(out, "w") : stdout;
	if (f) {
		err = heatmap_write(&h, f);
		if (f != stdout && fclose(f))
			err = -1;
	}
	if (!f || err) {
		fprintf(stderr, "heatmap: cannot write %s: %s\n", out, strerror(errno));
		return 1;
	}
	fprintf(stderr, "heatmap: wrote %s: %d columns\n", out, h.n);
	heatmap_free(&h);
	return 0;
}
