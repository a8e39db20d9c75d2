// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ctracer, the user side: find every kernel function that takes a
 * struct bio * (BTF), attach to them all in the best door this kernel
 * has, and print each bio's path as a tree once the bio has ended.
 */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include "bio_trees.h"
#include "btf_modules.h"
#include "btf_scan.h"
#include "call_graph.h"
#include "disk_name.h"
#include "mass_attach.h"
#include "pid_arg.h"
#include "req_opf.h"
#include "ring_rounds.h"
#include "sector_range.h"
#include "summary.h"
#include "tracer.h"
#include "tree_jsonl.h"
#include "tree_summary.h"
#include "tree_view.h"
#include "ctracer.h"
#include "ctracer.skel.h"

static struct {
	bool list;		/* --list: print the functions, trace nothing */
	unsigned int pid;	/* -p: that process's bios only */
	bool returns;		/* -r: each function's return too */
	bool sectors;		/* -s: bios that meet [first, last] only */
	unsigned long long first, last;
	double tree_timeout;	/* --tree-timeout: seconds a tree may wait for its end */
} opt = { .tree_timeout = 5 };

enum { OPT_LIST = 0x200, OPT_TRACE_JSON, OPT_HTML, OPT_TREE_TIMEOUT };

static const struct argp_option options[] = {
	{ "list", OPT_LIST, NULL, 0, "List the functions that take a struct bio *, and exit", 0 },
	{ "pid", 'p', "PID", 0,
	  "Only the bios this process submits (all its threads; a thread ID: its process)", 0 },
	{ "returns", 'r', NULL, 0,
	  "Each function's return too, with its duration (function doors; 2-3 times the attach time)", 0 },
	{ "sectors", 's', "START[-END]", 0,
	  "Only the bios that meet these sectors (512 bytes) when submitted", 0 },
	{ "trace-json", OPT_TRACE_JSON, "FILE", 0,
	  "Also write the bios as Chrome trace events (Perfetto, speedscope)", 0 },
	{ "html", OPT_HTML, "FILE", 0, "Also write a page of each bio's timeline and call tree", 0 },
	{ "tree-timeout", OPT_TREE_TIMEOUT, "SECONDS", 0,
	  "Print a bio's tree without its end after SECONDS with no event (default 5)", 0 },
	{},
};

static struct tree_view view;	/* --trace-json, --html */
static struct tree_jsonl jl;	/* -j */

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'r':
		opt.returns = true;
		break;
	case 's':
		opt.sectors = !parse_sector_range(arg, &opt.first, &opt.last);
		if (!opt.sectors)
			argp_error(state, "-s needs decimal sectors START or START-END "
				   "(END >= START), not '%s'", arg);
		break;
	case OPT_LIST:
		opt.list = true;
		break;
	case OPT_TRACE_JSON:
		view.json_path = arg;
		break;
	case OPT_HTML:
		view.html_path = arg;
		break;
	case OPT_TREE_TIMEOUT:	/* as --duration */
		opt.tree_timeout = parse_seconds(arg);
		if (opt.tree_timeout < 0)
			argp_error(state, "--tree-timeout needs a positive number of seconds, "
				   "not '%s'", arg);
		break;
	case 'p':
		opt.pid = parse_pid_arg(state, arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child children[] = {
	{ &common_argp, 0, NULL, 0 },
	{ &json_argp, 0, NULL, 0 },
	{},
};

static const struct argp argp = {
	.options = options,
	.parser = parse_opt,
	.children = children,
	.doc = "Follow each bio through every kernel function that takes a struct bio *\n"
	       "(one fentry program per function, kprobe.multi or one kprobe per function;\n"
	       "else the block tracepoints) and print its path as a tree.\v"
	       "Examples:\n"
	       "  ctracer --list             # the functions, from the kernel's BTF\n"
	       "  ctracer -d loop0           # every bio of one disk, until Ctrl-C\n"
	       "  ctracer -d sda -p 1234     # only the bios process 1234 submits\n"
	       "  ctracer -a kprobe -d sda   # kprobe.multi: hundreds attached at once\n"
	       "  ctracer -r -d sda -s 2048  # the bios at sector 2048, with each return\n"
	       "  ctracer -d sda -j > bios.jsonl  # a JSON object per bio (docs/json.md)\n"
	       "  ctracer -d sda --html b.html --trace-json b.json  # a page; one for Perfetto",
};

/* The tracepoint door's points, in the order of enum ct_tp. */
static const char *const tp_names[TP_MAX] = {
	[TP_BIO_QUEUE] = "block_bio_queue", [TP_BIO_BACKMERGE] = "block_bio_backmerge",
	[TP_BIO_FRONTMERGE] = "block_bio_frontmerge", [TP_BIO_REMAP] = "block_bio_remap",
	[TP_SPLIT] = "block_split", [TP_GETRQ] = "block_getrq", [TP_RQ_INSERT] = "block_rq_insert",
	[TP_RQ_ISSUE] = "block_rq_issue", [TP_RQ_COMPLETE] = "block_rq_complete",
	[TP_BIO_COMPLETE] = "block_bio_complete",
};
/* Where an event ran (ct_event.ctx). */
static const char *const ctx_names[CT_CTX_IRQ + 1] = {
	[CT_CTX_TASK] = "task", [CT_CTX_SOFTIRQ] = "softirq", [CT_CTX_HARDIRQ] = "hardirq",
	[CT_CTX_NMI] = "nmi", [CT_CTX_IRQ] = "irq",
};

static struct bio_funcs funcs;	/* the function doors' points */
static struct btf *vmlinux;
static struct req_names req_names;
static int door;		/* enum door */
static bool returns_on;		/* -r, in a door that has returns */
static char passed_over[160];	/* -a auto: doors passed over, and why */
static struct bpf_program *templ[BIO_ARG_MAX];	/* fentry: one per bio position */

static int load_vmlinux(const char *name)
{
	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux)
		fprintf(stderr, "%s: cannot read kernel BTF: %s\n", name, strerror(errno));
	return vmlinux ? 0 : -1;
}

