// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* pagecache_trace, the user side: options, open, load, attach, run, summary. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "pid_arg.h"
#include "tracer.h"
#include "pagecache_trace.h"
#include "pagecache_trace.skel.h"

static const struct probe_point *const points[] = {
	&point_filemap_get_pages,
	&point_filemap_add_folio,
};

static long target_pid;	/* -p PID or the PID argument; 0 = every process */

/* A thread's ID names its process (pid_arg.c): the filter is on its TGID. */
static void set_pid(struct argp_state *state, const char *arg)
{
	if (target_pid)
		argp_error(state, "one PID only");
	target_pid = parse_pid_arg(state, arg);
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'p':
		set_pid(state, arg);
		break;
	case ARGP_KEY_ARG:
		if (state->arg_num > 0)
			argp_error(state, "too many arguments: '%s'", arg);
		set_pid(state, arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_option options[] = {
	{ "pid", 'p', "PID", 0, "Count only this process (all its threads)", 0 },
	{},
};

static const struct argp_child children[] = {
	{ &common_argp, 0, NULL, 0 },
	{ &json_argp, 0, NULL, 0 },
	{},
};

static const struct argp argp = {
	.options = options,
	.parser = parse_opt,
	.args_doc = "[PID]",
	.children = children,
	.doc = "Count page-cache hits and misses of reads, per page.\v"
	       "A miss is a page a read found only after its own read path\n"
	       "(readahead included) added it; a hit, a page already there.\n"
	       "-d keeps files on filesystems on that disk.\n"
	       "Examples:\n"
	       "  pagecache_trace                   # every read, until Ctrl-C\n"
	       "  pagecache_trace 1284              # process 1284 only (or -p 1284)\n"
	       "  pagecache_trace -d loop0          # files on loop0 only\n"
	       "  pagecache_trace -a tracepoint -q  # tracepoints, totals only",
};

/*
 * Called by ring_buffer__poll() for each event the BPF side sent: one
 * line, the task first as in a trace line, or one JSON object.
 */
static int handle_event(void *ctx, void *data, size_t size)
{
	const struct event *e = data;
	bool add = e->type == EVENT_ADD;

	if (env.json) {
		json_begin(add ? "add" : "lookup");
		json_u64("pid", e->pid);
		json_str("comm", e->comm);
		json_u64("ino", e->ino);
		if (add) {
			json_u64("index", e->first);
			json_u64("pages", e->last - e->first + 1);
		} else {
			json_u64("first", e->first);
			json_u64("last", e->last);
			json_u64("hit", e->hit);
			json_u64("miss", e->miss);
		}
		json_end();
	} else if (add) {
		printf("%s-%u: filemap_add_folio (ino=%llu index=%llu pages=%llu)\n",
		       e->comm, e->pid, (unsigned long long)e->ino,
		       (unsigned long long)e->first,
		       (unsigned long long)(e->last - e->first + 1));
	} else {
		printf("%s-%u: filemap_get_pages (ino=%llu pages=%llu-%llu hit=%llu miss=%llu)\n",
		       e->comm, e->pid, (unsigned long long)e->ino,
		       (unsigned long long)e->first, (unsigned long long)e->last,
		       (unsigned long long)e->hit, (unsigned long long)e->miss);
	}
	return 0;
}

/* Sum each slot over the CPUs (a slot alone may have wrapped). */
static int read_pages(struct bpf_map *map, __u64 *sum)
{
	int ncpu = libbpf_num_possible_cpus();
	__u64 *vals;

	if (ncpu < 1)
		return -1;
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return -1;
	for (__u32 k = 0; k < PAGES_MAX; k++) {
		sum[k] = 0;
		if (bpf_map_lookup_elem(bpf_map__fd(map), &k, vals))
			continue;
		for (int c = 0; c < ncpu; c++)
			sum[k] += vals[c];
	}
	free(vals);
	return 0;
}

static void print_totals(struct pagecache_trace_bpf *skel)
{
	__u64 n[PAGES_MAX];

	if (read_pages(skel->maps.pages, n)) {
		fprintf(stderr, "cannot read the page counters\n");
		return;
	}
	if (env.json) {
		json_begin("pages");
		if (target_pid)
			json_u64("pid", target_pid);
		json_u64("total", n[PAGES_HIT] + n[PAGES_MISS]);
		json_u64("hit", n[PAGES_HIT]);
		json_u64("miss", n[PAGES_MISS]);
		json_u64("added", n[PAGES_ADDED]);
		json_end();
		return;
	}
	printf("=====\n");
	if (target_pid)
		printf("Filtered PID : %ld\n", target_pid);
	printf("[Total %llu Hit %llu miss %llu]\n",
	       (unsigned long long)(n[PAGES_HIT] + n[PAGES_MISS]),
	       (unsigned long long)n[PAGES_HIT], (unsigned long long)n[PAGES_MISS]);
	printf("Added %llu pages to the cache (%llu not read while tracing: "
	       "writes, faults, readahead past the reads)\n",
	       (unsigned long long)n[PAGES_ADDED],
	       (unsigned long long)(n[PAGES_ADDED] > n[PAGES_MISS] ?
				    n[PAGES_ADDED] - n[PAGES_MISS] : 0));
	printf("=====\n");
}

int main(int argc, char **argv)
{
	struct tracer t = TRACER_INIT("pagecache_trace");
	struct pagecache_trace_bpf *skel;
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
		skel = pagecache_trace_bpf__open();
		if (!skel) {
			fprintf(stderr, "%s: cannot open BPF object\n", t.name);
			return 1;
		}
		skel->rodata->quiet = env.quiet;
		skel->rodata->targ_dev = env.dev;
		/* the kernel's page size is user space's: 4, 16 or 64 KiB */
		skel->rodata->page_shift = __builtin_ctz(getpagesize());

		err = tracer_select(&t, skel->obj, points, ARRAY_SIZE(points));
		if (err)
			goto cleanup;
		err = pagecache_trace_bpf__load(skel);
		if (!tracer_next_door(&t, err))
			break;
		pagecache_trace_bpf__destroy(skel);
	}
	if (err)
		goto cleanup;
	t.stats = skel->maps.stats;	/* the summary's counters */
	/* The events map's reader; tracer_run() polls it. */
	t.rb = ring_buffer__new(bpf_map__fd(skel->maps.events), handle_event, NULL, NULL);
	if (!t.rb) {
		err = -errno;
		fprintf(stderr, "%s: cannot read the ring buffer: %s\n", t.name, strerror(errno));
		goto cleanup;
	}
	/* The filter is in place before any program is attached. */
	if (target_pid) {
		__u32 key = 0, pid = target_pid;

		err = bpf_map_update_elem(bpf_map__fd(skel->maps.pid_filter_map),
					  &key, &pid, BPF_ANY);
		if (err) {
			fprintf(stderr, "%s: cannot set the PID filter: %s\n",
				t.name, strerror(errno));
			goto cleanup;
		}
		if (!env.json)
			printf("pid_filter_map update: (pid=%u)\n", pid);
	}
	err = tracer_attach(&t);
	if (err)
		goto cleanup;

	err = tracer_run(&t);
	if (!err)
		err = tracer_summary(&t);
	if (!err) {
		print_totals(skel);
		err = tracer_output_ok(&t);
	}
cleanup:
	tracer_close(&t);
	pagecache_trace_bpf__destroy(skel);
	return err ? 1 : 0;
}
