// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ctracer, the user side: find every kernel function that takes a
 * struct bio * (BTF), attach to them all in the best door this kernel
 * has, and print each bio's path as a tree once the bio has ended.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "btf_scan.h"
#include "summary.h"
#include "tracer.h"
#include "ctracer.h"
#include "ctracer.skel.h"

static struct {
	bool list;		/* --list: print the functions, trace nothing */
	unsigned int pid;	/* -p: that process's bios only */
} opt;

enum { OPT_LIST = 0x200 };

static const struct argp_option options[] = {
	{ "list", OPT_LIST, NULL, 0, "List the functions that take a struct bio *, and exit", 0 },
	{ "pid", 'p', "PID", 0, "Only the bios this process submits (all its threads)", 0 },
	{},
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	long pid;

	switch (key) {
	case OPT_LIST:
		opt.list = true;
		break;
	case 'p':
		pid = parse_positive(arg, 0x7fffffff);
		if (pid < 0)
			argp_error(state, "-p needs a process ID, not '%s'", arg);
		opt.pid = pid;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
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
	.doc = "Follow each bio through every kernel function that takes a struct bio *\n"
	       "(the tracepoint door: the block tracepoints) and print its path as a tree.\v"
	       "Examples:\n"
	       "  ctracer --list             # the functions, from the kernel's BTF\n"
	       "  ctracer -d loop0           # every bio of one disk, until Ctrl-C\n"
	       "  ctracer -d sda -p 1234     # only the bios process 1234 submits\n"
	       "  ctracer -a tracepoint      # the block tracepoints only",
};

/* The tracepoint door's points, in the order of enum ct_tp. */
static const char *const tp_names[TP_MAX] = {
	[TP_BIO_QUEUE] = "block_bio_queue",
	[TP_BIO_BACKMERGE] = "block_bio_backmerge",
	[TP_BIO_FRONTMERGE] = "block_bio_frontmerge",
	[TP_BIO_REMAP] = "block_bio_remap",
	[TP_SPLIT] = "block_split",
	[TP_GETRQ] = "block_getrq",
	[TP_RQ_INSERT] = "block_rq_insert",
	[TP_RQ_ISSUE] = "block_rq_issue",
	[TP_RQ_COMPLETE] = "block_rq_complete",
	[TP_BIO_COMPLETE] = "block_bio_complete",
};

static struct bio_funcs funcs;	/* the function doors' points */
static enum door door;
static struct btf *vmlinux;

/* --- discovery ------------------------------------------------------ */

/*
 * Lesson#1: every function with a struct bio * parameter, from the BTF
 * of the kernel and of each module (/sys/kernel/btf/<module>, split BTF
 * on top of the kernel's), as pahole's pfunct --class=bio did from DWARF.
 */
static int load_vmlinux(const char *name)
{
	vmlinux = btf__load_vmlinux_btf();
	if (!vmlinux)
		fprintf(stderr, "%s: cannot read kernel BTF: %s\n", name, strerror(errno));
	return vmlinux ? 0 : -1;
}

static int discover(const char *name)
{
	char path[512];
	struct dirent *de;
	DIR *dir;
	int err;

	err = btf_scan_bio(vmlinux, 0, NULL, &funcs);
	dir = opendir("/sys/kernel/btf");
	while (!err && dir && (de = readdir(dir))) {
		struct btf *mod;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, "vmlinux"))
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/btf/%s", de->d_name);
		mod = btf__parse_split(path, vmlinux);
		if (!mod)
			continue;
		/* the module's name lives as long as the list */
		err = btf_scan_bio(mod, btf__type_cnt(vmlinux), strdup(de->d_name), &funcs);
		btf__free(mod);
	}
	if (dir)
		closedir(dir);
	if (err) {
		fprintf(stderr, "%s: out of memory\n", name);
		return -1;
	}
	bio_funcs_sort(&funcs);

	/* What ftrace can attach to; notrace and inlined functions are not there. */
	snprintf(path, sizeof(path), "%s/available_filter_functions",
		 tracefs_mount() ? "/sys/kernel/tracing" : tracefs_root());
	err = bio_funcs_filter(&funcs, path);
	if (err)
		fprintf(stderr, "%s: cannot read %s (%s): keeping BTF's list, "
			"some may refuse to attach\n", name, path,
			err == -ENODATA ? "empty" : strerror(-err));
	return 0;
}

