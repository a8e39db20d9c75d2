// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Stage 03, solved: completed bios as CSV rows on stdout,
 *   completion_time,direction,latency_ms
 * one per event from the ring buffer, completion_time in seconds since
 * tracing began. The summary lines (Events:, Lost: ...) follow the rows
 * at the end, as in every stage.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "tracer.h"
#include "bio_trace.h"
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
	.doc = "Print each completed bio as CSV: completion_time,direction,latency_ms.\v"
	       "Examples:\n"
	       "  bio_trace -d sda --duration 120 > io.csv   # two minutes, to plot",
};

static __u64 t0_ns;	/* CLOCK_MONOTONIC before attach: bpf_ktime_get_ns()'s clock */

/* Lesson#3: called by ring_buffer__poll() for each event: one CSV row. */
static int handle_event(void *ctx, void *data, size_t size)
{
	const struct event *e = data;

	printf("%.6f,%s,%.3f\n", (double)(e->end_ns - t0_ns) / 1e9,
	       e->write ? "write" : "read", e->latency_ns / 1e6);
	return 0;
}

int main(int argc, char **argv)
{
	struct tracer t = TRACER_INIT("bio_trace");
	struct bio_trace_bpf *skel;
	struct timespec ts;
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
	/* Lesson#3: the events map's reader; tracer_run() polls it. */
	t.rb = ring_buffer__new(bpf_map__fd(skel->maps.events), handle_event, NULL, NULL);
	if (!t.rb) {
		err = -errno;
		fprintf(stderr, "%s: cannot read the ring buffer: %s\n", t.name, strerror(errno));
		goto cleanup;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0_ns = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
	err = tracer_attach(&t);
	if (err)
		goto cleanup;

	printf("completion_time,direction,latency_ms\n");
	err = tracer_run(&t);
	if (!err)
		err = tracer_summary(&t);
cleanup:
	tracer_close(&t);
	bio_trace_bpf__destroy(skel);
	return err ? 1 : 0;
}
