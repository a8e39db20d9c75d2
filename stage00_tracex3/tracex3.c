// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Stage 00: request latency as a log2 histogram, as the kernel's tracex3 sample. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "heatmap.h"
#include "hist.h"
#include "tracer.h"
#include "tracex3.skel.h"

/* Heat-map columns: slots 0 … 23 (8 s and more in the last one). */
#define HEAT_SLOTS 24

static const struct probe_point *const points[] = {
	&point_rq_start,
	&point_rq_done,
};

static struct {
	long interval;	/* -i: seconds per row */
	bool bars;	/* -b: a bar histogram per interval */
	bool text;	/* -t: characters even on a terminal */
	const char *heatmap;	/* --heatmap: every interval as a page, at exit */
} opts = { .interval = 1 };

enum { OPT_HEATMAP = 0x200 };	/* a long option only */

static const struct argp_option options[] = {
	{ "interval", 'i', "SECONDS", 0, "One row every SECONDS (default 1)", 0 },
	{ "bars", 'b', NULL, 0, "Each interval as a histogram of bars, not a heat-map row", 0 },
	{ "text", 't', NULL, 0, "Characters, not colours, even on a terminal", 0 },
	{ "heatmap", OPT_HEATMAP, "FILE", 0,
	  "At exit, write every interval to FILE as a heat-map page (HTML)", 0 },
	{},
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'i':
		opts.interval = parse_positive(arg, 3600);
		if (opts.interval < 0)
			argp_error(state, "--interval needs whole seconds from 1 to 3600, not '%s'",
				   arg);
		break;
	case 'b':
		opts.bars = true;
		break;
	case 't':
		opts.text = true;
		break;
	case OPT_HEATMAP:
		opts.heatmap = arg;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child children[] = {
	{ &common_argp, 0, NULL, 0 },
	{ &json_argp, 0, NULL, 0 },
	{},
};

static const struct argp argp = {
	.options = options,
	.parser = parse_opt,
	.children = children,
	.doc = "Show request latency (blk_mq_start_request() to the request's end) as a\n"
	       "log2 histogram: a heat-map row per second, as samples/bpf/tracex3 did,\n"
	       "and the whole run's histogram on exit.\v"
	       "Examples:\n"
	       "  tracex3                    # every disk, a row per second\n"
	       "  tracex3 -d loop0 -i 5      # one disk, a row per 5 seconds\n"
	       "  tracex3 -b                 # a histogram of bars per interval\n"
	       "  tracex3 --heatmap run.html # also a page of every interval, at exit\n"
	       "  tracex3 --duration 10 -q   # no rows: the histogram and the summary, after 10 s",
};

struct view {
	int fd;			/* the per-CPU histogram map */
	int ncpu;
	unsigned long long *percpu;
	unsigned long long total[HIST_SLOTS];	/* since we attached */
	unsigned long long shown[HIST_SLOTS];	/* up to the last row */
	bool rows;		/* print rows at all (not -q) */
	bool color;		/* a terminal, and not -t */
	int since_scale;	/* rows since the scale line */
	FILE *page;		/* --heatmap: opened before tracing */
	struct heatmap heat;	/* every interval, for the page */
};

/* Add up every CPU's copy of each slot. */
static int read_hist(struct view *v)
{
	for (__u32 slot = 0; slot < HIST_SLOTS; slot++) {
		if (bpf_map_lookup_elem(v->fd, &slot, v->percpu)) {
			fprintf(stderr, "tracex3: cannot read the histogram: %m\n");
			return -1;
		}
		v->total[slot] = 0;
		for (int c = 0; c < v->ncpu; c++)
			v->total[slot] += v->percpu[c];
	}
	return 0;
}

/* Left edge of a slot, in a few characters: 0, 16us, 4ms, 1s. */
static void slot_label(char *buf, size_t len, int slot)
{
	unsigned long long us = slot ? 1ULL << slot : 0;

	if (us < 1000)
		snprintf(buf, len, "%lluus", us);
	else if (us < 1000000)
		snprintf(buf, len, "%llums", us / 1000);
	else
		snprintf(buf, len, "%llus", us / 1000000);
}

static void print_scale(void)
{
	char label[16];

	printf("%-8s |", "time");
	for (int slot = 0; slot < HEAT_SLOTS; slot += 4) {
		slot_label(label, sizeof(label), slot);
		printf("%-*s", 4 * HIST_CELL, label);
	}
	printf("| # requests\n");
}

/* Seconds since the first call: the end of each interval, for --json. */
static double since_start(void)
{
	static struct timespec t0;
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (!t0.tv_sec && !t0.tv_nsec)
		t0 = ts;
	return (ts.tv_sec - t0.tv_sec) + (ts.tv_nsec - t0.tv_nsec) / 1e9;
}

static void print_rows(struct view *v, unsigned long long *delta, double t)
{
	char when[16], row[512];
	unsigned long long heat[HEAT_SLOTS] = {};
	time_t now = time(NULL);

	strftime(when, sizeof(when), "%H:%M:%S", localtime(&now));
	if (env.json) {
		/* slots[i]: requests of 2^i to 2^(i+1) - 1 us (slot 0 also 0) */
		json_begin("interval");
		json_str("time", when);
		json_num("t_s", t);
		json_u64("count", hist_total(delta, HIST_SLOTS));
		json_u64s("slots", delta, HIST_SLOTS);
		json_end();
		return;
	}
	if (opts.bars) {
		if (v->color)
			printf("\033[H\033[2J");	/* redraw in place */
		printf("%s: %llu requests in %ld s\n", when, hist_total(delta, HIST_SLOTS),
		       opts.interval);
		print_log2_hist(stdout, delta, HIST_SLOTS, "usecs");
		return;
	}
	/* The last column holds everything slower. */
	for (int i = 0; i < HIST_SLOTS; i++)
		heat[i < HEAT_SLOTS ? i : HEAT_SLOTS - 1] += delta[i];
	if (v->since_scale++ % 20 == 0)
		print_scale();
	hist_heat_row(row, sizeof(row), heat, HEAT_SLOTS, v->color);
	printf("%s |%s| # %llu\n", when, row, hist_total(delta, HIST_SLOTS));
}

/* One interval: what completed since the last row; at the end, if anything. */
static int show_interval(struct view *v, bool last)
{
	unsigned long long delta[HIST_SLOTS];
	/* whole microseconds, as --json prints it: the page's times are the same */
	double t = (long long)(since_start() * 1e6 + 0.5) / 1e6;

	if (read_hist(v))
		return -1;
	for (int i = 0; i < HIST_SLOTS; i++) {
		delta[i] = v->total[i] - v->shown[i];
		v->shown[i] = v->total[i];
	}
	if (last && !hist_total(delta, HIST_SLOTS))
		return 0;
	if (v->rows)
		print_rows(v, delta, t);
	if (v->page && heatmap_add(&v->heat, t, delta)) {
		fprintf(stderr, "tracex3: out of memory for the heat map\n");
		return -1;
	}
	return 0;
}

/* --heatmap: the page of every interval (common/heatmap.c). */
static int write_page(struct view *v, struct tracer *t)
{
	char title[128], note[128];
	int err;

	snprintf(title, sizeof(title), "tracex3: request latency, %s -> %s",
		 doors_target(&t->doors, &point_rq_start), doors_target(&t->doors, &point_rq_done));
	snprintf(note, sizeof(note), "Disk %s, %s door, a column every %ld s.",
		 env.disk ? env.disk : "every disk", door_name(doors_door(&t->doors, &point_rq_done)),
		 opts.interval);
	v->heat.title = title;
	v->heat.note = note;
	v->heat.what = "requests";
	err = heatmap_write(&v->heat, v->page);
	if (fclose(v->page) || err) {
		fprintf(stderr, "%s: cannot write %s: %s\n", t->name, opts.heatmap, strerror(errno));
		err = -1;
	}
	v->page = NULL;
	return err;
}

static int tick(void *arg)
{
	return show_interval(arg, false);
}

int main(int argc, char **argv)
{
	struct tracer t = TRACER_INIT("tracex3");
	struct view v = {};
	struct tracex3_bpf *skel;
	int err;

	parse_args(&argp, argc, argv, NULL);
	if (tracer_preflight(t.name))
		return 1;
	/* A file we cannot write is bad input: say so before tracing. */
	if (opts.heatmap && !(v.page = fopen(opts.heatmap, "w"))) {
		fprintf(stderr, "%s: cannot write %s: %s\n", t.name, opts.heatmap, strerror(errno));
		return 1;
	}

	/*
	 * Open the skeleton, set read-only data and choose the doors before
	 * load. If the programs fail to load, -a auto tries the next door:
	 * libbpf loads an object once, so that takes a new one.
	 */
	for (;;) {
		skel = tracex3_bpf__open();
		if (!skel) {
			fprintf(stderr, "%s: cannot open BPF object\n", t.name);
			return 1;
		}
		skel->rodata->targ_dev = env.dev;

		err = tracer_select(&t, skel->obj, points, ARRAY_SIZE(points));
		if (err)
			goto cleanup;
		/* BIO_CLONED's bit on this kernel, from its BTF (bio_end.bpf.h) */
		skel->rodata->bio_cloned_flag = t.doors.bio_cloned;
		err = tracex3_bpf__load(skel);
		if (!tracer_next_door(&t, err))
			break;
		tracex3_bpf__destroy(skel);
	}
	if (err)
		goto cleanup;
	t.stats = skel->maps.stats;	/* the summary's counters */
	t.start = skel->maps.start;	/* and the I/O in flight at exit */
	v.fd = bpf_map__fd(skel->maps.hist);
	v.ncpu = libbpf_num_possible_cpus();
	v.percpu = calloc(v.ncpu > 0 ? v.ncpu : 1, sizeof(*v.percpu));
	if (v.ncpu <= 0 || !v.percpu) {
		fprintf(stderr, "%s: cannot count the CPUs\n", t.name);
		err = -1;
		goto cleanup;
	}
	v.rows = !env.quiet;
	v.color = isatty(STDOUT_FILENO) && !opts.text;
	err = tracer_attach(&t);
	if (err)
		goto cleanup;

	since_start();
	if (env.json) {
		json_begin("start");
		json_str("end", doors_target(&t.doors, &point_rq_done));
		json_u64("interval_s", opts.interval);
		json_str("unit", "us");
		json_end();
	} else {
		printf("Request latency: %s -> %s, log2 slots of usecs\n",
		       doors_target(&t.doors, &point_rq_start),
		       doors_target(&t.doors, &point_rq_done));
	}
	t.interval_ms = opts.interval * 1000;
	t.tick = tick;
	t.arg = &v;
	err = tracer_run(&t);

	/* The part of an interval before Ctrl-C (the page too), then the run. */
	if (show_interval(&v, true))
		err = -1;
	if (err) {
		/* stdout failed (one line said so): the page is still written */
	} else if (env.json) {
		json_begin("hist");
		json_u64("count", hist_total(v.total, HIST_SLOTS));
		json_u64s("slots", v.total, HIST_SLOTS);
		json_end();
	} else {
		printf("\nAll requests:\n");
		print_log2_hist(stdout, v.total, HIST_SLOTS, "usecs");
	}
	if (!err)
		err = tracer_summary(&t);
	if (v.page && write_page(&v, &t))
		err = -1;
cleanup:
	if (v.page) {	/* tracing never started: no half-made file */
		fclose(v.page);
		unlink(opts.heatmap);
	}
	heatmap_free(&v.heat);
	tracer_close(&t);
	tracex3_bpf__destroy(skel);
	free(v.percpu);
	return err ? 1 : 0;
}
