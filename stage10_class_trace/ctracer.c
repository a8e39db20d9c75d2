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
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "btf_scan.h"
#include "page.h"
#include "summary.h"
#include "tracer.h"
#include "ctracer.h"
#include "ctracer.skel.h"

static struct {
	bool list;		/* --list: print the functions, trace nothing */
	unsigned int pid;	/* -p: that process's bios only */
	bool returns;		/* -r: each function's return too */
	bool sectors;		/* -s: bios that meet [first, last] only */
	unsigned long long first, last;
	const char *json;	/* --json: Chrome trace events */
	const char *html;	/* --html: a page */
} opt;

enum { OPT_LIST = 0x200, OPT_JSON, OPT_HTML };

static const struct argp_option options[] = {
	{ "list", OPT_LIST, NULL, 0, "List the functions that take a struct bio *, and exit", 0 },
	{ "pid", 'p', "PID", 0, "Only the bios this process submits (all its threads)", 0 },
	{ "returns", 'r', NULL, 0,
	  "Each function's return too, with its duration (function doors; 2-3 times the attach time)", 0 },
	{ "sectors", 's', "START[-END]", 0,
	  "Only the bios that meet these sectors (512 bytes) when submitted", 0 },
	{ "json", OPT_JSON, "FILE", 0, "Also write the bios as Chrome trace events (Perfetto, speedscope)", 0 },
	{ "html", OPT_HTML, "FILE", 0, "Also write a page of each bio's timeline and call tree", 0 },
	{},
};

/*
 * One sector of -s: decimal digits, up to the first other character
 * (returned), or NULL. strtoull alone would take " 5", "+5", 0x10, read
 * 010 as octal and wrap "-5" to 2^64 - 5.
 */
static const char *parse_sector(const char *s, unsigned long long *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return NULL;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno ? NULL : end;
}

/* -s START[-END]: decimal sectors, END at least START. */
static int parse_sectors(const char *arg)
{
	const char *end = parse_sector(arg, &opt.first);

	if (!end)
		return -1;
	opt.last = opt.first;
	if (*end == '-')
		end = parse_sector(end + 1, &opt.last);
	if (!end || *end || opt.last < opt.first)
		return -1;
	opt.sectors = true;
	return 0;
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	long pid;

	switch (key) {
	case 'r':
		opt.returns = true;
		break;
	case 's':
		if (parse_sectors(arg))
			argp_error(state, "-s needs decimal sectors START or START-END "
				   "(END >= START), not '%s'", arg);
		break;
	case OPT_LIST:
		opt.list = true;
		break;
	case OPT_JSON:
		opt.json = arg;
		break;
	case OPT_HTML:
		opt.html = arg;
		break;
	case 'p':
		pid = parse_positive(arg, 0x7fffffff);
		if (pid < 0)
			argp_error(state, "-p needs a process ID, not '%s'", arg);
		/* EPERM still means it exists; only ESRCH is no such process */
		if (kill(pid, 0) && errno == ESRCH)
			argp_error(state, "-p: no process %ld (see ps)", pid);
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
	       "(kprobe.multi, one kprobe or one fentry program per function; else the\n"
	       "block tracepoints) and print its path as a tree.\v"
	       "Examples:\n"
	       "  ctracer --list             # the functions, from the kernel's BTF\n"
	       "  ctracer -d loop0           # every bio of one disk, until Ctrl-C\n"
	       "  ctracer -d sda -p 1234     # only the bios process 1234 submits\n"
	       "  ctracer -a fentry -d sda   # one fentry program per function\n"
	       "  ctracer -r -d sda -s 2048  # the bios at sector 2048, with each return\n"
	       "  ctracer -d sda --html b.html --json b.json  # a page; JSON for Perfetto\n"
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
static int nlinks, cap_links, attached, refused, ret_attached, ret_refused;
static int *fds, nfds, cap_fds;	/* fentry: each copy's program and link */
static __u64 kprobe_missed, copy_recursion_misses;
static int first_refusal;	/* its errno, for the attach line */
static int first_refused_fn;	/* and which function refused it */
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

/* hundreds of kprobes or fentry programs take hundreds of fds */
static void raise_nofile(void)
{
	struct rlimit r;

	if (!getrlimit(RLIMIT_NOFILE, &r) && r.rlim_cur < r.rlim_max) {
		r.rlim_cur = r.rlim_max;
		setrlimit(RLIMIT_NOFILE, &r);
	}
}

/* Function i refused its entry (or, ret, its return) with errno err. */
static void refuse(int i, int err, bool ret)
{
	if (!first_refusal) {
		first_refusal = err;
		first_refused_fn = i;
	}
	(*(ret ? &ret_refused : &refused))++;
	if (env.verbose)
		fprintf(stderr, "refused: %s%s: %s\n", funcs.f[i].name, ret ? " (return)" : "",
			strerror(err));
}

/*
 * Lesson#2: kprobe.multi takes every function in one link, each with its
 * cookie. One function it cannot probe fails the whole link: then try
 * each half, down to the one function, which is skipped and counted.
 */
static int attach_multi(struct bpf_program *prog, int lo, int hi, bool ret)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, o, .syms = syms + lo,
		    .cookies = cookies + lo, .cnt = hi - lo, .retprobe = ret);
	struct bpf_link *link;
	int err, mid;

	link = bpf_program__attach_kprobe_multi_opts(prog, NULL, &o);
	if (link) {
		*(ret ? &ret_attached : &attached) += hi - lo;
		return keep_link(link);
	}
	err = -errno;
	/* no CONFIG_FPROBE (Debian's 6.1): the kernel has no kprobe.multi */
	if (err == -EOPNOTSUPP || err == -524 /* ENOTSUPP */ || err == -ENOSYS) {
		multi_works = false;
		return err;
	}
	if (hi - lo == 1) {
		refuse(lo, -err, ret);
		return 0;
	}
	mid = lo + (hi - lo) / 2;
	err = attach_multi(prog, lo, mid, ret);
	return err ? err : attach_multi(prog, mid, hi, ret);
}