/* A module's functions; the list keeps a copy of its name. */
static int scan_module(const struct btf *mod, const char *module, void *arg)
{
	return btf_scan_bio(mod, btf__type_cnt(vmlinux), module, &funcs);
}

/*
 * Lesson#1: every function with a struct bio * parameter, from the BTF
 * of the kernel and of each module (split BTF on top of the kernel's),
 * as pahole's pfunct --class=bio did from DWARF.
 */
static int discover(const char *name)
{
	int err = btf_scan_bio(vmlinux, 0, NULL, &funcs);

	if (!err)
		err = btf_modules_each(vmlinux, scan_module, NULL);
	if (err) {
		fprintf(stderr, "%s: out of memory\n", name);
		return -1;
	}
	bio_funcs_sort(&funcs);

	/* What ftrace can attach to; notrace and inlined functions are not there. */
	bio_funcs_traceable(&funcs, name);
	return 0;
}

/* What a function means for a bio's life; the rest only pass it along. */
static __u8 func_flags(const char *fn)
{
	/* a new bio, its disk set inside; a split's part may meet bio_init() only inlined */
	if (!strcmp(fn, "bio_init"))
		return CT_BEGIN | CT_NO_DISK;
	if (!strcmp(fn, "bio_chain"))
		return CT_BEGIN | CT_CHAIN;
	if (!strcmp(fn, "submit_bio") || !strcmp(fn, "submit_bio_noacct"))
		return CT_SUBMIT;
	if (!strcmp(fn, "bio_endio"))
		return CT_END;
	return 0;
}

