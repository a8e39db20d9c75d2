// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Stage 06, solved: the slowest bio, its sector and its submitter's stack,
 * with the stack taken for 1 bio in N only (-s N).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kallsyms.h"
#include "tracer.h"
#include "bio_trace.h"
#include "bio_trace.skel.h"

static const struct probe_point *const points[] = {
	&point_submit_bio,
	&point_bio_endio,
};

static long sample_every = 1;	/* -s N */

static const struct argp_option options[] = {
	{ "sample", 's', "N", 0, "Take the submitter's stack of 1 bio in N (default 1: every bio)", 0 },
	{},
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	if (key != 's')
		return ARGP_ERR_UNKNOWN;
	sample_every = parse_positive(arg, 1000000);
	if (sample_every < 0)
		argp_error(state, "invalid sample rate '%s' (1 in N bios, N from 1 to 1000000)", arg);
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
	.doc = "Print the latency of each bio, from submit_bio() to bio_endio(), "
	       "and at the end the slowest one, its sector and its submitter's stack, "
	       "taken for 1 bio in N.\v"
	       "Examples:\n"
	       "  bio_trace -s 100 -q        # a stack for 1 bio in 100\n"
	       "  bio_trace -d loop0         # one disk, every stack",
};

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

/* Why bpf_get_stackid() gave no stack (it returns -errno). */
static const char *stack_error(int err)
{
	switch (err) {
	case -EEXIST:
		return "another stack held its slot in the stack map (hash collision)";
	case -EFAULT:
		return "the kernel could not walk the submitter's stack";
	default:
		return strerror(-err);
	}
}

/* The frames of the tracing machinery itself: BPF, trampolines, tracepoints. */
static bool tracing_frame(const struct ksym *s)
{
	static const char *const prefixes[] = {
		"bpf_", "__bpf_", "trace_", "__traceiter_", "perf_",
		"kprobe", "__kprobes", "ftrace_", "rethook",
	};

	if (s->module && !strcmp(s->module, "bpf"))
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncmp(s->name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/*
 * Lesson#6: the stack, outermost caller first, like the kernel's own
 * dumps; the innermost frames that belong to the tracer are left out so
 * the stack ends in the block layer.
 */
static void print_stack(struct bpf_map *stacks, int stack_id)
{
	__u64 ip[MAX_STACK_DEPTH] = {};
	const struct ksyms *ks;
	int n = 0, top = 0;

	if (stack_id == STACK_NOT_SAMPLED) {
		printf("No stack: this bio was not sampled (1 in %ld)\n", sample_every);
		return;
	}
	if (stack_id < 0) {
		printf("No stack: %s\n", stack_error(stack_id));
		return;
	}
	if (bpf_map__lookup_elem(stacks, &stack_id, sizeof(stack_id), ip,
				 sizeof(ip), 0)) {
		printf("No stack: id %d is not in the stack map\n", stack_id);
		return;
	}
	ks = ksyms_kernel();
	if (!ks) {
		printf("No stack: cannot read /proc/kallsyms: %s\n", strerror(errno));
		return;
	}
	while (n < MAX_STACK_DEPTH && ip[n])
		n++;
	while (top < n) {
		const struct ksym *s = ksyms_find(ks, ip[top], NULL);

		if (!s || !tracing_frame(s))
			break;
		top++;
	}
	for (int i = n - 1; i >= top; i--) {
		uint64_t off;
		const struct ksym *s = ksyms_find(ks, ip[i], &off);

		if (!s)
			printf("=> 0x%llx (no symbol)\n", (unsigned long long)ip[i]);
		else
			printf("=> %s+0x%llx%s%s%s\n", s->name, (unsigned long long)off,
			       s->module ? " [" : "", s->module ? s->module : "",
			       s->module ? "]" : "");
	}
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
	printf("=====\n");
	if (!m.bio) {
		printf("No bio completed after its submit was seen\n");
	} else {
		printf("From: submit_bio(bio=0x%llx) %llu\n",
		       (unsigned long long)m.bio, (unsigned long long)m.start);
		printf("To  : bio_endio (bio=0x%llx) %llu\n",
		       (unsigned long long)m.bio, (unsigned long long)m.end);
		printf("Bio Info : Sector (%llu) Size (%u)\n",
		       (unsigned long long)m.sector, m.size);
		printf("Max latency %llu ns\n", (unsigned long long)m.duration);
		print_stack(skel->maps.stacks, m.stack_id);
	}
	printf("Stacks: %llu of %llu bios sampled (1 in %ld)\n",
	       (unsigned long long)skel->bss->sampled,
	       (unsigned long long)skel->bss->submitted, sample_every);
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
		skel->rodata->sample_every = sample_every;

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
	/* Read the symbols while attached: a trampoline is named only then. */
	ksyms_kernel();

	tracer_run(&t);
	/* Detached now: the maxima no longer change under us. */
	err = print_max(skel);
	tracer_summary(&t);
cleanup:
	tracer_close(&t);
	bio_trace_bpf__destroy(skel);
	return err ? 1 : 0;
}