/* Else one kprobe per function: a perf event, an fd and a kprobe each. */
static int attach_each(struct bpf_program *prog, bool ret)
{
	raise_nofile();
	for (int i = 0; i < funcs.n; i++) {
		LIBBPF_OPTS(bpf_kprobe_opts, o, .bpf_cookie = cookies[i], .retprobe = ret);
		struct bpf_link *link;

		link = bpf_program__attach_kprobe_opts(prog, syms[i], &o);
		if (!link) {
			refuse(i, errno, ret);
			continue;
		}
		if (keep_link(link))
			return -ENOMEM;
		(*(ret ? &ret_attached : &attached))++;
	}
	return 0;
}

static int keep_fd(int fd)
{
	if (nfds == cap_fds) {
		int cap = cap_fds ? cap_fds * 2 : 256;
		int *f = realloc(fds, cap * sizeof(*f));

		if (!f)
			return -ENOMEM;
		fds = f;
		cap_fds = cap;
	}
	fds[nfds++] = fd;
	return 0;
}

/*
 * A module's function is named by its BTF id in the module's BTF, which
 * the kernel knows by an fd of that BTF object: find it by its name.
 */
static int module_btf_fd(const char *module)
{
	static struct { const char *name; int fd; } cache[64];
	static int ncache;
	__u32 id = 0;

	for (int i = 0; i < ncache; i++)
		if (cache[i].name == module)
			return cache[i].fd;
	while (!bpf_btf_get_next_id(id, &id)) {
		struct bpf_btf_info info = {};
		__u32 len = sizeof(info);
		char name[64] = "";
		int fd = bpf_btf_get_fd_by_id(id);

		if (fd < 0)
			continue;
		info.name = (__u64)(unsigned long)name;
		info.name_len = sizeof(name);
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) && info.kernel_btf &&
		    !strcmp(name, module)) {
			if (ncache < 64) {
				cache[ncache].name = module;
				cache[ncache++].fd = fd;
			}
			return fd;
		}
		close(fd);
	}
	return -ENOENT;
}

/*
 * Lesson#3: the fentry door, one program per function. Its template
 * (the program for functions with the bio at that argument) was loaded
 * and checked by libbpf; every function gets a copy of its instructions
 * (maps and CO-RE already resolved), loaded with that function as its
 * target and attached with its cookie. A copy the kernel refuses (a
 * notrace function, the verifier) is skipped and counted.
 */
static int attach_fentry(struct bpf_program *const *templ, const struct bpf_program *fexit)
{
	enum bpf_attach_type type = fexit ? BPF_TRACE_FEXIT : BPF_TRACE_FENTRY;
	bool ret = fexit != NULL;
	char pname[16];

	raise_nofile();
	for (int i = 0; i < funcs.n; i++) {
		const struct bpf_program *t = fexit ? fexit : templ[funcs.f[i].arg];
		LIBBPF_OPTS(bpf_prog_load_opts, po, .expected_attach_type = type,
			    .attach_btf_id = funcs.f[i].btf_id);
		LIBBPF_OPTS(bpf_link_create_opts, lo, .tracing.cookie = cookies[i]);
		int pfd, lfd;

		if (bpf_program__fd(t) < 0) {	/* its template did not load */
			refuse(i, ENOENT, ret);
			continue;
		}
		if (funcs.f[i].module) {
			po.attach_btf_obj_fd = module_btf_fd(funcs.f[i].module);
			if ((int)po.attach_btf_obj_fd < 0) {
				refuse(i, ENOENT, ret);
				continue;
			}
		}
		/* bpftool prog show names each copy by its function */
		snprintf(pname, sizeof(pname), "%s", funcs.f[i].name);
		pfd = bpf_prog_load(BPF_PROG_TYPE_TRACING, pname, "GPL", bpf_program__insns(t),
				    bpf_program__insn_cnt(t), &po);
		if (pfd < 0) {
			refuse(i, errno, ret);
			continue;
		}
		lfd = bpf_link_create(pfd, 0, type, &lo);
		if (lfd < 0) {
			refuse(i, errno, ret);
			close(pfd);
			continue;
		}
		if (keep_fd(pfd) || keep_fd(lfd))
			return -ENOMEM;
		(*(ret ? &ret_attached : &attached))++;
	}
	return 0;
}