/* Before load: keep the programs of the door, and the tracepoints this kernel has. */
static int choose_door(const char *name, struct ctracer_bpf *skel, int *missing)
{
	struct bpf_program *prog;
	const char *why;
	bool kp;

	*missing = 0;
	/* Lesson#2: the door, in the order of every stage (mass_attach.c) */
	door = mass_attach_door(vmlinux, env.door, name, passed_over, sizeof(passed_over));
	if (door < 0)
		return -1;
	/* a tree starts at its submit: the tracepoint door needs that one */
	why = door == DOOR_TRACEPOINT ? tp_missing(vmlinux, "block_bio_queue") : NULL;
	if (why) {
		fprintf(stderr, "%s: no %s door on this kernel (%s%stracepoint: block_bio_queue %s)\n",
			name, env.door == DOOR_AUTO ? "working" : "tracepoint", passed_over,
			passed_over[0] ? "; " : "", why);
		return -1;
	}
	returns_on = opt.returns && door != DOOR_TRACEPOINT;
	view.nest = returns_on;
	skel->rodata->returns = returns_on;
	/* the function doors' points: found only when they are to be used */
	if (door != DOOR_TRACEPOINT && discover(name))
		return -1;
	if (door != DOOR_TRACEPOINT && !funcs.n) {
		fprintf(stderr, "%s: no function takes a struct bio * here\n", name);
		return -1;
	}
	bpf_object__for_each_program(prog, skel->obj) {
		const char *sec = bpf_program__section_name(prog);
		bool keep = door == DOOR_TRACEPOINT && !strncmp(sec, "tp_btf/block_", 13);

		keep |= !env.quiet && !strncmp(sec, "tp_btf/workqueue_", 17); /* loop workers */

		if (keep && tp_missing(vmlinux, sec + 7)) {
			keep = false;
			(*missing)++;
		}
		bpf_program__set_autoload(prog, keep);
	}
	/* fentry: a template per position of the bio (ctracer.bpf.c) */
	templ[0] = skel->progs.bio_fentry_arg1;
	templ[1] = skel->progs.bio_fentry_arg2;
	templ[2] = skel->progs.bio_fentry_arg3;
	templ[3] = skel->progs.bio_fentry_arg4;
	templ[4] = skel->progs.bio_fentry_arg5;
	if (door == DOOR_FENTRY)
		mass_attach_templates(templ, &funcs);
	bpf_program__set_autoload(skel->progs.bio_fexit, door == DOOR_FENTRY && returns_on);
	kp = door == DOOR_KPROBE;
	bpf_program__set_autoload(skel->progs.bio_func_multi, kp);
	bpf_program__set_autoload(skel->progs.bio_func_kprobe, kp);
	bpf_program__set_autoload(skel->progs.bio_ret_multi, kp && returns_on);
	bpf_program__set_autoload(skel->progs.bio_ret_kprobe, kp && returns_on);
	return 0;
}

static struct mass_attach ma;
static __u64 *cookies;

/*
 * Lesson#3: one program for every function, told apart by the cookie
 * of each attachment (its index, what it means for the bio, which
 * argument holds the bio): one kprobe.multi link, else one kprobe per
 * function; in the fentry door a copy of a template per function.
 */
static int attach(const char *name, struct ctracer_bpf *skel, int missing)
{
	const char *how = "tp_btf";
	int err, total = funcs.n;
	double t0 = tracer_now();

	view.base = t0 * 1e9;	/* the views' time 0: before any event (tracer_now()'s clock) */
	cookies = calloc(funcs.n ? funcs.n : 1, sizeof(*cookies));
	if (!cookies || mass_attach_init(&ma, &funcs, cookies))
		return -ENOMEM;
	for (int i = 0; i < funcs.n; i++)
		cookies[i] = CT_COOKIE(i, func_flags(funcs.f[i].name), funcs.f[i].arg);
	if (door == DOOR_FENTRY) {
		/* fexit reads no argument: one program fits every function */
		err = mass_attach_fentry(&ma, templ, returns_on ? skel->progs.bio_fexit : NULL);
	} else if (door == DOOR_KPROBE) {
		err = mass_attach_kprobes(&ma, skel->progs.bio_func_multi,
					  skel->progs.bio_func_kprobe, false);
		if (!err && returns_on)
			err = mass_attach_kprobes(&ma, skel->progs.bio_ret_multi,
						  skel->progs.bio_ret_kprobe, true);
	} else {
		err = mass_attach_loaded(&ma, skel->obj, "tp_btf/block_");
		total = ma.attached + ma.refused + missing;
	}
	how = door == DOOR_TRACEPOINT ? how : ma.how;
	if (err) {
		fprintf(stderr, "%s: cannot attach: %s\n", name, strerror(-err));
		return err;
	}
	fprintf(stderr, "%s: %s door, %s: %d of %d %s", name, door_name(door), how, ma.attached,
		total, door == DOOR_TRACEPOINT ? "tracepoints" : "functions");
	if (returns_on)
		fprintf(stderr, " and %d returns", ma.ret_attached);
	fprintf(stderr, " attached in %ld ms", (long)((tracer_now() - t0) * 1000 + 0.5));
	mass_attach_refusals(&ma, missing, stderr);
	if (passed_over[0])
		fprintf(stderr, " (passed over: %s)", passed_over);
	if (opt.returns && !returns_on)
		fprintf(stderr, " (-r: the tracepoint door has no returns)");
	fprintf(stderr, "\n");
	if (!ma.attached) {
		fprintf(stderr, "%s: nothing attached\n", name);
		return -ENOENT;
	}
	/* Lesson#8: the loop workers (in the object's order: their start last) */
	err = ma.refused;
	if (!env.quiet && (mass_attach_loaded(&ma, skel->obj, "tp_btf/workqueue_") ||
			   ma.refused > err))
		fprintf(stderr, "%s: the workqueue tracepoints refused: bios sent below "
			"a loop device are not linked\n", name);
	tree_view_begin(&view, door_name(door), how);
	return 0;
}