static void list_funcs(void)
{
	int mods = 0;

	for (int i = 0; i < funcs.n; i++) {
		printf("%-44s arg%d%s%s\n", funcs.f[i].name, funcs.f[i].arg + 1,
		       funcs.f[i].module ? "  " : "", funcs.f[i].module ? funcs.f[i].module : "");
		mods += funcs.f[i].module != NULL;
	}
	printf("%d functions take a struct bio * (%d in modules)\n", funcs.n, mods);
	printf("Skipped: %d tracepoint glue, %d with the bio after argument %d, "
	       "%d repeated names, %d not in available_filter_functions\n",
	       funcs.glue, funcs.far_arg, BIO_ARG_MAX, funcs.dup, funcs.not_traceable);
}

/* What a function means for a bio's life; the rest only pass it along. */
static __u8 func_flags(const char *fn)
{
	if (!strcmp(fn, "bio_init"))
		return CT_BEGIN;
	if (!strcmp(fn, "submit_bio") || !strcmp(fn, "submit_bio_noacct"))
		return CT_SUBMIT;
	if (!strcmp(fn, "bio_endio"))
		return CT_END;
	return 0;
}

/* --- attaching ------------------------------------------------------ */

static struct bpf_link **links;
static int nlinks, cap_links, attached, refused;
static __u64 kprobe_missed;
static const char **syms;
static __u64 *cookies;
static bool multi_works = true;

static int keep_link(struct bpf_link *link)
{
	if (nlinks == cap_links) {
		int cap = cap_links ? cap_links * 2 : 64;
		struct bpf_link **l = realloc(links, cap * sizeof(*l));

		if (!l)
			return -ENOMEM;
		links = l;
		cap_links = cap;
	}
	links[nlinks++] = link;
	return 0;
}

/*
 * Lesson#2: kprobe.multi takes every function in one link, each with its
 * cookie. One function it cannot probe fails the whole link: then try
 * each half, down to the one function, which is skipped and counted.
 */
static int attach_multi(struct bpf_program *prog, int lo, int hi)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, o, .syms = syms + lo,
		    .cookies = cookies + lo, .cnt = hi - lo);
	struct bpf_link *link;
	int err, mid;

	link = bpf_program__attach_kprobe_multi_opts(prog, NULL, &o);
	if (link) {
		attached += hi - lo;
		return keep_link(link);
	}
	err = -errno;
	/* no CONFIG_FPROBE (Debian's 6.1): the kernel has no kprobe.multi */
	if (err == -EOPNOTSUPP || err == -524 /* ENOTSUPP */ || err == -ENOSYS) {
		multi_works = false;
		return err;
	}
	if (hi - lo == 1) {
		refused++;
		return 0;
	}
	mid = lo + (hi - lo) / 2;
	err = attach_multi(prog, lo, mid);
	return err ? err : attach_multi(prog, mid, hi);
}

/* Else one kprobe per function: a perf event, an fd and a kprobe each. */
static int attach_each(struct bpf_program *prog)
{
	struct rlimit r;

	/* hundreds of kprobes take hundreds of fds */
	if (!getrlimit(RLIMIT_NOFILE, &r) && r.rlim_cur < r.rlim_max) {
		r.rlim_cur = r.rlim_max;
		setrlimit(RLIMIT_NOFILE, &r);
	}
	for (int i = 0; i < funcs.n; i++) {
		LIBBPF_OPTS(bpf_kprobe_opts, o, .bpf_cookie = cookies[i]);
		struct bpf_link *link;

		link = bpf_program__attach_kprobe_opts(prog, syms[i], &o);
		if (!link) {
			refused++;
			continue;
		}
		if (keep_link(link))
			return -ENOMEM;
		attached++;
	}
	return 0;
}