/*
 * Can this kernel attach an fentry program with a cookie? Load a
 * two-instruction one on submit_bio and attach it: a kernel may refuse
 * either step (EPERM here, ENOTSUPP without the trampoline).
 */
static int fentry_probe(void)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int id = btf__find_by_name_kind(vmlinux, "submit_bio", BTF_KIND_FUNC);
	LIBBPF_OPTS(bpf_prog_load_opts, po, .expected_attach_type = BPF_TRACE_FENTRY,
		    .attach_btf_id = id);
	LIBBPF_OPTS(bpf_link_create_opts, lo, .tracing.cookie = 1);
	int pfd, lfd, err;

	if (id < 0)
		return -ENOENT;
	pfd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "ct_probe", "GPL", insns, 2, &po);
	if (pfd < 0)
		return -errno;
	lfd = bpf_link_create(pfd, 0, BPF_TRACE_FENTRY, &lo);
	err = lfd < 0 ? -errno : 0;
	if (lfd >= 0)
		close(lfd);
	close(pfd);
	return err;
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
static char passed_over[160];	/* -a auto: doors passed over, and why */
static struct bpf_program *templ[BIO_ARG_MAX];	/* fentry: one per bio position */
static bool returns_on;		/* -r, in a door that has returns */

/* The first function with its bio at position arg; the kernel's own first. */
static const char *template_target(int arg)
{
	const char *any = NULL;

	for (int i = 0; i < funcs.n; i++) {
		if (funcs.f[i].arg != arg)
			continue;
		if (!funcs.f[i].module)
			return funcs.f[i].name;
		any = any ? any : funcs.f[i].name;
	}
	return any;
}

/* The door a program belongs to, by its SEC() line. */
static enum door prog_door_of(const struct bpf_program *prog)
{
	const char *sec = bpf_program__section_name(prog);

	if (!strncmp(sec, tp_prefix, strlen(tp_prefix)))
		return DOOR_TRACEPOINT;
	if (!strncmp(sec, "fentry", 6) || !strncmp(sec, "fexit", 5))
		return DOOR_FENTRY;
	return DOOR_KPROBE;
}

/* -r: kretprobe, kretprobe.multi, fexit. */
static bool prog_is_return(const struct bpf_program *prog)
{
	const char *sec = bpf_program__section_name(prog);

	return !strncmp(sec, "kretprobe", 9) || !strncmp(sec, "fexit", 5);
}

/*
 * Lesson#4: the door, in the order the functions are best reached:
 * kprobes (kprobe.multi attaches hundreds at once), then fentry (one
 * program per function), then the block tracepoints.
 */
static int pick_door(const char *name)
{
	bool kp = kprobes_supported();
	int fe = 0;

	if (env.door == DOOR_KPROBE && !kp) {
		fprintf(stderr, "%s: no kprobe door on this kernel (this kernel has no kprobes)\n",
			name);
		return -1;
	}
	if (env.door == DOOR_FENTRY || (env.door == DOOR_AUTO && !kp))
		fe = fentry_probe();
	if (env.door == DOOR_FENTRY && fe) {
		fprintf(stderr, "%s: no fentry door on this kernel (refused by this kernel (%s))\n",
			name, fe == -EPERM ? "EPERM" : strerror(-fe));
		return -1;
	}
	door = env.door;
	if (door != DOOR_AUTO)
		return 0;
	door = kp ? DOOR_KPROBE : !fe ? DOOR_FENTRY : DOOR_TRACEPOINT;
	if (!kp)
		snprintf(passed_over, sizeof(passed_over), "kprobe: this kernel has no kprobes%s%s%s",
			 fe ? "; fentry: refused by this kernel (" : "",
			 fe ? (fe == -EPERM ? "EPERM" : strerror(-fe)) : "", fe ? ")" : "");
	return 0;
}

/* Before load: keep the programs of the door, and the tracepoints this kernel has. */
static int choose_door(const char *name, struct ctracer_bpf *skel, int *missing)
{
	struct bpf_program *prog;
	char tname[128];

	*missing = 0;
	if (pick_door(name))
		return -1;
	returns_on = opt.returns && door != DOOR_TRACEPOINT;
	skel->rodata->returns = returns_on;
	/* the function doors' points: found only when they are to be used */
	if (door != DOOR_TRACEPOINT && discover(name))
		return -1;
	if (door != DOOR_TRACEPOINT && !funcs.n) {
		fprintf(stderr, "%s: no function takes a struct bio * here\n", name);
		return -1;
	}
	templ[0] = skel->progs.bio_fentry_arg1;
	templ[1] = skel->progs.bio_fentry_arg2;
	templ[2] = skel->progs.bio_fentry_arg3;
	templ[3] = skel->progs.bio_fentry_arg4;
	templ[4] = skel->progs.bio_fentry_arg5;
	for (int a = 0; a < BIO_ARG_MAX; a++) {
		const char *target = door == DOOR_FENTRY ? template_target(a) : NULL;

		/* a template is loaded for one function that has its bio there */
		if (target && bpf_program__set_attach_target(templ[a], 0, target))
			target = NULL;
		bpf_program__set_autoload(templ[a], target != NULL);
	}
	bpf_object__for_each_program(prog, skel->obj) {
		enum door d = prog_door_of(prog);
		const char *sec = bpf_program__section_name(prog);

		if (d == DOOR_FENTRY && !prog_is_return(prog))
			continue;	/* set above */
		if (prog_is_return(prog)) {
			bpf_program__set_autoload(prog, d == door && returns_on);
			continue;
		}
		if (d == DOOR_TRACEPOINT && door == DOOR_TRACEPOINT) {
			/* tp_btf needs the tracepoint's btf_trace_<name> type */
			snprintf(tname, sizeof(tname), "btf_trace_%s", sec + strlen(tp_prefix));
			if (btf__find_by_name_kind(vmlinux, tname, BTF_KIND_TYPEDEF) < 0) {
				bpf_program__set_autoload(prog, false);
				(*missing)++;
			}
			continue;
		}
		bpf_program__set_autoload(prog, d == door);
	}
	return 0;
}

