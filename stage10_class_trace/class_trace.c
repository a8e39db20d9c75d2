// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * class_trace, the user side: find every kernel function that takes a
 * struct bio * (in BTF), attach to them all at once, and print each
 * bio's path as a tree when the bio has ended.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "bio_forest.h"
#include "btf_scan.h"
#include "mass_attach.h"
#include "stats.h"
#include "summary.h"
#include "tracer.h"
#include "class_trace.h"
#include "class_trace.skel.h"

static const struct argp_child children[] = {
	{ &common_argp, 0, NULL, 0 },
	{},
};

static const struct argp argp = {
	.children = children,
	.doc = "Follow each bio through every kernel function that takes a struct bio *\n"
	       "(else through the block tracepoints) and print its path as a tree.\v"
	       "Examples:\n"
	       "  class_trace -d loop0          # every bio of one disk, until Ctrl-C\n"
	       "  class_trace -a tracepoint     # the block tracepoints only\n"
	       "  class_trace --duration 5 -q   # counts only, for 5 seconds",
};

/* The tracepoint door's points, in the order of enum tp_point. */
static const char *const tp_names[TP_MAX] = {
	[TP_BIO_QUEUE] = "block_bio_queue", [TP_BIO_BACKMERGE] = "block_bio_backmerge",
	[TP_GETRQ] = "block_getrq", [TP_RQ_ISSUE] = "block_rq_issue",
	[TP_RQ_COMPLETE] = "block_rq_complete", [TP_BIO_COMPLETE] = "block_bio_complete",
};

static const char *const name = "class_trace";
static struct btf *vmlinux;
static struct bio_funcs funcs;	/* the function doors' points */
static int door;		/* enum door */
static struct bpf_program *templ[BIO_ARG_MAX];	/* fentry: one per position of the bio */
static struct mass_attach ma;
static __u64 *cookies;

/*
 * Lesson#1: the seed ran pahole's pfunct --class=bio over a kernel built
 * with DWARF. The running kernel's BTF has every function's prototype:
 * keep those with a struct bio * parameter (common/btf_scan.c) that
 * ftrace can attach to (tracefs' available_filter_functions).
 */
static int discover(void)
{
	if (btf_scan_bio(vmlinux, 0, NULL, &funcs)) {
		fprintf(stderr, "%s: out of memory\n", name);
		return -1;
	}
	bio_funcs_sort(&funcs);
	bio_funcs_traceable(&funcs, name);
	if (!funcs.n)
		fprintf(stderr, "%s: no function takes a struct bio * here\n", name);
	return funcs.n ? 0 : -1;
}

/* What a function means for a bio's life; the others pass it along. */
static __u32 func_flags(const char *fn)
{
	if (!strcmp(fn, "bio_init"))
		return EV_BEGIN;
	if (!strcmp(fn, "submit_bio"))
		return EV_SUBMIT;
	if (!strcmp(fn, "bio_endio"))
		return EV_END;
	return 0;
}

/*
 * Lesson#2: the door, in the workbook's order: fentry, kprobe, then the
 * tracepoints (common/mass_attach.c tests this kernel). Then every
 * program of the other doors is switched off before load, as
 * libbpf-tools do; *missing counts the tracepoints this kernel lacks.
 */
static int choose_door(struct class_trace_bpf *skel, char *why, size_t len, int *missing)
{
	struct bpf_program *prog;
	const char *no_queue;

	door = mass_attach_door(vmlinux, env.door, name, why, len);
	if (door < 0)
		return -1;
	if (door == DOOR_TRACEPOINT) {
		/* a tree begins at its submit: that one at least */
		no_queue = tp_missing(vmlinux, "block_bio_queue");
		if (no_queue) {
			fprintf(stderr, "%s: no %s door on this kernel (%s%stracepoint: block_bio_queue %s)\n",
				name, env.door == DOOR_AUTO ? "working" : "tracepoint", why,
				why[0] ? "; " : "", no_queue);
			return -1;
		}
	} else if (discover()) {
		return -1;
	}
	bpf_object__for_each_program(prog, skel->obj) {
		const char *sec = bpf_program__section_name(prog);
		bool keep = door == DOOR_TRACEPOINT && !strncmp(sec, "tp_btf/", 7);

		if (keep && tp_missing(vmlinux, sec + 7)) {
			keep = false;
			(*missing)++;
		}
		bpf_program__set_autoload(prog, keep);
	}
	bpf_program__set_autoload(skel->progs.func_multi, door == DOOR_KPROBE);
	bpf_program__set_autoload(skel->progs.func_kprobe, door == DOOR_KPROBE);
	templ[0] = skel->progs.fentry_arg1;
	templ[1] = skel->progs.fentry_arg2;
	templ[2] = skel->progs.fentry_arg3;
	templ[3] = skel->progs.fentry_arg4;
	templ[4] = skel->progs.fentry_arg5;
	if (door == DOOR_FENTRY)
		mass_attach_templates(templ, &funcs);
	return 0;
}