/* Each tracepoint on its own; one this kernel lacks was not loaded. */
static int attach_tracepoints(struct bpf_object *obj)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, obj) {
		struct bpf_link *link;

		if (!bpf_program__autoload(prog))
			continue;
		link = bpf_program__attach(prog);
		if (!link) {
			refused++;
			continue;
		}
		if (keep_link(link))
			return -ENOMEM;
		attached++;
	}
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static const char *tp_prefix = "tp_btf/";

/* Before load: keep the programs of the door, and the tracepoints this kernel has. */
static int choose_door(const char *name, struct ctracer_bpf *skel, int *missing)
{
	struct bpf_program *prog;
	char tname[128];

	*missing = 0;
	if (env.door == DOOR_FENTRY) {
		fprintf(stderr, "%s: no fentry door yet (one fentry program per function: "
			"part 2 of stage 10); try -a kprobe or -a tracepoint\n", name);
		return -1;
	}
	if (env.door == DOOR_KPROBE && !kprobes_supported()) {
		fprintf(stderr, "%s: no kprobe door on this kernel (this kernel has no kprobes)\n",
			name);
		return -1;
	}
	door = env.door;
	if (door == DOOR_AUTO)
		door = kprobes_supported() ? DOOR_KPROBE : DOOR_TRACEPOINT;
	/* the function doors' points: found only when they are to be used */
	if (door == DOOR_KPROBE && discover(name))
		return -1;
	if (door == DOOR_KPROBE && !funcs.n) {
		fprintf(stderr, "%s: no function takes a struct bio * here\n", name);
		return -1;
	}
	bpf_object__for_each_program(prog, skel->obj) {
		const char *sec = bpf_program__section_name(prog);
		bool tp = !strncmp(sec, tp_prefix, strlen(tp_prefix));

		if (tp && door == DOOR_TRACEPOINT) {
			/* tp_btf needs the tracepoint's btf_trace_<name> type */
			snprintf(tname, sizeof(tname), "btf_trace_%s", sec + strlen(tp_prefix));
			if (btf__find_by_name_kind(vmlinux, tname, BTF_KIND_TYPEDEF) < 0) {
				bpf_program__set_autoload(prog, false);
				(*missing)++;
			}
			continue;
		}
		bpf_program__set_autoload(prog, tp == (door == DOOR_TRACEPOINT));
	}
	return 0;
}

static int attach(const char *name, struct ctracer_bpf *skel, int missing)
{
	const char *how = "tp_btf";
	double t0 = now();
	int err = 0, total;

	if (door == DOOR_KPROBE) {
		syms = calloc(funcs.n, sizeof(*syms));
		cookies = calloc(funcs.n, sizeof(*cookies));
		if (!syms || !cookies)
			return -ENOMEM;
		for (int i = 0; i < funcs.n; i++) {
			syms[i] = funcs.f[i].name;
			cookies[i] = CT_COOKIE(i, func_flags(funcs.f[i].name), funcs.f[i].arg);
		}
		how = "kprobe.multi";
		err = attach_multi(skel->progs.bio_func_multi, 0, funcs.n);
		if (err && !multi_works) {
			how = "one kprobe per function";
			err = attach_each(skel->progs.bio_func_kprobe);
		}
		total = funcs.n;
	} else {
		err = attach_tracepoints(skel->obj);
		total = attached + refused + missing;
	}
	if (err) {
		fprintf(stderr, "%s: cannot attach: %s\n", name, strerror(-err));
		return err;
	}
	fprintf(stderr, "%s: %s door, %s: %d of %d %s attached in %ld ms", name,
		door_name(door), how, attached, total,
		door == DOOR_KPROBE ? "functions" : "tracepoints",
		(long)((now() - t0) * 1000 + 0.5));
	if (refused || missing)
		fprintf(stderr, " (%d refused, %d not in this kernel: skipped)", refused, missing);
	if (door == DOOR_TRACEPOINT && env.door == DOOR_AUTO)
		fprintf(stderr, " (passed over: kprobe: this kernel has no kprobes)");
	fprintf(stderr, "\n");
	if (!attached) {
		fprintf(stderr, "%s: nothing attached\n", name);
		return -ENOENT;
	}
	return 0;
}