static void views_begin(const char *how);

static int attach(const char *name, struct ctracer_bpf *skel, int missing)
{
	const char *how = "tp_btf";
	double t0 = now();
	int err = 0, total;

	if (door != DOOR_TRACEPOINT) {
		syms = calloc(funcs.n, sizeof(*syms));
		cookies = calloc(funcs.n, sizeof(*cookies));
		if (!syms || !cookies)
			return -ENOMEM;
		for (int i = 0; i < funcs.n; i++) {
			syms[i] = funcs.f[i].name;
			cookies[i] = CT_COOKIE(i, func_flags(funcs.f[i].name), funcs.f[i].arg);
		}
		total = funcs.n;
	}
	if (door == DOOR_FENTRY) {
		how = returns_on ? "one fentry and one fexit program per function" :
				   "one fentry program per function";
		err = attach_fentry(templ, NULL);
		if (!err && returns_on)
			err = attach_fentry(templ, skel->progs.bio_fexit);
	} else if (door == DOOR_KPROBE) {
		how = returns_on ? "kprobe.multi, kretprobe.multi" : "kprobe.multi";
		err = attach_multi(skel->progs.bio_func_multi, 0, funcs.n, false);
		if (!err && returns_on)
			err = attach_multi(skel->progs.bio_ret_multi, 0, funcs.n, true);
		if (err && !multi_works) {
			how = returns_on ? "one kprobe and one kretprobe per function" :
					   "one kprobe per function";
			err = attach_each(skel->progs.bio_func_kprobe, false);
			if (!err && returns_on)
				err = attach_each(skel->progs.bio_ret_kprobe, true);
		}
	} else {
		err = attach_tracepoints(skel->obj);
		total = attached + refused + missing;
	}
	if (err) {
		fprintf(stderr, "%s: cannot attach: %s\n", name, strerror(-err));
		return err;
	}
	fprintf(stderr, "%s: %s door, %s: %d of %d %s", name, door_name(door), how, attached,
		total, door == DOOR_TRACEPOINT ? "tracepoints" : "functions");
	if (returns_on)
		fprintf(stderr, " and %d returns", ret_attached);
	fprintf(stderr, " attached in %ld ms", (long)((now() - t0) * 1000 + 0.5));
	if (refused || ret_refused || missing)
		fprintf(stderr, " (%d refused%s%s%s%s%s, %d not in this kernel: skipped)",
			refused + ret_refused, ret_refused ? " with returns" : "",
			first_refusal ? ", the first: " : "",
			first_refusal ? funcs.f[first_refused_fn].name : "",
			first_refusal ? ": " : "",
			first_refusal ? strerror(first_refusal) : "", missing);
	if (passed_over[0])
		fprintf(stderr, " (passed over: %s)", passed_over);
	if (opt.returns && !returns_on)
		fprintf(stderr, " (-r: the tracepoint door has no returns)");
	fprintf(stderr, "\n");
	if (!attached) {
		fprintf(stderr, "%s: nothing attached\n", name);
		return -ENOENT;
	}
	views_begin(how);
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
	/* fentry: a link fd after its program fd; the link goes first */
	for (int i = nfds - 1; i >= 0; i--) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		if (!(i & 1) && !bpf_obj_get_info_by_fd(fds[i], &info, &len))
			copy_recursion_misses += info.recursion_misses;
		close(fds[i]);
	}
	nfds = 0;
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
static unsigned long long n_events, n_bios, no_end, no_submit, no_return, late_returns;
static unsigned long long printed_events;
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

static const char *const ctx_names[] = {
	[CT_CTX_TASK] = "task",
	[CT_CTX_SOFTIRQ] = "softirq",
	[CT_CTX_HARDIRQ] = "hardirq",
	[CT_CTX_NMI] = "nmi",
	[CT_CTX_IRQ] = "irq",
};

static const char *ctx_name(__u8 ctx)
{
	return ctx <= CT_CTX_IRQ ? ctx_names[ctx] : "?";
}

/*
 * One line of a tree: a function entered (with its duration once its
 * return is seen), or left ("}" lines); a leaf, left before anything
 * else happened to the bio, is one line.
 */
struct row {
	const struct ct_event *e;
	int depth;		/* calls open in the same thread or interrupt */
	long long dur;		/* ns to its return, -1: none seen */
	bool leaf;		/* entered and left on one line */
	bool close;		/* a "}" line: e is its entry */
};