/*
 * Lesson#3: attach them all, each with its cookie: an fentry copy per
 * function, one kprobe.multi link (else a kprobe each), or the loaded
 * tracepoint programs. A function the kernel refuses is counted, not fatal.
 */
static int attach(struct class_trace_bpf *skel, const char *why, int missing)
{
	double t0 = tracer_now();
	int err, total = funcs.n;

	cookies = calloc(funcs.n + 1, sizeof(*cookies));
	if (!cookies || mass_attach_init(&ma, &funcs, cookies)) {
		fprintf(stderr, "%s: out of memory for %d functions\n", name, funcs.n);
		return -ENOMEM;
	}
	for (int i = 0; i < funcs.n; i++)
		cookies[i] = COOKIE(i, func_flags(funcs.f[i].name), funcs.f[i].arg);
	if (door == DOOR_FENTRY) {
		err = mass_attach_fentry(&ma, templ, NULL);
	} else if (door == DOOR_KPROBE) {
		err = mass_attach_kprobes(&ma, skel->progs.func_multi, skel->progs.func_kprobe,
					  false);
	} else {
		err = mass_attach_loaded(&ma, skel->obj, "tp_btf/");
		ma.how = "tp_btf";
		total = TP_MAX;
	}
	if (err) {
		fprintf(stderr, "%s: cannot attach: %s\n", name, strerror(-err));
		return err;
	}
	fprintf(stderr, "%s: %s door, %s: %d of %d %s attached in %ld ms", name, door_name(door),
		ma.how, ma.attached, total, door == DOOR_TRACEPOINT ? "tracepoints" : "functions",
		(long)((tracer_now() - t0) * 1000 + 0.5));
	mass_attach_refusals(&ma, missing, stderr);
	if (why[0])
		fprintf(stderr, " (passed over: %s)", why);
	fprintf(stderr, "\n");
	if (!ma.attached) {
		fprintf(stderr, "%s: nothing attached\n", name);
		return -ENOENT;
	}
	return 0;
}

/*
 * Lesson#6: the trees. Events are grouped by the bio's address
 * (common/bio_forest.c) and a bio's tree is printed once it has ended.
 * Not at once: after bio_endio() a bio still passes a few functions
 * (its bi_end_io, bio_put()), so a tree waits this long after its end.
 */
#define GRACE_NS 100000000ULL

static struct bio_forest forest = {
	.size = sizeof(struct event),
	.ts_off = offsetof(struct event, ts),
};
static unsigned long long n_trees, n_events, no_memory;

static const char *point_name(__u32 point)
{
	if (door == DOOR_TRACEPOINT)
		return point < TP_MAX ? tp_names[point] : "?";
	return point < (__u32)funcs.n ? funcs.f[point].name : "?";
}

/* The operation, the low 8 bits of bi_opf: the first four have kept their numbers. */
static const char *op_name(__u32 opf, char *buf, size_t len)
{
	static const char *const ops[] = { "READ", "WRITE", "FLUSH", "DISCARD" };

	if ((opf & 0xff) < 4)
		return ops[opf & 0xff];
	snprintf(buf, len, "OP%u", opf & 0xff);
	return buf;
}

/*
 * The bio's header, then one line per point it passed: the time since
 * its first event, where and in which task it ran, and the bio's fields
 * there. The header has the fields at its submit.
 */