/*
 * One bio's life, a tree: its events in order (bio_trees.c), printed
 * once it has ended, or when it had no event for --tree-timeout.
 */
static struct bio_trees trees = {
	.size = sizeof(struct ct_event),
	.ts_off = offsetof(struct ct_event, ts),
	.end = CT_END,
};
/* After its end a bio is still handed to a few functions (its bi_end_io …). */
#define TREE_GRACE 0.1

/* unfinished: trees closed by --tree-timeout; late: their events after */
static unsigned long long n_bios, no_end, no_submit, no_return, late_returns, unfinished, late;
static struct btt_hists btt;	/* where the bios' time went, per phase */

/* The bio above it was sent for, or the bio it is chained to: 0, none. */
static __u64 tree_parent(const struct bio_tree *t)
{
	const struct ct_event *e = t->ev;

	for (int i = 0; i < t->n; i++)
		if (e[i].parent)
			return e[i].parent;
	return 0;
}

/* Trees printed without their end when their address began a new bio. */
static unsigned long long begun_again;

static const char *point_name(__u32 id)
{
	if (door == DOOR_TRACEPOINT)
		return id < TP_MAX ? tp_names[id] : "?";
	return id < (__u32)funcs.n ? funcs.f[id].name : "?";
}

/* The thread, or an interrupt of a CPU: the BPF side keys the open calls so. */
static __u64 who_of(const struct ct_event *e)
{
	if (e->ctx == CT_CTX_TASK && e->pid)
		return e->pid;
	return 1ULL << 63 | (__u64)e->ctx << 32 | e->cpu;
}

/*
 * Lesson#4: with -r, pair each return with the latest open call of its
 * function in the same thread or interrupt (call_graph.c); the rows of
 * the tree. rows has room for t->n rows.
 */
static int lay_out(const struct bio_tree *t, struct call_row *rows)
{
	struct call_ev *ev = calloc(t->n, sizeof(*ev));
	const struct ct_event *e = t->ev;
	int n, unreturned;

	if (!ev)
		return 0;
	for (int i = 0; i < t->n; i++)
		ev[i] = (struct call_ev){ .who = who_of(&e[i]), .ts = e[i].ts, .id = e[i].id,
					  .ret = e[i].flags & CT_RET };
	n = call_graph(ev, t->n, returns_on, rows, &unreturned);
	no_return += unreturned;
	free(ev);
	return n;
}

/*
 * Lesson#5: like ftrace's function graph, one line per function the
 * bio went through (tree_view.c): time since its first event, CPU,
 * context, task, function (nested, with its duration, under -r), and the
 * bio's fields where they changed. --trace-json, --html and -j get the
 * same rows.
 */