/* Calls open per thread (or per interrupt of a CPU), as the BPF side keys them. */
struct stack {
	__u64 who;
	int n;
	int at[64];		/* rows of the open calls */
};

static __u64 who_of(const struct ct_event *e)
{
	if (e->ctx == CT_CTX_TASK && e->pid)
		return e->pid;
	return 1ULL << 63 | (__u64)e->ctx << 32 | e->cpu;
}

static struct stack *stack_of(struct stack *st, int *nst, int max, __u64 who)
{
	for (int i = 0; i < *nst; i++)
		if (st[i].who == who)
			return &st[i];
	if (*nst == max)
		return NULL;
	st[*nst].who = who;
	st[*nst].n = 0;
	return &st[(*nst)++];
}

#define STACKS_MAX 16

/*
 * Lesson#5: pair each return with the latest open call of its function
 * in the same thread or interrupt (the calls above it never returned
 * while we watched: a return missed). rows has room for t->n rows.
 */
static int lay_out(const struct tree *t, struct row *rows)
{
	struct stack st[STACKS_MAX], *k;
	int nst = 0, n = 0;

	for (int i = 0; i < t->n; i++) {
		const struct ct_event *e = &t->ev[i];
		int j;

		k = stack_of(st, &nst, STACKS_MAX, who_of(e));
		if (!(e->flags & CT_RET)) {
			rows[n] = (struct row){ .e = e, .depth = k ? k->n : 0, .dur = -1 };
			if (returns_on && k && k->n < (int)ARRAY_SIZE(k->at))
				k->at[k->n++] = n;
			n++;
			continue;
		}
		for (j = k ? k->n - 1 : -1; j >= 0 && rows[k->at[j]].e->id != e->id; j--)
			;
		if (j < 0)
			continue;	/* its call was dropped (counted) */
		k->n = j;
		rows[k->at[j]].dur = e->ts - rows[k->at[j]].e->ts;
		if (k->at[j] == n - 1) {
			rows[n - 1].leaf = true;
			continue;
		}
		rows[n++] = (struct row){ .e = rows[k->at[j]].e, .depth = j, .dur = rows[k->at[j]].dur,
					  .close = true };
	}
	for (int i = 0; i < n; i++)
		if (returns_on && !rows[i].close && rows[i].dur < 0)
			no_return++;
	return n;
}

static void us(char *buf, size_t len, unsigned long long ns)
{
	snprintf(buf, len, "%llu.%03llu us", ns / 1000, ns % 1000);
}

/* The bio's fields where they changed since prev, and its end: "  sector=2048  size=4096  READ". */
static void fields_str(const struct ct_event *e, const struct ct_event *prev, char *buf, size_t len)
{
	char ops[128];
	size_t n = 0;

	buf[0] = '\0';
#define ADD(...) (n += snprintf(buf + n, n < len ? len - n : 0, __VA_ARGS__))
	if (!prev || prev->sector != e->sector)
		ADD("  sector=%llu", (unsigned long long)e->sector);
	if (!prev || prev->size != e->size)
		ADD("  size=%u", e->size);
	if (!prev || prev->opf != e->opf)
		ADD("  %s", op_str(e->opf, ops, sizeof(ops)));
	if (e->status)
		ADD("  status=%u", e->status);
	if (e->flags & CT_END)
		ADD("  (end)");
#undef ADD
}

/* "bio 0x…: 4 events in 61.592 us, no end seen" */
static void tree_header(const struct tree *t, char *buf, size_t len)
{
	const struct ct_event *first = &t->ev[0], *last = &t->ev[t->n - 1];
	size_t n;

	n = snprintf(buf, len, "bio 0x%llx: %d events in %llu.%03llu us",
		     (unsigned long long)t->bio, t->n,
		     (unsigned long long)(last->ts - first->ts) / 1000,
		     (unsigned long long)(last->ts - first->ts) % 1000);
	if (first->parent && n < len)
		n += snprintf(buf + n, len - n, ", chained to bio 0x%llx",
			      (unsigned long long)first->parent);
	if (!t->submitted && n < len)
		n += snprintf(buf + n, len - n, ", no submit seen");
	if (!t->ended && n < len)
		snprintf(buf + n, len - n, ", no end seen");
}

/* --- the views: --json, --html (common/page.c) ------------------------ */

static FILE *json_out, *html_out;
static bool views_begun;	/* their heads written: tracing started */
static int view_bios;		/* bios written so far: each its own track */
static __u64 view_base;		/* the first event's time: 0 in the views */

static double view_us(__u64 ts)
{
	return ts >= view_base ? (ts - view_base) / 1000.0 : 0;
}

/* A row's function as the tree shows it: "submit_bio() {", "} submit_bio". */
static void row_fn(const struct row *r, char *buf, size_t len)
{
	const char *fn = point_name(r->e->id);

	if (r->close)
		snprintf(buf, len, "} %s", fn);
	else if (!returns_on)
		snprintf(buf, len, "%s", fn);
	else
		snprintf(buf, len, r->leaf ? "%s()" : "%s() {", fn);
}