static void show_tree(const struct bio_forest *f, const struct bio_tree *t)
{
	const struct event *first = bio_tree_event(f, t, 0), *last, *head = first;
	bool submitted = false;
	char task[40], op[16];

	last = bio_tree_event(f, t, t->n - 1);
	for (int i = 0; i < t->n && !submitted; i++) {
		const struct event *e = bio_tree_event(f, t, i);

		if (e->flags & EV_SUBMIT) {
			head = e;
			submitted = true;
		}
	}
	n_trees++;
	printf("bio 0x%llx: %s sector=%llu size=%u, %d events in %.3f us%s%s\n",
	       (unsigned long long)t->bio, op_name(head->opf, op, sizeof(op)),
	       (unsigned long long)head->sector, head->size, t->n,
	       (last->ts - first->ts) / 1000.0, submitted ? "" : ", no submit seen",
	       t->end_ns ? "" : ", not ended");
	for (int i = 0; i < t->n; i++) {
		const struct event *e = bio_tree_event(f, t, i);

		snprintf(task, sizeof(task), "%.16s-%u", e->comm, e->pid);
		printf("  %10.3f us  cpu%-2u %-18s %-24s sector=%llu size=%u %s%s\n",
		       (e->ts - first->ts) / 1000.0, e->cpu, task, point_name(e->point),
		       (unsigned long long)e->sector, e->size, op_name(e->opf, op, sizeof(op)),
		       e->flags & EV_END ? "  (end)" : "");
	}
}

/*
 * Does e start a new life at t's address, whose end was not sent
 * (Lost:)? A begin after a begin or a submit does. A submit after a
 * submit does unless it lands inside the first one's sectors: that is
 * the rest of a split bio, queued again (the tracepoint door, before 6.2).
 */
static bool new_life(const struct bio_tree *t, const struct event *e)
{
	for (int i = 0; i < t->n; i++) {
		const struct event *o = bio_tree_event(&forest, t, i);

		if ((e->flags & EV_BEGIN) && (o->flags & (EV_BEGIN | EV_SUBMIT)))
			return true;
		if ((e->flags & EV_SUBMIT) && (o->flags & EV_SUBMIT))
			return e->sector < o->sector || e->sector >= o->sector + o->size / 512;
	}
	return false;
}

/* Lesson#4: called by ring_buffer__poll() for each event the BPF side sent. */
static int handle_event(void *ctx, void *data, size_t size)
{
	const struct event *e = data;
	struct bio_tree *t = bio_tree_find(&forest, e->bio);

	/*
	 * The kernel reuses addresses: an ended bio's, begun or submitted
	 * again, is a new bio. Its old tree is printed now, after those that
	 * ended before it. So is a tree whose end was not sent (Lost:) when
	 * its bio is begun or submitted again: at once, marked not ended.
	 */
	if (t && t->end_ns && (e->flags & (EV_BEGIN | EV_SUBMIT)))
		bio_forest_flush(&forest, t->end_ns + 1, false, show_tree);
	else if (t && new_life(t, e))
		bio_forest_take(&forest, t, show_tree);
	/* -d: bio_init()'s disk is not set yet: a new life, not an event to show */
	if (env.dev && (e->flags & EV_BEGIN))
		return 0;
	n_events++;
	t = bio_tree_add(&forest, e->bio, e);
	if (!t)
		no_memory++;
	else if (e->flags & EV_END)
		t->end_ns = e->ts;
	return 0;
}

/* Every 100 ms: print the trees ended before the grace (tracer_now(): the BPF clock). */
static int tick(void *arg)
{
	bio_forest_flush(&forest, tracer_now() * 1e9 - GRACE_NS, false, show_tree);
	return 0;
}

/*
 * The workbook's summary: the bios submitted and ended (counted in BPF,
 * so -q has them too), those in flight when tracing began or ended (not
 * lost), and every loss.
 */
