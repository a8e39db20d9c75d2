// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* One program on many functions: see mass_attach.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <bpf/bpf.h>
#include "mass_attach.h"
#include "options.h"
#include "summary.h"

int mass_attach_door(struct btf *vmlinux, enum door want, const char *prog, char *why,
		     size_t len)
{
	const char *kp_why = NULL;
	char fe_why[80];
	int fe, plain;

	if (want == DOOR_AUTO || want == DOOR_FENTRY) {
		fe = fentry_probe(vmlinux, "submit_bio", 1);
		if (!fe)
			return DOOR_FENTRY;
		/* refused with a cookie: is it the cookie (before 5.19), or fentry? */
		plain = fe != -EPERM ? fentry_probe(vmlinux, "submit_bio", 0) : fe;
		snprintf(fe_why, sizeof(fe_why), "%s",
			 plain ? fentry_why(vmlinux, plain) : "its links take no cookie (5.19+)");
		if (want == DOOR_FENTRY) {
			fprintf(stderr, "%s: no fentry door on this kernel (%s)\n", prog, fe_why);
			return -1;
		}
	}
	if (want == DOOR_TRACEPOINT)
		return want;
	/* one program for every function: it asks the cookie which one fired */
	if (!kprobes_supported())
		kp_why = "this kernel has no kprobes";
	else if (libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_get_attach_cookie,
					 NULL) != 1)
		kp_why = "bpf_get_attach_cookie() is 5.15+";
	if (want == DOOR_KPROBE) {
		if (!kp_why)
			return want;
		fprintf(stderr, "%s: no kprobe door on this kernel (%s)\n", prog, kp_why);
		return -1;
	}
	snprintf(why, len, "fentry: %s%s%s", fe_why, kp_why ? "; kprobe: " : "",
		 kp_why ? kp_why : "");
	return kp_why ? DOOR_TRACEPOINT : DOOR_KPROBE;
}

int mass_attach_init(struct mass_attach *m, const struct bio_funcs *fs, const __u64 *cookies)
{
	memset(m, 0, sizeof(*m));
	m->funcs = fs;
	m->cookies = cookies;
	m->syms = calloc(fs->n ? fs->n : 1, sizeof(*m->syms));
	if (!m->syms)
		return -ENOMEM;
	for (int i = 0; i < fs->n; i++)
		m->syms[i] = fs->f[i].name;
	return 0;
}

/* Room for one more element in *arr (n of *cap used): 0, or -ENOMEM. */
static int room(void **arr, int n, int *cap, size_t size)
{
	int c = *cap ? *cap * 2 : 64;
	void *p;

	if (n < *cap)
		return 0;
	p = realloc(*arr, c * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = c;
	return 0;
}

static int keep_link(struct mass_attach *m, struct bpf_link *link)
{
	if (room((void **)&m->links, m->nlinks, &m->cap_links, sizeof(*m->links))) {
		bpf_link__destroy(link);
		return -ENOMEM;
	}
	m->links[m->nlinks++] = link;
	return 0;
}

static int keep_fd(struct mass_attach *m, int fd)
{
	if (room((void **)&m->fds, m->nfds, &m->cap_fds, sizeof(*m->fds))) {
		close(fd);
		return -ENOMEM;
	}
	m->fds[m->nfds++] = fd;
	return 0;
}

/* Hundreds of kprobes or fentry programs take hundreds of fds. */
static void raise_nofile(void)
{
	struct rlimit r;

	if (!getrlimit(RLIMIT_NOFILE, &r) && r.rlim_cur < r.rlim_max) {
		r.rlim_cur = r.rlim_max;
		setrlimit(RLIMIT_NOFILE, &r);
	}
}

static void count(struct mass_attach *m, int n, bool ret)
{
	*(ret ? &m->ret_attached : &m->attached) += n;
}

/* Function i refused its entry (or, ret, its return) with errno err. */
static void refuse(struct mass_attach *m, int i, int err, bool ret)
{
	if (!m->first_err) {
		m->first_err = err;
		m->first_fn = i;
	}
	(*(ret ? &m->ret_refused : &m->refused))++;
	if (env.verbose)
		fprintf(stderr, "refused: %s%s: %s\n", m->funcs->f[i].name,
			ret ? " (return)" : "", strerror(err));
}

static int multi(struct mass_attach *m, struct bpf_program *prog, int lo, int hi, bool ret)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, o, .syms = m->syms + lo,
		    .cookies = m->cookies + lo, .cnt = hi - lo, .retprobe = ret);
	struct bpf_link *link;
	int err, mid;

	link = bpf_program__attach_kprobe_multi_opts(prog, NULL, &o);
	if (link) {
		count(m, hi - lo, ret);
		return keep_link(m, link);
	}
	err = -errno;
	/* no CONFIG_FPROBE (Debian's 6.1): the kernel has no kprobe.multi */
	if (err == -EOPNOTSUPP || err == -524 /* ENOTSUPP */ || err == -ENOSYS) {
		m->no_multi = true;
		return -EOPNOTSUPP;
	}
	if (hi - lo == 1) {
		refuse(m, lo, -err, ret);
		return 0;
	}
	mid = lo + (hi - lo) / 2;
	err = multi(m, prog, lo, mid, ret);
	return err ? err : multi(m, prog, mid, hi, ret);
}