/*
 * Lesson#6: Chrome's trace-event format, which Perfetto and speedscope
 * open: a complete event ("ph":"X", with "dur") for a call whose return
 * was seen, an instant ("ph":"i") for the rest; times in microseconds.
 * Each bio is a thread of its own (tid), named after the bio.
 */
static void json_tree(const struct tree *t, const struct row *rows, int n, const char *hdr)
{
	char task[40], f[256], name[300];
	const struct ct_event *prev = NULL;
	int tid = view_bios;

	/* the track's name: the bio and its fields at its first event */
	fields_str(&t->ev[0], NULL, f, sizeof(f));
	snprintf(name, sizeof(name), "bio 0x%llx%s", (unsigned long long)t->bio, f);
	fprintf(json_out, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%d,\"args\":{\"name\":",
		tid);
	page_json_str(json_out, name);
	fprintf(json_out, "}},\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":%d,"
		"\"args\":{\"sort_index\":%d}}", tid, tid);
	for (int i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		const struct ct_event *e = r->e;

		if (r->close)
			continue;
		snprintf(task, sizeof(task), "%.16s-%u", e->comm, e->pid);
		fields_str(e, prev, f, sizeof(f));
		prev = e;
		fputs(",\n{\"name\":", json_out);
		page_json_str(json_out, point_name(e->id));
		if (r->dur >= 0)
			fprintf(json_out, ",\"ph\":\"X\",\"dur\":%.3f", r->dur / 1000.0);
		else
			fputs(",\"ph\":\"i\",\"s\":\"t\"", json_out);
		fprintf(json_out, ",\"ts\":%.3f,\"pid\":1,\"tid\":%d,\"cat\":\"bio\","
			"\"args\":{\"cpu\":%u,\"context\":\"%s\",\"task\":", view_us(e->ts), tid,
			e->cpu, ctx_name(e->ctx));
		page_json_str(json_out, task);
		fprintf(json_out, ",\"sector\":%llu,\"size\":%u,\"data\":",
			(unsigned long long)e->sector, e->size);
		page_json_str(json_out, f + (f[0] ? 2 : 0));
		fputs("}}", json_out);
	}
}

/* The page's data: one object per bio, its rows as the tree prints them. */
static void html_tree(const struct tree *t, const struct row *rows, int n, const char *hdr)
{
	const struct ct_event *prev = NULL;
	char task[40], f[256], fn[160], ops[128];

	fprintf(html_out, "%s{\"bio\":\"0x%llx\",\"hdr\":", view_bios ? ",\n" : "",
		(unsigned long long)t->bio);
	page_json_str(html_out, hdr);
	fprintf(html_out, ",\"sector\":%llu,\"size\":%u,\"op\":",
		(unsigned long long)t->ev[0].sector, t->ev[0].size);
	page_json_str(html_out, op_str(t->ev[0].opf, ops, sizeof(ops)));
	fprintf(html_out, ",\"t0\":%.3f,\"span\":%.3f,\"rows\":[", view_us(t->ev[0].ts),
		(t->ev[t->n - 1].ts - t->ev[0].ts) / 1000.0);
	for (int i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		const struct ct_event *e = r->e;
		__u64 at = (r->close ? e->ts + r->dur : e->ts) - t->ev[0].ts;

		snprintf(task, sizeof(task), "%.16s-%u", e->comm, e->pid);
		row_fn(r, fn, sizeof(fn));
		f[0] = '\0';
		if (!r->close) {
			fields_str(e, prev, f, sizeof(f));
			prev = e;
		}
		fprintf(html_out, "%s\n{\"t\":%.3f,\"d\":%.3f,\"depth\":%d,\"close\":%d,\"fn\":",
			i ? "," : "", at / 1000.0, r->dur / 1000.0, r->depth, r->close);
		page_json_str(html_out, fn);
		fprintf(html_out, ",\"cpu\":%u,\"ctx\":\"%s\",\"task\":", e->cpu, ctx_name(e->ctx));
		page_json_str(html_out, task);
		fputs(",\"data\":", html_out);
		page_json_str(html_out, f + (f[0] ? 2 : 0));
		fputs("}", html_out);
	}
	fputs("]}", html_out);
}

