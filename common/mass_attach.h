/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One BPF program on many kernel functions (stage 10's hundreds that
 * take a struct bio *), each attachment with its own cookie: a copy of
 * an fentry program per function, one kprobe.multi link, or one kprobe
 * per function. A function the kernel refuses is skipped and counted,
 * never fatal.
 */
#ifndef __MASS_ATTACH_H
#define __MASS_ATTACH_H

#include <stdbool.h>
#include <stdio.h>
#include <bpf/libbpf.h>
#include "btf_scan.h"
#include "doors.h"

struct mass_attach {
	const struct bio_funcs *funcs;	/* the functions */
	const __u64 *cookies;		/* one per function */
	const char **syms;		/* their names, as kprobe.multi takes them */
	int attached, refused;		/* entries (or tracepoints) */
	int ret_attached, ret_refused;	/* returns */
	int first_err;			/* the first refusal's errno, 0: none */
	int first_fn;			/* and its function */
	bool no_multi;			/* this kernel has no kprobe.multi */
	const char *how;		/* how, for the attach line: "kprobe.multi" */
	struct bpf_link **links;
	int nlinks, cap_links;
	int *fds;			/* fentry copies: a program fd, its link fd, … */
	int nfds, cap_fds;
	__u64 kprobe_missed;		/* read at detach */
	__u64 recursion_misses;		/* the copies', read at detach */
	struct {
		const char *module;
		int fd;
	} *btf;				/* modules' BTF fds, by module name */
	int nbtf, cap_btf;
};

/*
 * The door to reach many functions, as -a asks (want): fentry, kprobe,
 * then the tracepoints, as in every stage. fentry must take a cookie
 * (5.19), a kprobe ask for one (5.15). A door -a names that this kernel
 * lacks: one line, -1. Auto: the doors passed over, and why, in why.
 */
int mass_attach_door(struct btf *vmlinux, enum door want, const char *prog, char *why,
		     size_t len);
/* 0, or -ENOMEM. cookies[i] goes with fs->f[i]; both must outlive m. */
int mass_attach_init(struct mass_attach *m, const struct bio_funcs *fs, const __u64 *cookies);
/*
 * Every function in one kprobe.multi (or, ret, kretprobe.multi) link,
 * multi. A refusal fails the whole link: each half is tried, down to the
 * single function, which is skipped. A kernel without kprobe.multi gets
 * one kprobe (kretprobe) per function, each, instead. 0, or -ENOMEM.
 */
int mass_attach_kprobes(struct mass_attach *m, struct bpf_program *multi,
			struct bpf_program *each, bool ret);
/*
 * fentry, before load: progs[a] (a < BIO_ARG_MAX) is the template for
 * the functions whose bio is argument a; it is loaded for the first of
 * them (the kernel's own first), or not at all when there is none.
 */
void mass_attach_templates(struct bpf_program *const *progs, const struct bio_funcs *fs);
/*
 * fentry, after load: every function gets a copy of progs[its bio's
 * argument], loaded with it as the target and attached with its cookie;
 * with fexit (not NULL) a copy of it too, for its return. 0, or -ENOMEM.
 */
int mass_attach_fentry(struct mass_attach *m, struct bpf_program *const *progs,
		       struct bpf_program *fexit);
/*
 * Each program obj loaded whose SEC() begins with prefix, on the target
 * it names. 0, or -ENOMEM.
 */
int mass_attach_loaded(struct mass_attach *m, struct bpf_object *obj, const char *prefix);
/*
 * The refusals, for the attach line: " (2 refused, the first: f: why, 1
 * not in this kernel: skipped)" on f, if there were any or missing.
 */
void mass_attach_refusals(const struct mass_attach *m, int missing, FILE *f);
/* Detach everything, reading the misses first; safe to call twice. */
void mass_attach_detach(struct mass_attach *m);
void mass_attach_free(struct mass_attach *m);

#endif /* __MASS_ATTACH_H */
