// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* bio_trace, the user side: options, open, load, attach, run, summary. */
#include <stdio.h>
#include <string.h>
#include "tracer.h"
#include "bio_trace.skel.h"

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
	.doc = "Print the time of every submit_bio() and bio_endio() call.\v"
	       "Examples:\n"
	       "  bio_trace                  # every disk, until Ctrl-C\n"
	       "  bio_trace -d loop0         # one disk\n"
	       "  bio_trace -a tracepoint    # force the tracepoint door\n"
	       "  bio_trace --duration 5 -q  # counts only, for 5 seconds",
};

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
	t.stats = skel->maps.stats;	/* the summary's counters */
	err = tracer_attach(&t);
	if (err)
		goto cleanup;

	err = tracer_run(&t);
	if (!err)
		err = tracer_summary(&t);
cleanup:
	tracer_close(&t);
	bio_trace_bpf__destroy(skel);
	return err ? 1 : 0;
}
