// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Stage 02, solved: completions by CPU, to see how the completion
 * interrupts are spread (BPF Performance Tools, chapter 9, exercise 3).
 * The BPF side is stage 02's, unchanged: its per-CPU "stats" map already
 * counts each completion on the CPU that ran it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "stats.h"
#include "tracer.h"
#include "bio_trace.skel.h"

#define BAR_WIDTH 40

static const struct probe_point *const points[] = {
	&point_submit_bio,
	&point_bio_endio,
};

static const struct argp_child children[] = {
	{ &common_argp, 0, NULL, 0 },
	{},
};

static const struct argp argp = {
	.children = children,
	.doc = "Count bio completions by the CPU that ran them.\v"
	       "Examples:\n"
	       "  bio_trace -q                 # every disk, until Ctrl-C\n"
	       "  bio_trace -q -d loop0 --duration 10",
};

/* One line per CPU that completed anything, with a bar scaled to the most. */
static int print_by_cpu(struct bpf_map *stats)
{
	int ncpu = libbpf_num_possible_cpus();
	__u32 key = STAT_DONE;
	__u64 *done, most = 0;

	if (ncpu <= 0)
		return -1;
	done = calloc(ncpu, sizeof(*done));
	if (!done || bpf_map_lookup_elem(bpf_map__fd(stats), &key, done)) {
		fprintf(stderr, "bio_trace: cannot read the per-CPU counts: %s\n", strerror(errno));
		free(done);
		return -1;
	}
	for (int c = 0; c < ncpu; c++)
		if (done[c] > most)
			most = done[c];
	printf("%-6s : %-8s distribution\n", "cpu", "count");
	for (int c = 0; c < ncpu; c++) {
		int len = most ? (int)(done[c] * BAR_WIDTH / most) : 0;

		if (!done[c])
			continue;
		printf("%-6d : %-8llu |%.*s%*s|\n", c, (unsigned long long)done[c],
		       len, "****************************************", BAR_WIDTH - len, "");
	}
	free(done);
	return 0;
}

int main(int argc, char **argv)
{
	struct tracer t = TRACER_INIT("bio_trace");
	struct bio_trace_bpf *skel;
	int err;

	/*
	 * Lesson#1: bpf_printk() writes to the kernel's trace buffer, which
	 * every BPF program on the machine shares; we read our own instance
	 * of it (tracefs.c). Stage 03 moves to a channel of its own.
	 */
	t.printk = true;
	parse_args(&argp, argc, argv, NULL);
	if (tracer_preflight(t.name))
		return 1;

	/*
	 * Open the skeleton, set read-only data and choose the doors before
	 * load. If the programs fail to load, -a auto tries the next door:
	 * libbpf loads an object once, so that takes a new one.
	 */
	for (;;) {
		skel = bio_trace_bpf__open();
		if (!skel) {
			fprintf(stderr, "%s: cannot open BPF object\n", t.name);
			return 1;
		}
		skel->rodata->quiet = env.quiet;
		skel->rodata->targ_dev = env.dev;

		err = tracer_select(&t, skel->obj, points, ARRAY_SIZE(points));
		if (err)
			goto cleanup;
		/* BIO_CLONED's bit on this kernel, from its BTF (bio_end.bpf.h) */
		skel->rodata->bio_cloned_flag = t.doors.bio_cloned;
		err = bio_trace_bpf__load(skel);
		if (!tracer_next_door(&t, err))
			break;
		bio_trace_bpf__destroy(skel);
	}
	if (err)
		goto cleanup;
	err = tracer_attach(&t);
	if (err)
		goto cleanup;

	err = tracer_run(&t);
	/* Solution: read the per-CPU slots instead of only their sum. */
	if (!err)
		err = print_by_cpu(skel->maps.stats);
	if (!err)
		err = tracer_summary(&t);
cleanup:
	tracer_close(&t);
	bio_trace_bpf__destroy(skel);
	return err ? 1 : 0;
}