static void detach(void)
{
	for (int i = 0; i < nlinks; i++) {
		/* read before the link goes: the count lives in the kprobe */
		kprobe_missed += link_kprobe_missed(links[i]);
		bpf_link__destroy(links[i]);
	}
	nlinks = 0;
}

/* --- the trees ------------------------------------------------------ */

/* One bio's life: its events in order, printed once it has ended. */
struct tree {
	struct tree *next;	/* hash chain */
	__u64 bio;
	struct ct_event *ev;
	int n, cap;
	bool submitted, ended;
	double ended_at;	/* now() when its end arrived */
};

#define TREE_BUCKETS 4096
/* After its end a bio is still handed to a few functions (its bi_end_io …). */
#define TREE_GRACE 0.1

static struct tree *trees[TREE_BUCKETS];
static unsigned long long n_events, n_bios, no_end, no_submit, printed_events;
static const char *op_names[256];
static const char *flag_names[32];

/*
 * REQ_OP_* and the REQ_* flag bits moved between kernels: read their
 * names from this kernel's BTF (enum req_op, enum req_flag_bits).
 */
static void read_op_names(void)
{
	for (__u32 id = 1; id < btf__type_cnt(vmlinux); id++) {
		const struct btf_type *t = btf__type_by_id(vmlinux, id);
		const struct btf_enum *e;
		const char *tn;

		if (!btf_is_enum(t))
			continue;
		tn = btf__name_by_offset(vmlinux, t->name_off);
		if (strcmp(tn, "req_op") && strcmp(tn, "req_flag_bits"))
			continue;
		e = btf_enum(t);
		for (int i = 0; i < btf_vlen(t); i++, e++) {
			const char *n = btf__name_by_offset(vmlinux, e->name_off);

			if (!strncmp(n, "REQ_OP_", 7) && e->val >= 0 && e->val < 256)
				op_names[e->val] = n + 7;
			else if (!strncmp(n, "__REQ_", 6) && e->val >= 0 && e->val < 32 &&
				 strcmp(n, "__REQ_NR_BITS"))
				flag_names[e->val] = n + 6;
		}
	}
}

/* "READ SYNC|IDLE": the operation and its flags. */
static const char *op_str(__u32 opf, char *buf, size_t len)
{
	const char *op = op_names[opf & 0xff];
	size_t n = snprintf(buf, len, "%s", op ? op : "OP?");

	for (int b = 8; b < 32 && n < len; b++)
		if (opf & 1U << b)
			n += snprintf(buf + n, len - n, "%s%s", n == strlen(op ? op : "OP?") ?
				      " " : "|", flag_names[b] ? flag_names[b] : "?");
	return buf;
}

static const char *point_name(__u32 id)
{
	if (door == DOOR_TRACEPOINT)
		return id < TP_MAX ? tp_names[id] : "?";
	return id < (__u32)funcs.n ? funcs.f[id].name : "?";
}

static struct tree **bucket(__u64 bio)
{
	return &trees[(bio >> 6 ^ bio >> 18) % TREE_BUCKETS];
}

/*
 * Lesson#3: like ftrace's function graph, one line per function the
 * bio went through: time since its first event, CPU, task, function,
 * and its fields where they changed.
 */