static const char page_css[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:1em 2em;color:#222;background:#fff}\n"
	"h1{font-size:1.3em}\n"
	".meta{color:#555}\n"
	"details.bio{border:1px solid #ccd;border-radius:4px;margin:.6em 0;padding:.3em .6em}\n"
	"summary{cursor:pointer;font-family:monospace;font-weight:bold}\n"
	"table{border-collapse:collapse;width:100%;margin-top:.4em}\n"
	"th,td{text-align:left;padding:1px 6px;white-space:nowrap;font-family:monospace;font-size:12px}\n"
	"th{background:#eef;position:sticky;top:0}\n"
	"tr:nth-child(even){background:#f7f7fb}\n"
	"td.num{text-align:right}\n"
	"td.line{width:30%;min-width:12em}\n"
	".track{position:relative;height:12px;background:#eee}\n"
	".bar{position:absolute;top:1px;height:10px;min-width:2px;border-radius:2px}\n"
	".task{background:#3b7dd8}.softirq{background:#e08a1e}.hardirq{background:#d43c3c}\n"
	".nmi{background:#7a3cd4}.irq{background:#c05050}\n"
	"td.data{color:#075}\n";

/*
 * The page's script: one <details> per bio, a table of its rows with a
 * timeline bar each (its start and duration on the bio's time scale)
 * and the call tree indented. Text is set with textContent, never as
 * HTML: a task name cannot inject markup.
 */
static const char page_js[] =
	"'use strict';\n"
	"const bios = JSON.parse(document.getElementById('ct-data').textContent);\n"
	"const root = document.getElementById('bios');\n"
	"function el(tag, cls, text) {\n"
	"\tconst e = document.createElement(tag);\n"
	"\tif (cls) e.className = cls;\n"
	"\tif (text !== undefined) e.textContent = text;\n"
	"\treturn e;\n"
	"}\n"
	"const us = (v) => v.toFixed(3) + ' us';\n"
	"document.getElementById('count').textContent = bios.length + ' bios';\n"
	"bios.forEach((b, k) => {\n"
	"\tconst d = el('details', 'bio');\n"
	"\td.open = k < 50;\n"
	"\td.dataset.bio = b.bio;\n"
	"\td.dataset.sector = b.sector;\n"
	"\td.appendChild(el('summary', '', b.hdr + ' \\u2014 sector ' + b.sector + ', ' +\n"
	"\t\tb.size + ' bytes, ' + b.op));\n"
	"\tconst t = el('table');\n"
	"\tconst h = el('tr');\n"
	"\t['time', 'duration', 'cpu', 'context', 'task', 'timeline', 'function', 'data']\n"
	"\t\t.forEach((c) => h.appendChild(el('th', '', c)));\n"
	"\tt.appendChild(h);\n"
	"\tconst span = b.span > 0 ? b.span : 1;\n"
	"\tb.rows.forEach((r) => {\n"
	"\t\tconst tr = el('tr');\n"
	"\t\ttr.appendChild(el('td', 'num', us(r.t)));\n"
	"\t\ttr.appendChild(el('td', 'num', r.d >= 0 && !r.close ? us(r.d) : ''));\n"
	"\t\ttr.appendChild(el('td', 'num', 'cpu' + r.cpu));\n"
	"\t\ttr.appendChild(el('td', '', r.ctx));\n"
	"\t\ttr.appendChild(el('td', '', r.task));\n"
	"\t\tconst line = el('td', 'line'), track = el('div', 'track');\n"
	"\t\tif (!r.close) {\n"
	"\t\t\tconst bar = el('div', 'bar ' + r.ctx);\n"
	"\t\t\t/* the last event's mark stays inside its track */\n"
	"\t\t\tbar.style.left = 'calc(min(' + (100 * r.t / span) + '%, 100% - 2px))';\n"
	"\t\t\tbar.style.width = (r.d > 0 ? 100 * r.d / span : 0) + '%';\n"
	"\t\t\tbar.title = r.fn + (r.d >= 0 ? ' ' + us(r.d) : '');\n"
	"\t\t\ttrack.appendChild(bar);\n"
	"\t\t}\n"
	"\t\tline.appendChild(track);\n"
	"\t\ttr.appendChild(line);\n"
	"\t\tconst fn = el('td', 'fn', r.fn);\n"
	"\t\tfn.style.paddingLeft = (6 + 14 * r.depth) + 'px';\n"
	"\t\ttr.appendChild(fn);\n"
	"\t\ttr.appendChild(el('td', 'data', r.data));\n"
	"\t\tt.appendChild(tr);\n"
	"\t});\n"
	"\td.appendChild(t);\n"
	"\troot.appendChild(d);\n"
	"});\n";

/* Open the views' files before tracing: a path we cannot write is bad input. */
static int views_open(const char *name)
{
	if (opt.json && !(json_out = fopen(opt.json, "w"))) {
		fprintf(stderr, "%s: cannot write %s: %s\n", name, opt.json, strerror(errno));
		return -1;
	}
	if (opt.html && !(html_out = fopen(opt.html, "w"))) {
		fprintf(stderr, "%s: cannot write %s: %s\n", name, opt.html, strerror(errno));
		return -1;
	}
	return 0;
}

/* After attaching: the files' heads, with the door in them. */
static void views_begin(const char *how)
{
	char title[200];

	views_begun = true;
	snprintf(title, sizeof(title), "ctracer: each bio's path (%s door, %s)", door_name(door), how);
	if (json_out) {
		fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"program\":\"ctracer\",\"title\":", json_out);
		page_json_str(json_out, title);
		fputs("},\n\"traceEvents\":[\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,"
		      "\"tid\":0,\"args\":{\"name\":\"ctracer: one thread per bio\"}}", json_out);
	}
	if (html_out) {
		page_begin(html_out, title, page_css);
		fputs("<h1>", html_out);
		page_html_str(html_out, title);
		fputs("</h1>\n<p class=\"meta\"><span id=\"count\"></span>; times from each bio's first "
		      "event; bars coloured by context: task, softirq, hardirq.</p>\n"
		      "<div id=\"bios\"></div>\n", html_out);
		page_data_begin(html_out, "ct-data");
		fputc('[', html_out);
	}
}

static void views_tree(const struct tree *t, const struct row *rows, int n, const char *hdr)
{
	if (!view_base)
		view_base = t->ev[0].ts;
	if (json_out)
		json_tree(t, rows, n, hdr);
	if (html_out)
		html_tree(t, rows, n, hdr);
	view_bios++;
}