static void print_tree(const struct bio_tree *t)
{
	const struct ct_event *first = t->ev, *last = first + t->n - 1, *on = last;
	struct call_row *rows = calloc(t->n, sizeof(*rows));
	struct btt_marks marks = {};
	struct tree_bio b;
	__u64 parent = tree_parent(t);	/* chained: once bio_chain() has run */
	char task[40], disk[32];
	int n;

	if (!rows)
		return;
	while (on > first && !on->dev)	/* its disk: where last seen (a clone starts above) */
		on--;
	n = lay_out(t, rows);
	b = (struct tree_bio){ .addr = t->bio, .parent = parent, .stacked = t->flags & CT_STACKED,
		.disk = disk_name(on->dev, disk, sizeof(disk)), .events = t->n,
		.submitted = t->flags & CT_SUBMIT, .ended = t->flags & CT_END,
		.sector = first->sector, .size = first->size, .opf = first->opf,
		.first = first->ts, .last = last->ts };
	tree_view_bio(&view, &b);
	tree_jsonl_bio(&jl, &b);
	for (int i = 0; i < n; i++) {
		const struct call_row *r = &rows[i];
		const struct ct_event *e = &first[r->ev];
		struct tree_row row;

		snprintf(task, sizeof(task), "%.16s-%u", e->comm, e->pid);
		/* Lesson#6: blktrace's phases, from the points this door has */
		if (!r->close)
			btt_mark(&marks, point_name(e->id), e->flags & CT_END, e->ts);
		row = (struct tree_row){ .point = point_name(e->id),
			.ctx = e->ctx <= CT_CTX_IRQ ? ctx_names[e->ctx] : "?",
			.task = task, .comm = e->comm, .tid = e->pid, .ts = e->ts,
			.at = (r->close ? e->ts + r->dur : e->ts) - first->ts, .dur = r->dur,
			.sector = e->sector, .size = e->size, .opf = e->opf, .status = e->status,
			.end = e->flags & CT_END, .cpu = e->cpu, .depth = r->depth,
			.leaf = r->leaf, .close = r->close };
		tree_view_row(&view, &row);
		tree_jsonl_row(&jl, &row);
	}
	/* chained to by parts (a split): it ended when the last of them did */
	if (marks.ts[BTT_C] && t->parts_end > marks.ts[BTT_C])
		marks.ts[BTT_C] = t->parts_end;
	btt_add(&btt, &marks);
	tree_view_bio_end(&view, &marks);
	tree_jsonl_bio_end(&jl, &marks);
	free(rows);
	if (!(t->flags & CT_SUBMIT) && !parent)
		no_submit++;
	if (!(t->flags & CT_END))
		(*(t->timed_out ? &unfinished : t->cut ? &begun_again : &no_end))++;
}

/*
 * A split's parts: a part (chained by bio_chain(), not sent below)
 * counts in its parent's parts until it ends. The parent ends when its
 * own end and all its parts' have come (bio_endio() returns early for
 * it until then): its tree waits for them.
 */
static void part_begins(struct bio_tree *t, const struct ct_event *e)
{
	struct bio_tree *p;

	if (!e->parent || (e->flags & CT_STACKED) || t->part_of || (t->flags & CT_END))
		return;
	p = bio_tree_find(&trees, e->parent);
	if (!p || p == t || ((p->flags & CT_END) && !p->parts))
		return;
	p->parts++;
	t->part_of = p->bio;
	t->part_of_life = p->life;
}

/* t ended at ts (0: leaves without its end): its parent waits no more for it. */
static void part_ends(struct bio_tree *t, __u64 ts)
{
	struct bio_tree *p;

	if (!t->part_of)
		return;
	p = bio_tree_find(&trees, t->part_of);
	t->part_of = 0;
	if (!p || p->life != t->part_of_life || !p->parts)
		return;
	if (ts > p->parts_end)
		p->parts_end = ts;
	if (!--p->parts && (p->flags & CT_END))
		p->ended_at = tracer_now();	/* its grace from now */
}

/* Out of the table for good: print it, free it. */
static void print_free(struct bio_tree *t)
{
	part_ends(t, 0);
	print_tree(t);
	bio_tree_free(t);
}

/*
 * Print and forget the trees ended before `before` (all, when all), and
 * those still without an end that had no event for --tree-timeout (an
 * end dropped or never sent): the memory they hold is bounded.
 */
static void flush_trees(double before, bool all)
{
	double idle = tracer_now() - opt.tree_timeout;	/* bpf_ktime_get_ns()'s clock */
	int n;
	struct bio_tree **out = bio_trees_take(&trees, before, idle > 0 ? idle * 1e9 : 0, all, &n);

	for (int i = 0; i < n; i++)
		print_free(out[i]);
	free(out);
}