/* Each a perf event, an fd and a kprobe of its own. */
static int each_kprobe(struct mass_attach *m, struct bpf_program *prog, bool ret)
{
	raise_nofile();
	for (int i = 0; i < m->funcs->n; i++) {
		LIBBPF_OPTS(bpf_kprobe_opts, o, .bpf_cookie = m->cookies[i], .retprobe = ret);
		struct bpf_link *link;

		link = bpf_program__attach_kprobe_opts(prog, m->syms[i], &o);
		if (!link) {
			refuse(m, i, errno, ret);
			continue;
		}
		if (keep_link(m, link))
			return -ENOMEM;
		count(m, 1, ret);
	}
	return 0;
}

int mass_attach_kprobes(struct mass_attach *m, struct bpf_program *multi_prog,
			struct bpf_program *each, bool ret)
{
	int err = 0;

	if (!m->no_multi && m->funcs->n)
		err = multi(m, multi_prog, 0, m->funcs->n, ret);
	if (!m->no_multi) {
		m->how = ret ? "kprobe.multi, kretprobe.multi" : "kprobe.multi";
		return err;
	}
	m->how = ret ? "one kprobe and one kretprobe per function" : "one kprobe per function";
	return each_kprobe(m, each, ret);
}

/* The first function with its bio at argument arg; the kernel's own first. */
static const char *first_target(const struct bio_funcs *fs, int arg)
{
	const char *any = NULL;

	for (int i = 0; i < fs->n; i++) {
		if (fs->f[i].arg != arg)
			continue;
		if (!fs->f[i].module)
			return fs->f[i].name;
		any = any ? any : fs->f[i].name;
	}
	return any;
}

void mass_attach_templates(struct bpf_program *const *progs, const struct bio_funcs *fs)
{
	for (int a = 0; a < BIO_ARG_MAX; a++) {
		const char *target = first_target(fs, a);

		if (target && bpf_program__set_attach_target(progs[a], 0, target))
			target = NULL;
		bpf_program__set_autoload(progs[a], target != NULL);
	}
}

/*
 * A module's function is named by its BTF id in the module's BTF, which
 * the kernel knows by an fd of that BTF object: find it by its name.
 */
static int module_btf_fd(struct mass_attach *m, const char *module)
{
	__u32 id = 0;

	for (int i = 0; i < m->nbtf; i++)
		if (m->btf[i].module == module)
			return m->btf[i].fd;
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
			/* kept for the module's other functions, closed by mass_attach_free() */
			if (room((void **)&m->btf, m->nbtf, &m->cap_btf, sizeof(*m->btf))) {
				close(fd);
				return -ENOMEM;
			}
			m->btf[m->nbtf].module = module;
			m->btf[m->nbtf++].fd = fd;
			return fd;
		}
		close(fd);
	}
	return -ENOENT;
}

/*
 * The template was loaded and checked by libbpf: its instructions have
 * their maps and CO-RE fixed up already, so a copy needs only another
 * target (attach_btf_id) to load. A copy the kernel refuses (a notrace
 * function, the verifier) is skipped.
 */