/*
 * 0, or -1 when a file could not be written whole (a full disk). Files
 * of a run that never started tracing are removed, not left half made.
 */
static int views_close(const char *name)
{
	int err = 0;

	if (!views_begun) {
		if (json_out && !fclose(json_out))
			unlink(opt.json);
		if (html_out && !fclose(html_out))
			unlink(opt.html);
		json_out = html_out = NULL;
		return 0;
	}
	if (json_out) {
		fputs("\n]}\n", json_out);
		if (fclose(json_out)) {
			fprintf(stderr, "%s: cannot write %s: %s\n", name, opt.json, strerror(errno));
			err = -1;
		}
		json_out = NULL;
	}
	if (html_out) {
		fputs("]", html_out);
		page_data_end(html_out);
		page_end(html_out, page_js);
		if (fclose(html_out)) {
			fprintf(stderr, "%s: cannot write %s: %s\n", name, opt.html, strerror(errno));
			err = -1;
		}
		html_out = NULL;
	}
	return err;
}

/*
 * Lesson#7: like ftrace's function graph, one line per function the
 * bio went through: time since its first event, CPU, context, task,
 * function (nested, with its duration, under -r), and the bio's fields
 * where they changed.
 */
static void print_tree(const struct tree *t)
{
	const struct ct_event *first = &t->ev[0], *prev = NULL;
	struct row *rows = calloc(t->n, sizeof(*rows));
	char task[40], d[32], hdr[160], f[256], fn[160];
	int n;

	if (!rows)
		return;
	n = lay_out(t, rows);
	tree_header(t, hdr, sizeof(hdr));
	if (!env.quiet) {
		printf("%s\n", hdr);
		for (int i = 0; i < n; i++) {
			const struct row *r = &rows[i];
			const struct ct_event *e = r->e;
			__u64 at = (r->close ? e->ts + r->dur : e->ts) - first->ts;

			snprintf(task, sizeof(task), "%.16s-%u", e->comm, e->pid);
			row_fn(r, fn, sizeof(fn));
			us(d, sizeof(d), r->dur);
			printf("%8llu.%03llu us  cpu%-2u %-7s %-22s %*s%s", (unsigned long long)at / 1000,
			       (unsigned long long)at % 1000, e->cpu, ctx_name(e->ctx), task,
			       2 * r->depth, "", fn);
			if (r->close || r->leaf)
				printf("  %s", d);
			if (!r->close) {
				fields_str(e, prev, f, sizeof(f));
				printf("%s", f);
				prev = e;
			}
			printf("\n");
		}
	}
	views_tree(t, rows, n, hdr);
	free(rows);
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
}

static int handle_event(void *ctx, void *data, size_t size)
{
	const struct ct_event *e = data;
	struct tree **pp = bucket(e->bio), *t;
	int i;

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
	if (!t && (e->flags & CT_RET)) {
		late_returns++;	/* its tree was printed already */
		return 0;
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
	/* in time order: events of other CPUs may arrive a little late */
	for (i = t->n++; i > 0 && t->ev[i - 1].ts > e->ts; i--)
		t->ev[i] = t->ev[i - 1];
	t->ev[i] = *e;
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
	/* I/O under way at the run's edges: not lost, said apart */
	if (no_submit || no_end || no_return)
		printf("In flight at start: %llu bios seen without their submit; at exit: "
		       "%llu bios without their end, %llu calls without their return\n",
		       no_submit, no_end, no_return);
	lost |= lost_line(total[CT_RB_DROP], "events the ring buffer had no room for");
	lost |= lost_line(total[CT_PID_FULL], "bios not followed (-p, -s: map full)");
	lost |= lost_line(total[CT_WALK_CUT], "rq->bio walks cut short");
	lost |= lost_line(total[CT_CALLS_FULL], "returns not followed (-r: calls map full)");
	lost |= lost_line(kprobe_missed, "events missed by the kprobe (another kprobe was running)");
	lost |= lost_line(recursion_misses(skel->obj) + copy_recursion_misses,
			  "events missed by recursion");
	lost |= lost_line(late_returns, "returns that came after their bio's tree was printed");
	if (!lost)
		printf("Lost: none\n");
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
	if (env.quiet && (opt.json || opt.html)) {
		fprintf(stderr, "%s: -q sends no events: nothing for --json or --html "
			"(try --help)\n", t.name);
		return 2;
	}
	if (tracer_preflight(t.name) || load_vmlinux(t.name) || views_open(t.name))
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
	err = tracer_run(&t);
	detach();
	ring_buffer__consume(rb);
	if (!err && !env.quiet)
		flush_trees(0, true);
	if (!err) {
		summary(skel);
		err = tracer_output_ok(&t);
	}
	if (views_close(t.name))
		err = -1;
cleanup:
	detach();
	ring_buffer__free(rb);
	ctracer_bpf__destroy(skel);
	bio_funcs_free(&funcs);
	btf__free(vmlinux);
	free(syms);
	free(cookies);
	free(links);
	free(fds);
	views_close(t.name);
	return err ? 1 : 0;
}