/* Is sector inside o's [sector, sector + size)? Nothing is in a bio of no bytes. */
static bool inside(const struct ct_event *o, __u64 sector)
{
	return sector >= o->sector && sector < o->sector + o->size / 512;
}

/*
 * Where a bio's later points can find it: inside its sectors (a split's
 * rest, a request partly done), or at their end, all done (a write's
 * flush data step); a bio of no bytes (a flush) stays where it was.
 */
static bool meets(const struct ct_event *o, const struct ct_event *e)
{
	return e->sector == o->sector || inside(o, e->sector) ||
	       (!e->size && e->sector == o->sector + o->size / 512);
}

/* The tracepoint door's points, in the order a bio's life passes them. */
static int tp_stage(__u32 id)
{
	switch (id) {
	case TP_SPLIT:
	case TP_BIO_REMAP:	/* a partition's, before its queue */
	case TP_BIO_QUEUE:
		return 0;
	case TP_BIO_BACKMERGE:
	case TP_BIO_FRONTMERGE:
	case TP_GETRQ:
		return 1;
	case TP_RQ_INSERT:	/* a request requeued is inserted again */
	case TP_RQ_ISSUE:
		return 2;
	}
	return 3;		/* a completion: in pieces, then whole */
}

/*
 * The tracepoint door: does e begin a new bio at t's address, although
 * t has not ended (its end dropped with a full ring buffer, or never
 * sent)? A split's part begins there, and a clone for another bio. A
 * life passes the points in order (it gets one request; a request partly
 * done may be issued again), and keeps to its sectors: queued again only
 * inside its first queue's (a split's rest, before 6.2), moved only by
 * a remap.
 */
static bool tp_new_life(const struct bio_tree *t, const struct ct_event *e)
{
	const struct ct_event *ev = t->ev, *queued = NULL;
	__u64 parent = tree_parent(t);
	bool met = false;

	if (e->flags & CT_BEGIN)	/* block_split, a part first followed */
		return true;
	if (e->parent && parent && e->parent != parent)
		return true;
	for (int i = 0; i < t->n; i++) {
		if (tp_stage(e->id) < 2 && tp_stage(ev[i].id) > tp_stage(e->id))
			return true;
		if (!queued && (ev[i].flags & CT_SUBMIT))
			queued = &ev[i];
		met = met || meets(&ev[i], e);
	}
	/* one of no bytes (a flush) is submitted again only where it was */
	if (e->flags & CT_SUBMIT)
		return queued && !inside(queued, e->sector) &&
		       (queued->size || queued->sector != e->sector);
	return e->id != TP_BIO_REMAP && !met;
}

/*
 * The function doors, as stage 10's class_trace: a begin (bio_init(),
 * the first event sent after it under -d, a part first followed) comes
 * first in a life; bio_chain() after it, before any submit. A submit
 * after a submit begins a new bio unless it lands inside the sectors the
 * bio showed since (a split's rest), or is sent on to another disk (md).
 */
static bool fn_new_life(const struct bio_tree *t, const struct ct_event *e)
{
	const struct ct_event *ev = t->ev, *submit = NULL;

	if ((e->flags & CT_BEGIN) && !(e->flags & CT_CHAIN))
		return true;
	if (e->flags & CT_CHAIN)
		return t->flags & (CT_SUBMIT | CT_CHAIN);
	if (!(e->flags & CT_SUBMIT))
		return false;
	for (int i = 0; i < t->n; i++) {
		if (!submit && !(ev[i].flags & CT_SUBMIT))
			continue;
		submit = submit ?: &ev[i];
		if (e->dev != submit->dev)
			return false;
		if (!(ev[i].flags & CT_RET) && inside(&ev[i], e->sector))
			return false;
	}
	return submit != NULL;
}

/*
 * Does e begin a new bio at t's address? Addresses come back as soon as
 * a bio ends. After an end, in the tracepoint door nothing of its life
 * comes; in the function doors its bi_end_io, bio_put() … do, but no
 * begin or submit (a clone's bio_init() may be inlined: its new bio
 * above tells). Before an end (dropped, or not traced), the door's order
 * of a life says.
 */
