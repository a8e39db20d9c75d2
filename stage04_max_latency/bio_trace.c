// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* bio_trace, the user side: options, open, load, attach, run, summary. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracer.h"
#include "bio_trace.h"
#include "bio_trace.skel.h"

static const struct probe_point *const points[] = {
	&point_submit_bio,
	&point_bio_endio,
};

static const struct argp_child children[] = {
	{ &common_argp, 0, NULL, 0 },
	{ &json_argp, 0, NULL, 0 },
	{},
};

static const struct argp argp = {
	.children = children,
	.doc = "Print the latency of each bio, from submit_bio() to bio_endio(), "
	       "and at the end the slowest one.\v"
	       "Examples:\n"
	       "  bio_trace                  # every disk, until Ctrl-C\n"
	       "  bio_trace -d loop0         # one disk\n"
	       "  bio_trace -a tracepoint    # force the tracepoint door\n"
	       "  bio_trace --duration 5 -q  # the slowest bio of 5 seconds",
};

/* Lesson#3: called by ring_buffer__poll() for each event the BPF side sent. */
static int handle_event(void *ctx, void *data, size_t size)
{
	const struct event *e = data;

	if (env.json) {
		json_begin("latency");
		json_hex("bio", e->bio);
		json_u64("start_ns", e->start_ns);
		json_u64("end_ns", e->end_ns);
		json_u64("latency_ns", e->latency_ns);
		json_end();
	} else {
		printf("bio 0x%llx: submit_bio() -> bio_endio() time duration: %llu ns\n",
		       (unsigned long long)e->bio, (unsigned long long)e->latency_ns);
	}
	return 0;
}

/* Lesson#4: each CPU kept its own maxima, one per level; the largest wins. */
static int merge_max(struct bpf_map *map, struct max_rec *best)
{
	int ncpu = libbpf_num_possible_cpus();
	struct max_rec *recs;
	int err = 0;

	memset(best, 0, sizeof(*best));
	if (ncpu < 0)
		return ncpu;
	recs = calloc(ncpu, sizeof(*recs));
	if (!recs)
		return -ENOMEM;
	for (__u32 level = 0; !err && level < MAX_LEVELS; level++) {
		err = bpf_map__lookup_elem(map, &level, sizeof(level), recs,
					   ncpu * sizeof(*recs), 0);
		for (int i = 0; !err && i < ncpu; i++)
			if (recs[i].bio && recs[i].duration > best->duration)
				*best = recs[i];
	}
	free(recs);
	return err;
}

static int print_max(struct bio_trace_bpf *skel)
{
	struct max_rec m;
	int err;

	err = merge_max(skel->maps.max_latency, &m);
	if (err) {
		fprintf(stderr, "bio_trace: cannot read the max latency: %s\n",
			strerror(-err));
		return err;
	}
	if (env.json) {
		json_begin("max");	/* no fields: no bio completed */
		if (m.bio) {
			json_hex("bio", m.bio);
			json_u64("start_ns", m.start);
			json_u64("end_ns", m.end);
			json_u64("latency_ns", m.duration);
		}
		json_end();
		return 0;
	}
	printf("=====\n");
	if (!m.bio) {
		printf("No bio completed after its submit was seen\n");
	} else {
		printf("From: submit_bio(bio=0x%llx) %llu\n",
		       (unsigned long long)m.bio, (unsigned long long)m.start);
		printf("To  : bio_endio (bio=0x%llx) %llu\n",
		       (unsigned long long)m.bio, (unsigned long long)m.end);
		printf("Max latency %llu ns\n", (unsigned long long)m.duration);
	}
	printf("=====\n");
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
	/* Detached now: the maxima no longer change under us. */
	if (!err)
		err = print_max(skel);
	if (!err)
		err = tracer_summary(&t);
cleanup:
	tracer_close(&t);
	bio_trace_bpf__destroy(skel);
	return err ? 1 : 0;
}
