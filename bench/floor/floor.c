// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The floor of the overhead lab: a histogram of request latency taken at
 * block_rq_complete from the block layer's own start timestamps.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "tracer.h"
#include "hist.h"
#include "floor.skel.h"

/* Only a tracepoint: there is no kernel function to put the other doors on. */
static const struct probe_point point_floor = {
	.name = "rq_done",
	.tps = { "block_rq_complete" },
	.stat = -1,	/* the histogram counts; a second counter costs time */
};

static const struct probe_point *const points[] = { &point_floor };

static const struct argp_child children[] = {
	{ &common_argp, 0, NULL, 0 },
	{},
};

static const struct argp argp = {
	.doc = "Histogram of request latency, from the request's own start time "
	       "to block_rq_complete: the cheapest latency tracer, the lower "
	       "bound of the overhead lab.\v"
	       "Examples:\n"
	       "  floor -d loop0              # one disk, until Ctrl-C\n"
	       "  floor --duration 5          # every disk, for 5 seconds",
	.children = children,
};

/* Sum the per-CPU slots of the histogram and print it. */
static int dump_hist(struct floor_bpf *skel)
{
	int ncpu = libbpf_num_possible_cpus(), fd = bpf_map__fd(skel->maps.hist);
	unsigned long long slots[HIST_SLOTS] = {}, *vals;

	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return -1;
	for (__u32 k = 0; k < HIST_SLOTS; k++) {
		if (bpf_map_lookup_elem(fd, &k, vals))
			continue;
		for (int c = 0; c < ncpu; c++)
			slots[k] += vals[c];
	}
	free(vals);
	print_log2_hist(stdout, slots, HIST_SLOTS, "usecs");
	return 0;
}

int main(int argc, char **argv)
{
	struct tracer t = TRACER_INIT("floor");
	struct floor_bpf *skel;
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
		skel = floor_bpf__open();
		if (!skel) {
			fprintf(stderr, "%s: cannot open BPF object\n", t.name);
			return 1;
		}
		skel->rodata->targ_dev = env.dev;
		env.quiet = true;		/* so no trace instance is made */

		err = tracer_select(&t, skel->obj, points, ARRAY_SIZE(points));
		if (err)
			goto cleanup;
		err = floor_bpf__load(skel);
		if (!tracer_next_door(&t, err))
			break;
		floor_bpf__destroy(skel);
	}
	if (err)
		goto cleanup;
	t.stats = skel->maps.stats;	/* the summary's counters */
	err = tracer_attach(&t);
	if (err)
		goto cleanup;

	err = tracer_run(&t);
	if (!err)
		err = dump_hist(skel);
	if (!err)
		err = tracer_summary(&t);
cleanup:
	tracer_close(&t);
	floor_bpf__destroy(skel);
	return err ? 1 : 0;
}