static bool new_life(const struct bio_tree *t, const struct ct_event *e)
{
	if (e->flags & CT_RET)		/* a return: its call's life */
		return false;
	if (t->flags & CT_END) {
		if (door == DOOR_TRACEPOINT)
			return true;
		return (e->flags & (CT_BEGIN | CT_SUBMIT)) ||
		       (e->parent && tree_parent(t) != e->parent);
	}
	return door == DOOR_TRACEPOINT ? tp_new_life(t, e) : fn_new_life(t, e);
}

static int handle_event(void *ctx, void *data, size_t size)
{
	const struct ct_event *e = data;
	struct bio_tree *t = bio_tree_find(&trees, e->bio);

	/* a new life at the address: the old one's tree printed first, ended or not */
	if (t && new_life(t, e)) {
		bio_tree_remove(&trees, t);
		t->cut = !(t->flags & CT_END);
		print_free(t);
		t = NULL;
	}
	if (!t && (e->flags & CT_RET)) {
		late_returns++;	/* its tree was printed already */
		return 0;
	}
	/* an event of a tree --tree-timeout printed: late, not a new bio */
	if (!t && bio_trees_late(&trees, e->bio, e->flags & (CT_BEGIN | CT_SUBMIT))) {
		late++;
		return 0;
	}
	n_bios += !t;
	t = bio_tree_add(&trees, e->bio, e, e->flags);
	if (!t)
		return -ENOMEM;
	part_begins(t, e);
	if (e->flags & CT_END) {
		t->ended_at = tracer_now();
		part_ends(t, e->ts);
	}
	return 0;
}

/* Between rounds of events: print (and free) what has ended. */
static void print_ended(void)
{
	if (!env.quiet)
		flush_trees(tracer_now() - TREE_GRACE, false);
}

/*
 * Every tick: read the ring buffer in rounds (ring_rounds.c: under a
 * flood it never empties, and the trees must not wait for it to), for at
 * most a second: the run loop checks its signals between ticks.
 */
static int tick(void *arg)
{
	ring_rounds_drain(arg, 1, print_ended);
	return 0;
}

/* How many entries of map hold value in their first byte (-1: any). */
static __u64 map_entries(const struct bpf_map *map, int value)
{
	size_t ks = bpf_map__key_size(map), vs = bpf_map__value_size(map);
	char key[64], val[64];
	bool first = true;
	__u64 n = 0;

	if (ks > sizeof(key) || vs > sizeof(val))
		return 0;
	while (!bpf_map__get_next_key(map, first ? NULL : key, key, ks)) {
		first = false;
		if (value < 0 ||
		    (!bpf_map__lookup_elem(map, key, ks, val, vs, 0) && val[0] == value))
			n++;
	}
	return n;
}

/*
 * An LRU map's entries it forgot while still needed: those that went in
 * and neither came out nor are left in it now (the programs detached).
 */
static __u64 evicted(__u64 in, __u64 out, __u64 left)
{
	return in > out + left ? in - out - left : 0;
}

/*
 * At exit (tree_summary.c): where the bios' time went, the counts, and
 * what the kernel's counters (total: ctstats) and the trees say was lost.
 */
static void summary(struct ctracer_bpf *skel, const __u64 *total)
{
	__u64 followed = evicted(total[CT_FOLLOW_IN], total[CT_FOLLOW_OUT],
				 map_entries(skel->maps.followed, CT_FOLLOWED));
	__u64 calls = evicted(total[CT_CALLS_IN], total[CT_CALLS_OUT],
			      map_entries(skel->maps.calls, -1));
	const struct loss lost[] = {
		{ "ring_buffer_full", "events the ring buffer had no room for", total[CT_RB_DROP] },
		{ "followed_map_full", "bios not followed (-p, -s: map full)", total[CT_PID_FULL] },
		{ "followed_evicted", "bios no longer followed before their end (-p, -s: map "
		  "full, the oldest forgotten)", followed },
		{ "walk_cut", "rq->bio walks cut short", total[CT_WALK_CUT] },
		{ "calls_map_full", "returns not followed (-r: map full)", total[CT_CALLS_FULL] },
		{ "calls_evicted", "returns not followed (-r: map full, the oldest call forgotten)",
		  calls },
		{ "kprobe_missed", "events missed by the kprobe (another kprobe was running)",
		  ma.kprobe_missed },
		{ "recursion_missed", "events missed by recursion",
		  recursion_misses(skel->obj) + ma.recursion_misses },
		{ "late_returns", "returns after their bio's tree was printed", late_returns },
		{ "stacked_map_full", "bios sent below not linked (stacked or serving map full)",
		  total[CT_STACK_FULL] },
	};

	tree_summary_print(stdout, &btt, &(struct tree_counts){ .hits = total[CT_EVENTS],
			   .bios = n_bios, .no_submit = no_submit, .no_end = no_end,
			   .no_return = no_return, .unfinished = unfinished, .late = late,
			   .begun_again = begun_again,
			   .unlinked = total[CT_STACK_UNLINKED],
			   .tree_timeout = opt.tree_timeout }, lost, ARRAY_SIZE(lost));
}