static void summary(struct class_trace_bpf *skel, const __u64 *s)
{
	__u64 left = starts_in_flight(skel->maps.start);
	const struct loss lost[] = {
		{ "ring_buffer_full", "events not sent (ring buffer full)", s[STAT_RB_FULL] },
		{ "map_full", "start records not stored (map full)", s[STAT_MAP_FULL] },
		{ "stale_start", "starts replaced before their end was seen (end not traced, "
		  "or requeued)", s[STAT_STALE] },
		{ "walk_cut", "rq->bio walks cut short", s[STAT_WALK_CUT] },
		{ "kprobe_missed", "events missed by the kprobe (another kprobe was running)",
		  ma.kprobe_missed },
		{ "recursion_missed", "events missed by recursion",
		  recursion_misses(skel->obj) + ma.recursion_misses },
		{ "no_memory", "events not kept in a tree (out of memory)", no_memory },
	};

	if (!env.quiet)
		printf("Trees: %llu bios, %llu events\n", n_trees, n_events);
	printf("Events: submit_bio %llu, bio_endio %llu\n", (unsigned long long)s[STAT_SUBMIT],
	       (unsigned long long)s[STAT_DONE]);
	if (s[STAT_SPLIT_PART])
		printf("Split: %llu parts of split bios, each ended with its bio\n",
		       (unsigned long long)s[STAT_SPLIT_PART]);
	if (s[STAT_NO_START] || left)
		printf("In flight at start: %llu bios ended without their submit seen (begun "
		       "before tracing); at exit: %llu not finished\n",
		       (unsigned long long)s[STAT_NO_START], (unsigned long long)left);
	lost_lines(stdout, lost, ARRAY_SIZE(lost));
}

int main(int argc, char **argv)
{
	struct tracer t = TRACER_INIT(name);
	struct class_trace_bpf *skel = NULL;
	__u64 stats[STAT_MAX] = {};	/* the BPF side's counters, summed over the CPUs */
	char why[160] = "";
	int err = 1, missing = 0;

	parse_args(&argp, argc, argv, NULL);
	if (tracer_preflight(name))
		return 1;
	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux) {
		fprintf(stderr, "%s: cannot read kernel BTF: %s\n", name, strerror(errno));
		return 1;
	}

	/* Open the skeleton, set read-only data and choose the door before load. */
	skel = class_trace_bpf__open();
	if (!skel) {
		fprintf(stderr, "%s: cannot open BPF object\n", name);
		goto cleanup;
	}
	skel->rodata->quiet = env.quiet;
	skel->rodata->targ_dev = env.dev;
	/* BIO_CLONED's bit on this kernel, from its BTF (bio_end.bpf.h) */
	skel->rodata->bio_cloned_flag = bio_cloned_flag(vmlinux);
	if (choose_door(skel, why, sizeof(why), &missing))
		goto cleanup;
	err = class_trace_bpf__load(skel);
	if (err) {
		fprintf(stderr, "%s: cannot load BPF object: %s (try -v)\n", name, strerror(-err));
		goto cleanup;
	}
	t.rb = ring_buffer__new(bpf_map__fd(skel->maps.events), handle_event, NULL, NULL);
	if (!t.rb) {
		err = -errno;
		fprintf(stderr, "%s: cannot read the ring buffer: %s\n", name, strerror(errno));
		goto cleanup;
	}
	err = attach(skel, why, missing);
	if (err)
		goto cleanup;
	fprintf(stderr, "Tracing%s%s... Hit Ctrl-C to end.\n",
		env.disk ? " " : "", env.disk ? env.disk : "");

	/* The common run loop: signals, --duration, the ring buffer; tick prints trees. */
	t.interval_ms = 100;
	t.tick = tick;
	err = tracer_run(&t);
	/* Every link goes at once: no end is seen after the submits stop. */
	mass_attach_detach(&ma);
	ring_buffer__consume(t.rb);
	if (!err) {
		/* what is left: ended within the grace, or still in flight */
		bio_forest_flush(&forest, 0, true, show_tree);
		read_counters(skel->maps.stats, stats, STAT_MAX);
		summary(skel, stats);
		err = tracer_output_ok(&t);
	}
cleanup:
	tracer_close(&t);
	mass_attach_free(&ma);
	class_trace_bpf__destroy(skel);
	bio_funcs_free(&funcs);
	btf__free(vmlinux);
	free(cookies);
	return err ? 1 : 0;
}
