// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Stage 00: request latency as a log2 histogram, as the kernel's tracex3 sample. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
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
} opts = { .interval = 1 };

static const struct argp_option options[] = {
	{ "interval", 'i', "SECONDS", 0, "One row every SECONDS (default 1)", 0 },
	{ "bars", 'b', NULL, 0, "Each interval as a histogram of bars, not a heat-map row", 0 },
	{ "text", 't', NULL, 0, "Characters, not colours, even on a terminal", 0 },
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
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child children[] = {
	{ &common_argp, 0, NULL, 0 },
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
	       "  tracex3 --duration 10 -q   # the summary only, after 10 seconds",
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

static void print_rows(struct view *v, unsigned long long *delta)
{
	char when[16], row[512];
	unsigned long long heat[HEAT_SLOTS] = {};
	time_t now = time(NULL);

	strftime(when, sizeof(when), "%H:%M:%S", localtime(&now));
	if (opts.bars) {
		if (v->color)
			printf("\033[H\033[2J");	/* redraw in place */
		printf("%s: %llu requests in %ld s\n", when, hist_total(delta, HIST_SLOTS),
		       opts.interval);
		print_log2_hist(stdout, delta, HIST_SLOTS, "usecs");
		fflush(stdout);
		return;
	}
	/* The last column holds everything slower. */
	for (int i = 0; i < HIST_SLOTS; i++)
		heat[i < HEAT_SLOTS ? i : HEAT_SLOTS - 1] += delta[i];
	if (v->since_scale++ % 20 == 0)
		print_scale();
	hist_heat_row(row, sizeof(row), heat, HEAT_SLOTS, v->color);
	printf("%s |%s| # %llu\n", when, row, hist_total(delta, HIST_SLOTS));
	fflush(stdout);
}

/* One interval: what completed since the last row; at the end, if anything. */
static int show_interval(struct view *v, bool last)
{
	unsigned long long delta[HIST_SLOTS];

	if (read_hist(v))
		return -1;
	for (int i = 0; i < HIST_SLOTS; i++) {
		delta[i] = v->total[i] - v->shown[i];
		v->shown[i] = v->total[i];
	}
	if (v->rows && !(last && !hist_total(delta, HIST_SLOTS)))
		print_rows(v, delta);
	return 0;
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
		err = tracex3_bpf__load(skel);
		if (!tracer_next_door(&t, err))
			break;
		tracex3_bpf__destroy(skel);
	}
	if (err)
		goto cleanup;
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
	/* No bpf_printk here: quiet, so the loader opens no trace instance. */
	env.quiet = true;
	err = tracer_attach(&t);
	if (err)
		goto cleanup;

	printf("Request latency: blk_mq_start_request -> %s, log2 slots of usecs\n",
	       doors_target(&t.doors, 1));
	t.interval_ms = opts.interval * 1000;
	t.tick = tick;
	t.arg = &v;
	tracer_run(&t);

	/* The part of an interval before Ctrl-C, then the whole run. */
	err = show_interval(&v, true);
	printf("\nAll requests:\n");
	print_log2_hist(stdout, v.total, HIST_SLOTS, "usecs");
	tracer_summary(&t);
cleanup:
	tracer_close(&t);
	tracex3_bpf__destroy(skel);
	free(v.percpu);
	return err ? 1 : 0;
}