static int fentry(struct mass_attach *m, struct bpf_program *const *progs,
		  struct bpf_program *fexit)
{
	enum bpf_attach_type type = fexit ? BPF_TRACE_FEXIT : BPF_TRACE_FENTRY;
	bool ret = fexit != NULL;
	char pname[16];

	raise_nofile();
	for (int i = 0; i < m->funcs->n; i++) {
		const struct bio_func *f = &m->funcs->f[i];
		const struct bpf_program *t = fexit ? fexit : progs[f->arg];
		LIBBPF_OPTS(bpf_prog_load_opts, po, .expected_attach_type = type,
			    .attach_btf_id = f->btf_id);
		LIBBPF_OPTS(bpf_link_create_opts, lo, .tracing.cookie = m->cookies[i]);
		int pfd, lfd;

		if (bpf_program__fd(t) < 0) {	/* its template did not load */
			refuse(m, i, ENOENT, ret);
			continue;
		}
		if (f->module) {
			po.attach_btf_obj_fd = module_btf_fd(m, f->module);
			if ((int)po.attach_btf_obj_fd < 0) {
				refuse(m, i, ENOENT, ret);
				continue;
			}
		}
		/* bpftool prog show names each copy by its function */
		snprintf(pname, sizeof(pname), "%s", f->name);
		pfd = bpf_prog_load(BPF_PROG_TYPE_TRACING, pname, "GPL", bpf_program__insns(t),
				    bpf_program__insn_cnt(t), &po);
		if (pfd < 0) {
			refuse(m, i, errno, ret);
			continue;
		}
		lfd = bpf_link_create(pfd, 0, type, &lo);
		if (lfd < 0) {
			refuse(m, i, errno, ret);
			close(pfd);
			continue;
		}
		if (keep_fd(m, pfd) || keep_fd(m, lfd))
			return -ENOMEM;
		count(m, 1, ret);
	}
	return 0;
}

int mass_attach_fentry(struct mass_attach *m, struct bpf_program *const *progs,
		       struct bpf_program *fexit)
{
	int err = fentry(m, progs, NULL);

	m->how = fexit ? "one fentry and one fexit program per function" :
			 "one fentry program per function";
	return err || !fexit ? err : fentry(m, progs, fexit);
}

/* A program this kernel lacks the target of was not loaded. */
int mass_attach_loaded(struct mass_attach *m, struct bpf_object *obj, const char *prefix)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, obj) {
		const char *sec = bpf_program__section_name(prog);
		struct bpf_link *link;

		if (!bpf_program__autoload(prog) || strncmp(sec, prefix, strlen(prefix)))
			continue;
		link = bpf_program__attach(prog);
		if (!link) {
			m->refused++;
			continue;
		}
		if (keep_link(m, link))
			return -ENOMEM;
		m->attached++;
	}
	return 0;
}

void mass_attach_refusals(const struct mass_attach *m, int missing, FILE *f)
{
	int first = m->first_err;

	if (m->refused || m->ret_refused || missing)
		fprintf(f, " (%d refused%s%s%s%s%s, %d not in this kernel: skipped)",
			m->refused + m->ret_refused, m->ret_refused ? " with returns" : "",
			first ? ", the first: " : "", first ? m->funcs->f[m->first_fn].name : "",
			first ? ": " : "", first ? strerror(first) : "", missing);
}

void mass_attach_detach(struct mass_attach *m)
{
	for (int i = 0; i < m->nlinks; i++) {
		/* read before the link goes: the count lives in the kprobe */
		m->kprobe_missed += link_kprobe_missed(m->links[i]);
		bpf_link__destroy(m->links[i]);
	}
	m->nlinks = 0;
	/* a link fd after its program's fd: the link goes first */
	for (int i = m->nfds - 1; i >= 0; i--) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		if (!(i & 1) && !bpf_obj_get_info_by_fd(m->fds[i], &info, &len))
			m->recursion_misses += info.recursion_misses;
		close(m->fds[i]);
	}
	m->nfds = 0;
}

void mass_attach_free(struct mass_attach *m)
{
	mass_attach_detach(m);
	for (int i = 0; i < m->nbtf; i++)
		close(m->btf[i].fd);
	m->nbtf = 0;
	free(m->syms);
	free(m->links);
	free(m->fds);
	free(m->btf);
	m->syms = NULL;
	m->links = NULL;
	m->fds = NULL;
	m->btf = NULL;
}
