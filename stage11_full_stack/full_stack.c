// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * full_stack, the user side: options, open, load, attach, then one line
 * per hop of each sampled write(), timed from the moment it was entered.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include "summary.h"
#include "tracer.h"
#include "full_stack.h"
#include "full_stack.skel.h"

/* The start point first: doors_detach_first() stops new samples. */
static const struct probe_point *const points[] = {
	&point_write, &point_folio_dirty, &point_folio_gone, &point_bio_queued,
	&point_bio_split, &point_rq_start, &point_rq_done,
};

static struct {
	const char *comm;	/* -c */
	long sample;		/* -s N */
} opt = { .sample = 100 };

static const char *const hop_names[HOP_MAX] = {
	"entered", "folio_dirty", "returned", "bio_queued", "bio_split", "rq_issued", "rq_done",
};
static __u64 hops[HOP_MAX];	/* lines printed */

/*
 * A bio may carry the pages of several samples, and the BPF side marks
 * it with the first: each sample's page is remembered here, from its
 * bio_queued line, so that each gets the request's lines. A split moves
 * the pages of its front part to the part's bio.
 */
struct rider {
	__u64 bio, id, t0;
	__u64 sector;		/* where the sample's page lies */
};

#define RIDERS_MAX 256
static struct rider riders[RIDERS_MAX];
static __u64 riders_full;

static void rider_add(const struct event *e)
{
	int free = -1;

	for (int i = 0; i < RIDERS_MAX; i++) {
		if (riders[i].bio == e->bio && riders[i].id == e->id)
			return;	/* another folio of the same sample */
		if (!riders[i].bio && free < 0)
			free = i;
	}
	if (free < 0)
		riders_full++;
	else
		riders[free] = (struct rider){ e->bio, e->id, e->t0, e->sector };
}

static void hop_line(const struct event *e, __u64 id, __u64 t0)
{
	hops[e->hop]++;
	printf("#%-4llu %12.3f us  %-11s", (unsigned long long)id, (e->ts - t0) / 1000.0,
	       hop_names[e->hop]);
	switch (e->hop) {
	case HOP_FOLIO:
		printf(" ino=%llu page=%llu folio=0x%llx", (unsigned long long)e->ino,
		       (unsigned long long)e->index, (unsigned long long)e->folio);
		break;
	case HOP_RETURN:
		printf(" ret=%lld", (long long)e->ret);
		break;
	case HOP_BIO:
		printf(" ino=%llu page=%llu sector=%llu bio=0x%llx bio_bytes=%u",
		       (unsigned long long)e->ino, (unsigned long long)e->index,
		       (unsigned long long)e->sector, (unsigned long long)e->bio, e->bytes);
		break;
	case HOP_SPLIT:
		printf(" sector=%llu bytes=%u bio=0x%llx of=0x%llx", (unsigned long long)e->sector,
		       e->bytes, (unsigned long long)e->bio, (unsigned long long)e->parent);
		break;
	case HOP_ISSUE:
		printf(" sector=%llu bytes=%u rq=0x%llx bio=0x%llx", (unsigned long long)e->sector,
		       e->bytes, (unsigned long long)e->rq, (unsigned long long)e->bio);
		break;
	case HOP_DONE:
		printf(" status=%lld rq=0x%llx bio=0x%llx", (long long)e->ret,
		       (unsigned long long)e->rq, (unsigned long long)e->bio);
		break;
	}
	printf("  cpu%u %s-%u\n", e->cpu, e->comm, e->pid);
}

/*
 * Lesson#8: each hop as it comes, under its sample's number; a split's
 * and a request's hops once for each sample whose page its bio carries.
 */
static int handle_event(void *ctx, void *data, size_t size)
{
	const struct event *e = data;

	if (e->hop >= HOP_MAX)
		return 0;
	if (e->hop == HOP_BIO)
		rider_add(e);
	if (e->hop <= HOP_BIO) {
		hop_line(e, e->id, e->t0);
		return 0;
	}
	for (int i = 0; i < RIDERS_MAX; i++) {
		struct rider *r = &riders[i];

		if (e->hop == HOP_SPLIT) {
			/* the part takes the pages in its sectors */
			if (r->bio != e->parent || r->sector < e->sector ||
			    r->sector >= e->sector + e->bytes / 512)
				continue;
			r->bio = e->bio;
		} else if (r->bio != e->bio) {
			continue;
		}
		hop_line(e, r->id, r->t0);
		if (e->hop == HOP_DONE)
			r->bio = 0;
	}
	return 0;
}

/* Marks a map lost to its LRU: those its gate counts, less those still there. */
static __u64 evicted(__s64 gate, __u64 left)
{
	return gate > (__s64)left ? gate - left : 0;
}

