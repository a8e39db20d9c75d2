// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* bio_trace, the user side: options, open, load, attach, run, summary. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "tracer.h"
#include "bio_trace.h"
#include "bio_trace.skel.h"

static const struct probe_point *const points[] = {
	&point_rq_start,
	&point_rq_done,
};

static const struct argp_child children[] = {
	{ &common_argp, 0, NULL, 0 },
	{ &json_argp, 0, NULL, 0 },
	{},
};

static const struct argp argp = {
	.children = children,
	.doc = "Print the latency of each request, from blk_mq_start_request() to its end.\v"
	       "Examples:\n"
	       "  bio_trace                  # every disk, until Ctrl-C\n"
	       "  bio_trace -d loop0         # one disk\n"
	       "  bio_trace -a tracepoint    # force the tracepoint door\n"
	       "  bio_trace --duration 5 -q  # counts only, for 5 seconds",
};

/* The lines name the points this kernel's doors offer: functions or tracepoints. */
static const char *start_name, *done_name;

/* Lesson#3: called by ring_buffer__poll() for each event the BPF side sent. */
static int handle_event(void *ctx, void *data, size_t size)
{
	const struct event *e = data;
	const char *end = e->batch ? "blk_mq_end_request_batch" : done_name;

	if (env.json) {
		json_begin("rq_latency");
		json_hex("rq", e->rq);
		json_str("function", end);
		json_u64("start_ns", e->start_ns);
		json_u64("end_ns", e->end_ns);
		json_u64("latency_ns", e->latency_ns);
		json_end();
	} else {
		printf("rq 0x%llx: %s() -> %s() time duration: %llu ns\n",
		       (unsigned long long)e->rq, start_name, end,
		       (unsigned long long)e->latency_ns);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct tracer t = TRACER_INIT("bio_trace");
	struct bio_trace_bpf *skel;
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
	t.start = skel->maps.start;	/* and the I/O in flight at exit */
	start_name = doors_target(&t.doors, &point_rq_start);
	done_name = doors_target(&t.doors, &point_rq_done);
	/* Lesson#3: the events map's reader; tracer_run() polls it. */
	t.rb = ring_buffer__new(bpf_map__fd(skel->maps.events), handle_event, NULL, NULL);
	if (!t.rb) {
		err = -errno;
		fprintf(stderr, "%s: cannot read the ring buffer: %s\n", t.name, strerror(errno));
		goto cleanup;
	}
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