static void print_tree(const struct tree *t)
{
	const struct ct_event *first = &t->ev[0], *prev = NULL;
	const struct ct_event *last = &t->ev[t->n - 1];
	char ops[128], task[40];

	printf("bio 0x%llx: %d events in %llu.%03llu us", (unsigned long long)t->bio, t->n,
	       (unsigned long long)(last->ts - first->ts) / 1000,
	       (unsigned long long)(last->ts - first->ts) % 1000);
	if (first->parent)
		printf(", chained to bio 0x%llx", (unsigned long long)first->parent);
	if (!t->submitted)
		printf(", no submit seen");
	if (!t->ended)
		printf(", no end seen");
	printf("\n");
	for (int i = 0; i < t->n; i++) {
		const struct ct_event *e = &t->ev[i];
		__u64 d = e->ts - first->ts;

		snprintf(task, sizeof(task), "%.16s-%u", e->comm, e->pid);
		printf("%8llu.%03llu us  cpu%-2u %-22s %s", (unsigned long long)d / 1000,
		       (unsigned long long)d % 1000, e->cpu, task, point_name(e->id));
		if (!prev || prev->sector != e->sector)
			printf("  sector=%llu", (unsigned long long)e->sector);
		if (!prev || prev->size != e->size)
			printf("  size=%u", e->size);
		if (!prev || prev->opf != e->opf)
			printf("  %s", op_str(e->opf, ops, sizeof(ops)));
		if (e->status)
			printf("  status=%u", e->status);
		if (e->flags & CT_END)
			printf("  (end)");
		printf("\n");
		prev = e;
	}
	printed_events += t->n;
	if (!t->submitted && !first->parent)
		no_submit++;
	if (!t->ended)
		no_end++;
}

static void tree_free(struct tree *t)
{
	free(t->ev);
	free(t);
}

static int by_first_ts(const void *a, const void *b)
{
	const struct tree *x = *(struct tree *const *)a, *y = *(struct tree *const *)b;

	return x->ev[0].ts < y->ev[0].ts ? -1 : x->ev[0].ts > y->ev[0].ts;
}

/* Print and forget the trees ended before `before` (all, when all). */
static void flush_trees(double before, bool all)
{
	struct tree **out = NULL;
	int n = 0, cap = 0;

	for (int b = 0; b < TREE_BUCKETS; b++) {
		for (struct tree **pp = &trees[b]; *pp;) {
			struct tree *t = *pp;

			if (!all && !(t->ended && t->ended_at < before)) {
				pp = &t->next;
				continue;
			}
			*pp = t->next;
			if (n == cap) {
				struct tree **o = realloc(out, (cap = cap ? cap * 2 : 64) * sizeof(*o));

				if (!o) {
					tree_free(t);
					continue;
				}
				out = o;
			}
			out[n++] = t;
		}
	}
	if (n)
		qsort(out, n, sizeof(*out), by_first_ts);
	for (int i = 0; i < n; i++) {
		print_tree(out[i]);
		tree_free(out[i]);
	}
	free(out);
	fflush(stdout);
}

static int handle_event(void *ctx, void *data, size_t size)
{
	const struct ct_event *e = data;
	struct tree **pp = bucket(e->bio), *t;

	n_events++;
	for (t = *pp; t && t->bio != e->bio; t = t->next)
		;
	/* an ended bio's address back with a new life: print the old one first */
	if (t && t->ended && (e->flags & (CT_BEGIN | CT_SUBMIT))) {
		for (pp = bucket(e->bio); *pp != t; pp = &(*pp)->next)
			;
		*pp = t->next;
		print_tree(t);
		tree_free(t);
		t = NULL;
		pp = bucket(e->bio);
	}
	if (!t) {
		t = calloc(1, sizeof(*t));
		if (!t)
			return -ENOMEM;
		t->bio = e->bio;
		t->next = *pp;
		*pp = t;
		n_bios++;
	}
	if (t->n == t->cap) {
		int cap = t->cap ? t->cap * 2 : 16;
		struct ct_event *ev = realloc(t->ev, cap * sizeof(*ev));

		if (!ev)
			return -ENOMEM;
		t->ev = ev;
		t->cap = cap;
	}
	t->ev[t->n++] = *e;
	t->submitted |= !!(e->flags & CT_SUBMIT);
	if (e->flags & CT_END) {
		t->ended = true;
		t->ended_at = now();
	}
	return 0;
}

