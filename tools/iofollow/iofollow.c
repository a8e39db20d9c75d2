// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * iofollow, the user side: options, open, load, attach, run, summary.
 * Stage 11 grown into a tool: the hops of each sampled call are joined
 * into one story per sample (samples.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include "pid_arg.h"
#include "summary.h"
#include "tracer.h"
#include "jsonl.h"
#include "iofollow.h"
#include "iofollow.skel.h"
#include "samples.h"
#include "timeline_page.h"
#include "trace_json.h"

/* The start point first: doors_detach_first() stops new samples. */
static const struct probe_point *const points[] = {
	&point_syscall, &point_folio, &point_folio_add, &point_bio_queue, &point_getrq,
	&point_merge, &point_rq_issue, &point_rq_complete, &point_bio_complete,
};

static struct {
	long pid;		/* -p: 0 = every process */
	const char *comm;	/* -c */
	long sample;		/* -s N */
	const char *trace;	/* --trace-json FILE */
	const char *html;	/* --html FILE */
} opt = { .sample = 1000 };

enum { OPT_TRACE_JSON = 0x200, OPT_HTML };

/* A map's marks lost to its LRU: stored - deleted - still there. */
static __u64 evicted(__u64 stored, __u64 deleted, __u64 left)
{
	return stored > deleted + left ? stored - deleted - left : 0;
}

static void print_summary(struct iofollow_bpf *skel)
{
	__u64 c[CNT_MAX] = {}, un = 0, calls = 0, folios_left, bios_left;
	__u32 key = 0;
	const char *sep = "";
	struct loss l[12];
	int n = 0;

	read_counters(skel->maps.counts, c, CNT_MAX);
	bpf_map_lookup_elem(bpf_map__fd(skel->maps.calls), &key, &calls);
	folios_left = starts_in_flight(skel->maps.folios);
	bios_left = starts_in_flight(skel->maps.bios);
	for (int h = 0; h < HOP_MAX; h++)
		un += st.unlinked[h];
	l[n++] = (struct loss){ "ring_buffer_full", "events not sent (ring buffer full)",
				c[CNT_RB_FULL] };
	l[n++] = (struct loss){ "walk_cut", "bio_vec or rq->bio walks cut short",
				c[CNT_WALK_CUT] };
	l[n++] = (struct loss){ "mark_failed", "marks not stored", c[CNT_MARK_FAIL] };
	l[n++] = (struct loss){ "folios_evicted", "folio marks forgotten (LRU full)",
				evicted(c[CNT_FOLIOS], c[CNT_FOLIO_DEL], folios_left) };
	l[n++] = (struct loss){ "bios_evicted", "bio marks forgotten (LRU full)",
				evicted(c[CNT_BIOS], c[CNT_BIO_DEL], bios_left) };
	l[n++] = (struct loss){ "samples_dropped", "samples not kept (table full)",
				st.table_full };
	l[n++] = (struct loss){ "recursion_missed", "events missed by recursion",
				recursion_misses(skel->obj) };
	if (env.json) {
		json_begin("summary");
		json_u64("calls", calls);
		json_u64("sampled", c[CNT_SAMPLED]);
		json_u64("printed", st.printed);
		json_u64("no_folio", st.no_folio);
		json_u64("not_written_back", st.dirty_left);
		json_u64("in_flight", st.flight_left);
		json_u64("unlinked", un);
		json_u64("rest_hops", st.rest_hops);
		printf(",\"events\":{");
		for (int h = 0; h < HOP_MAX; h++)
			printf("%s\"%s\":%llu", h ? "," : "", hop_names[h],
			       (unsigned long long)st.hops_seen[h]);
		printf("}");
		lost_json(stdout, l, n);
		printf("}\n");
		return;
	}
	printf("=====\n");
	printf("Sampled: %llu of %llu %s calls (1 in %ld)\n", (unsigned long long)c[CNT_SAMPLED],
	       (unsigned long long)calls, follow_read ? "read()" : "write()", opt.sample);
	printf("Followed: %llu printed: %llu to the disk and back, %llu %s at exit, "
	       "%llu in flight at exit\n", (unsigned long long)st.printed,
	       (unsigned long long)(st.printed - st.no_folio - st.dirty_left - st.flight_left),
	       (unsigned long long)st.dirty_left, follow_read ? "not read" : "not written back",
	       (unsigned long long)st.flight_left);
	printf("Events:");
	for (int h = 0; h < HOP_MAX; h++) {
		printf("%s %s %llu", sep, hop_names[h], (unsigned long long)st.hops_seen[h]);
		sep = ",";
	}
	printf("\n");
	if (st.hops_seen[HOP_SPLIT])
		printf("Split: %llu followed bios split\n",
		       (unsigned long long)st.hops_seen[HOP_SPLIT]);
	if (st.rest_hops)
		printf("Not followed: %llu hops of marked bios with no followed page (a split's "
		       "other part, folios past %d a sample)\n", (unsigned long long)st.rest_hops,
		       PATHS_MAX);
	if (!un && !st.no_folio)
		printf("Unlinked: none\n");
	if (st.no_folio)
		printf("Unlinked: %llu %s calls to no new folio (%s, or not to a file)\n",
		       (unsigned long long)st.no_folio, follow_read ? "read()" : "write()",
		       follow_read ? "their pages were cached" : "their pages were dirty already");
	for (int h = 0; h < HOP_MAX; h++)
		if (st.unlinked[h])
			printf("Unlinked: %llu %s hops no followed sample led to\n",
			       (unsigned long long)st.unlinked[h], hop_names[h]);
	lost_lines(stdout, l, n);
	printf("=====\n");
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'p':
		opt.pid = parse_pid_arg(state, arg);
		break;
	case 'c':
		if (!*arg || strlen(arg) > 15)
			argp_error(state, "COMM must be 1 to 15 characters, not '%s'", arg);
		opt.comm = arg;
		break;
	case 's':
		opt.sample = parse_positive(arg, 1000000000);
		if (opt.sample < 0)
			argp_error(state, "--sample needs a positive number, not '%s'", arg);
		break;
	case 'r':
		follow_read = true;
		break;
	case OPT_TRACE_JSON:
		opt.trace = arg;
		break;
	case OPT_HTML:
		opt.html = arg;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_option options[] = {
	{ "sample", 's', "N", 0, "Follow 1 call in N (default 1000; 1: every call)", 0 },
	{ "pid", 'p', "PID", 0, "Sample this process's calls only", 0 },
	{ "comm", 'c', "COMM", 0, "Sample the calls of tasks named COMM only", 0 },
	{ "read", 'r', NULL, 0, "Follow read() calls, not write()", 0 },
	{ "trace-json", OPT_TRACE_JSON, "FILE", 0,
	  "Also write the samples to FILE in Chrome's trace-event format (Perfetto)", 0 },
	{ "html", OPT_HTML, "FILE", 0,
	  "At exit, write FILE: a page of the three timelines, each sample drawn", 0 },
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
	.children = children,
	.doc = "Follow sampled write() (or read()) calls from the page cache to the disk "
	       "and back.\v"
	       "A write: the folios it dirties, the bio writeback builds of them, the\n"
	       "request, its issue and completion, the fsync() that waited; a read: the\n"
	       "folios it adds to the cache, the same below. Tracepoint door only.\n"
	       "Examples:\n"
	       "  iofollow                     # 1 write() in 1000, until Ctrl-C\n"
	       "  iofollow -s 1 -p 1284        # every write() of process 1284\n"
	       "  iofollow -s 10 -c dd -j      # 1 in 10 of dd's, JSON lines\n"
	       "  iofollow -r -s 1 -c cat      # every read() of cat\n"
	       "  iofollow -s 10 --trace-json t.json --html t.html  # for Perfetto; a page",
};

int main(int argc, char **argv)
{
	struct tracer t = TRACER_INIT("iofollow");
	struct iofollow_bpf *skel;
	int err, terr;

	parse_args(&argp, argc, argv, NULL);
	if (env.quiet && (opt.trace || opt.html)) {
		fprintf(stderr, "iofollow: -q sends no events: nothing for --trace-json or --html\n");
		return 2;
	}
	/* The hops have tracepoints only so far: say so rather than try. */
	if (env.door == DOOR_FENTRY || env.door == DOOR_KPROBE) {
		fprintf(stderr, "iofollow: no %s door in this tool (tracepoint door only: "
			"-a tracepoint or auto)\n", door_name(env.door));
		return 1;
	}
	if (tracer_preflight(t.name))
		return 1;
	/* the page is written at exit: made now, so a bad path fails first */
	if (opt.html && (err = timeline_write(opt.html))) {
		fprintf(stderr, "%s: cannot create %s: %s\n", t.name, opt.html, strerror(-err));
		return 1;
	}
	if (opt.trace && (err = trace_json_open(opt.trace))) {
		fprintf(stderr, "%s: cannot create %s: %s\n", t.name, opt.trace, strerror(-err));
		return 1;
	}
	skel = iofollow_bpf__open();
	if (!skel) {
		fprintf(stderr, "%s: cannot open BPF object\n", t.name);
		trace_json_close();
		return 1;
	}
	skel->rodata->quiet = env.quiet;
	skel->rodata->targ_dev = env.dev;
	skel->rodata->targ_tgid = opt.pid;
	skel->rodata->self_tgid = getpid();
	skel->rodata->sample_n = opt.sample;
	skel->rodata->page_shift = __builtin_ctz(getpagesize());
	if (opt.comm) {
		skel->rodata->filter_comm = true;
		strncpy((char *)skel->rodata->targ_comm, opt.comm, 15);
	}
	skel->rodata->follow = follow_read ? KIND_READ : KIND_WRITE;
	skel->rodata->nr_call = follow_read ? SYS_read : SYS_write;
	skel->rodata->nr_pcall = follow_read ? SYS_pread64 : SYS_pwrite64;
	skel->rodata->nr_fsync = SYS_fsync;
	skel->rodata->nr_fdatasync = SYS_fdatasync;

	err = tracer_select(&t, skel->obj, points, ARRAY_SIZE(points));
	if (err)
		goto cleanup;
	/* a write's folios are dirtied, a read's added: the other hook is not loaded */
	bpf_program__set_autoload(follow_read ? skel->progs.writeback_dirty_folio_btf :
				  skel->progs.mm_filemap_add_to_page_cache_btf, false);
	err = iofollow_bpf__load(skel);
	if (err) {
		fprintf(stderr, "%s: cannot load BPF object: %s (try -v)\n", t.name,
			strerror(-err));
		goto cleanup;
	}
	t.rb = ring_buffer__new(bpf_map__fd(skel->maps.events), samples_event, NULL, NULL);
	if (!t.rb) {
		err = -errno;
		fprintf(stderr, "%s: cannot read the ring buffer: %s\n", t.name, strerror(errno));
		goto cleanup;
	}
	t.interval_ms = 250;
	t.tick = samples_tick;
	err = tracer_attach(&t);
	if (err)
		goto cleanup;
	err = tracer_run(&t);
	if (!err) {
		samples_left();
		print_summary(skel);
		err = tracer_output_ok(&t);
	}
cleanup:
	tracer_close(&t);
	iofollow_bpf__destroy(skel);
	/* complete, whatever ended the run: a failed write is an error */
	terr = trace_json_close();
	if (terr) {
		fprintf(stderr, "%s: cannot write %s: %s\n", t.name, opt.trace, strerror(-terr));
		err = terr;
	}
	if (opt.html && (terr = timeline_write(opt.html))) {
		fprintf(stderr, "%s: cannot write %s: %s\n", t.name, opt.html, strerror(-terr));
		err = terr;
	}
	return err ? 1 : 0;
}