static void print_summary(struct full_stack_bpf *skel)
{
	__u64 c[CNT_MAX] = {}, calls = 0, folios_left, bios_left;
	struct gates g = {};
	__u32 key = 0;
	struct loss l[8];
	int n = 0;

	read_counters(skel->maps.counts, c, CNT_MAX);
	bpf_map_lookup_elem(bpf_map__fd(skel->maps.calls), &key, &calls);
	bpf_map_lookup_elem(bpf_map__fd(skel->maps.gates), &key, &g);
	folios_left = starts_in_flight(skel->maps.folios);
	bios_left = starts_in_flight(skel->maps.bios);
	l[n++] = (struct loss){ "ring_buffer_full", "events not sent (ring buffer full)",
				c[CNT_RB_FULL] };
	l[n++] = (struct loss){ "mark_failed", "marks not stored", c[CNT_MARK_FAIL] };
	l[n++] = (struct loss){ "walk_cut", "bio_vec or rq->bio walks cut short",
				c[CNT_WALK_CUT] };
	l[n++] = (struct loss){ "folios_evicted", "folio marks forgotten (LRU full)",
				evicted(g.folios, folios_left) };
	l[n++] = (struct loss){ "bios_evicted", "bio marks forgotten (LRU full)",
				evicted(g.bios, bios_left) };
	l[n++] = (struct loss){ "riders", "request lines not printed (riders table full)",
				riders_full };
	l[n++] = (struct loss){ "recursion_missed", "events missed by recursion",
				recursion_misses(skel->obj) };
	printf("=====\n");
	printf("Sampled: %llu of %llu write() calls (1 in %ld)\n",
	       (unsigned long long)c[CNT_SAMPLED], (unsigned long long)calls, opt.sample);
	if (!env.quiet) {	/* -q: no hop is sent */
		printf("Hops:");
		for (int h = 0; h < HOP_MAX; h++)
			printf("%s %s %llu", h ? "," : "", hop_names[h],
			       (unsigned long long)hops[h]);
		printf("\n");
	}
	/* not lost: the run ended first */
	printf("At exit: %llu folios not written back yet, %llu bios not completed yet\n",
	       (unsigned long long)folios_left, (unsigned long long)bios_left);
	lost_lines(stdout, l, n);
	printf("=====\n");
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	switch (key) {
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
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_option options[] = {
	{ "sample", 's', "N", 0, "Follow 1 write() in N (default 100; 1: every one)", 0 },
	{ "comm", 'c', "COMM", 0, "Sample the write() calls of tasks named COMM only", 0 },
	{},
};

static const struct argp_child children[] = {
	{ &common_argp, 0, NULL, 0 },
	{},
};

static const struct argp argp = {
	.options = options,
	.parser = parse_opt,
	.children = children,
	.doc = "Follow sampled write() calls from the page cache to the disk and back.\v"
	       "A hop per line: the folios the write() dirties, the bio writeback\n"
	       "builds of them, the request's issue and completion. The fentry and\n"
	       "tracepoint doors. Examples:\n"
	       "  full_stack                # 1 write() in 100, until Ctrl-C\n"
	       "  full_stack -s 1 -c dd     # every write() of tasks named dd",
};

int main(int argc, char **argv)
{
	struct tracer t = TRACER_INIT("full_stack");
	struct full_stack_bpf *skel;
	int err;

	parse_args(&argp, argc, argv, NULL);
	/* No kprobe door (full_stack.bpf.c, Lesson#7, says why): say so, not try. */
	if (env.door == DOOR_KPROBE) {
		fprintf(stderr, "full_stack: no kprobe door in this stage (kprobe programs do not "
			"nest: an I/O's end would be missed during a bio walk; -a fentry, "
			"tracepoint or auto)\n");
		return 1;
	}
	if (tracer_preflight(t.name))
		return 1;
	/* If the programs fail to load, -a auto tries the next door: a new object. */
	for (;;) {
		skel = full_stack_bpf__open();
		if (!skel) {
			fprintf(stderr, "%s: cannot open BPF object\n", t.name);
			return 1;
		}
		skel->rodata->quiet = env.quiet;
		skel->rodata->targ_dev = env.dev;
		skel->rodata->self_tgid = getpid();
		skel->rodata->sample_n = opt.sample;
		skel->rodata->page_shift = __builtin_ctz(getpagesize());
		if (opt.comm) {
			skel->rodata->filter_comm = true;
			strncpy((char *)skel->rodata->targ_comm, opt.comm, 15);
		}
		skel->rodata->nr_write = SYS_write;
		skel->rodata->nr_pwrite = SYS_pwrite64;

		err = tracer_select(&t, skel->obj, points, ARRAY_SIZE(points));
		if (err)
			goto cleanup;
		err = full_stack_bpf__load(skel);
		if (!tracer_next_door(&t, err))
			break;
		full_stack_bpf__destroy(skel);
	}
	if (err)
		goto cleanup;
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
	if (!err) {
		print_summary(skel);
		err = tracer_output_ok(&t);
	}
cleanup:
	tracer_close(&t);
	full_stack_bpf__destroy(skel);
	return err ? 1 : 0;
}