/* Every tick: read the ring buffer, print what has ended. */
static int tick(void *arg)
{
	ring_buffer__consume(arg);
	if (!env.quiet)
		flush_trees(now() - TREE_GRACE, false);
	return 0;
}

/* --- the summary ---------------------------------------------------- */

static void read_ctstats(struct ctracer_bpf *skel, __u64 *total)
{
	int ncpu = libbpf_num_possible_cpus();
	__u64 *vals = calloc(ncpu > 0 ? ncpu : 1, sizeof(*vals));
	int fd = bpf_map__fd(skel->maps.ctstats);

	for (__u32 k = 0; vals && k < CT_STAT_MAX; k++) {
		if (bpf_map_lookup_elem(fd, &k, vals))
			continue;
		for (int c = 0; c < ncpu; c++)
			total[k] += vals[c];
	}
	free(vals);
}

static bool lost_line(__u64 n, const char *what)
{
	if (n)
		printf("Lost: %llu %s\n", (unsigned long long)n, what);
	return n;
}

static void summary(struct ctracer_bpf *skel)
{
	__u64 total[CT_STAT_MAX] = {};
	bool lost = false;

	read_ctstats(skel, total);
	printf("Events: hits %llu", (unsigned long long)total[CT_EVENTS]);
	if (!env.quiet)		/* -q: the bios are not sent, so not known */
		printf(", bios %llu", n_bios);
	printf("\n");
	lost |= lost_line(total[CT_RB_DROP], "events the ring buffer had no room for");
	lost |= lost_line(total[CT_PID_FULL], "bios not followed (-p: map full)");
	lost |= lost_line(total[CT_WALK_CUT], "rq->bio walks cut short");
	lost |= lost_line(kprobe_missed, "events missed by the kprobe (another kprobe was running)");
	lost |= lost_line(recursion_misses(skel->obj), "events missed by recursion");
	lost |= lost_line(no_submit, "bios seen without their submit (submitted before we attached)");
	lost |= lost_line(no_end, "bios seen without their end (in flight at exit, or missed)");
	if (!lost)
		printf("Lost: none\n");
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct tracer t = TRACER_INIT("ctracer");
	struct ring_buffer *rb = NULL;
	struct ctracer_bpf *skel = NULL;
	int err = 1, missing;

	parse_args(&argp, argc, argv, NULL);
	if (opt.list) {
		err = load_vmlinux(t.name) || discover(t.name);
		if (!err)
			list_funcs();
		goto cleanup;
	}
	if (tracer_preflight(t.name) || load_vmlinux(t.name))
		goto cleanup;
	read_op_names();

	skel = ctracer_bpf__open();
	if (!skel) {
		fprintf(stderr, "%s: cannot open BPF object\n", t.name);
		goto cleanup;
	}
	skel->rodata->quiet = env.quiet;
	skel->rodata->targ_dev = env.dev;
	skel->rodata->targ_pid = opt.pid;
	if (choose_door(t.name, skel, &missing))
		goto cleanup;
	err = ctracer_bpf__load(skel);
	if (err) {
		fprintf(stderr, "%s: cannot load BPF object: %s (try -v)\n", t.name, strerror(-err));
		goto cleanup;
	}
	rb = ring_buffer__new(bpf_map__fd(skel->maps.events), handle_event, NULL, NULL);
	if (!rb) {
		fprintf(stderr, "%s: cannot read the ring buffer: %s\n", t.name, strerror(errno));
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
	t.arg = rb;
	tracer_run(&t);
	detach();
	ring_buffer__consume(rb);
	if (!env.quiet)
		flush_trees(0, true);
	summary(skel);
	err = 0;
cleanup:
	detach();
	ring_buffer__free(rb);
	ctracer_bpf__destroy(skel);
	bio_funcs_free(&funcs);
	btf__free(vmlinux);
	free(syms);
	free(cookies);
	free(links);
	return err ? 1 : 0;
}