int main(int argc, char **argv)
{
	struct tracer t = TRACER_INIT("ctracer");
	struct ring_rounds rr = {};
	struct ctracer_bpf *skel = NULL;
	__u64 total[CT_STAT_MAX] = {};	/* ctstats, summed over the CPUs */
	int err = 1, missing;

	parse_args(&argp, argc, argv, NULL);
	if (opt.list) {
		err = load_vmlinux(t.name) || discover(t.name);
		if (!err)
			bio_funcs_print(&funcs, stdout);
		goto cleanup;
	}
	if (env.quiet && (view.json_path || view.html_path)) {
		fprintf(stderr, "%s: -q sends no events: nothing for --trace-json or --html "
			"(try --help)\n", t.name);
		return 2;
	}
	if (tracer_preflight(t.name) || load_vmlinux(t.name) || tree_view_open(&view, t.name))
		goto cleanup;
	view.quiet = env.quiet || env.json;	/* -j: objects, not the trees' lines */
	view.names = jl.names = &req_names;
	jl.on = env.json;
	req_names_read(&req_names, vmlinux);

	skel = ctracer_bpf__open();
	if (!skel) {
		fprintf(stderr, "%s: cannot open BPF object\n", t.name);
		goto cleanup;
	}
	skel->rodata->quiet = env.quiet;
	skel->rodata->targ_dev = env.dev;
	skel->rodata->targ_pid = opt.pid;
	skel->rodata->targ_sectors = opt.sectors;
	skel->rodata->targ_first = opt.first;
	skel->rodata->targ_last = opt.last;
	/* BIO_CLONED's bit on this kernel, from its BTF (bio_end.bpf.h) */
	skel->rodata->bio_cloned_flag = bio_cloned_flag(vmlinux);
	if (choose_door(t.name, skel, &missing))
		goto cleanup;
	err = ctracer_bpf__load(skel);
	if (err) {
		fprintf(stderr, "%s: cannot load BPF object: %s (try -v)\n", t.name, strerror(-err));
		goto cleanup;
	}
	/* 16384 events a round: a few thousand trees, about 5 MB, at most */
	if (ring_rounds_open(&rr, bpf_map__fd(skel->maps.events), handle_event, NULL, 16384)) {
		fprintf(stderr, "%s: cannot read the ring buffer: %s\n", t.name, strerror(errno));
		err = 1;	/* the load left it 0 */
		goto cleanup;
	}
	err = attach(t.name, skel, missing);
	if (err)
		goto cleanup;
	fprintf(stderr, "Tracing%s%s... Hit Ctrl-C to end.\n",
		env.disk ? " " : "", env.disk ? env.disk : "");

	/* The common run loop: signals, --duration; tick reads the ring buffer. */
	t.interval_ms = 50;
	t.tick = tick;
	t.arg = &rr;
	err = tracer_run(&t);
	mass_attach_detach(&ma);
	ring_rounds_drain(&rr, 1e9, print_ended);	/* all that is left */
	if (!err && !env.quiet)
		flush_trees(0, true);
	if (!err) {
		read_counters(skel->maps.ctstats, total, CT_STAT_MAX);
		summary(skel, total);
		err = tracer_output_ok(&t);
	}
	if (tree_view_close(&view, t.name))
		err = -1;
cleanup:
	mass_attach_free(&ma);
	ring_rounds_close(&rr);
	ctracer_bpf__destroy(skel);
	bio_funcs_free(&funcs);
	btf__free(vmlinux);
	free(cookies);
	tree_view_close(&view, t.name);
	return err ? 1 : 0;
}
