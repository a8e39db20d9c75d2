/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Which kernel functions take a struct bio *, and as which argument: a
 * walk of BTF (stage 10's discovery, pahole's pfunct --class=bio of the
 * seed, without DWARF).
 */
#ifndef __BTF_SCAN_H
#define __BTF_SCAN_H

#include <stdio.h>
#include <bpf/btf.h>

/*
 * A kprobe reads arguments from the registers the calling convention
 * passes them in: PT_REGS_PARM1 to PARM5 on every architecture libbpf
 * knows. A bio passed later than that cannot be read: skipped, counted.
 */
#define BIO_ARG_MAX 5

struct bio_func {
	char *name;
	const char *module;	/* NULL: the kernel image */
	int arg;		/* 0-based position of its first struct bio * */
	__u32 btf_id;		/* its BTF_KIND_FUNC: what an fentry program names */
};

struct bio_funcs {
	struct bio_func *f;
	int n, cap;
	int glue;		/* skipped: tracepoint glue (__bpf_trace_*, …) */
	int far_arg;		/* skipped: the bio after argument BIO_ARG_MAX */
	int dup;		/* skipped: a name seen before */
	int not_traceable;	/* dropped by bio_funcs_filter() */
	char **modules;		/* a copy of each module's name, which f[].module points to */
	int n_modules;
};

/* The struct the scan looks for, "bio" unless set (Stage 10, exercise 1). */
extern const char *btf_scan_struct;

/* The 0-based position of fn's first struct bio * parameter, or -1. */
int btf_bio_arg(const struct btf *btf, const struct btf_type *fn);

/*
 * Append every BTF_KIND_FUNC of btf with a struct bio * parameter (also
 * const, volatile or through a typedef; not struct bio **) to fs. Types
 * from first_id on only: a module's split BTF starts after vmlinux's;
 * module (NULL: the kernel image) is copied, freed by bio_funcs_free().
 * 0, or -ENOMEM.
 */
int btf_scan_bio(const struct btf *btf, __u32 first_id, const char *module,
		 struct bio_funcs *fs);

/*
 * Keep only the functions listed in path (tracefs'
 * available_filter_functions: what ftrace, so kprobes, can attach to).
 * 0, or -errno when path cannot be read (fs unchanged).
 */
int bio_funcs_filter(struct bio_funcs *fs, const char *path);
/*
 * bio_funcs_filter() with tracefs' list; when it cannot be read, one
 * line on stderr (prefixed name) says so and the list stays whole.
 */
void bio_funcs_traceable(struct bio_funcs *fs, const char *name);

/*
 * Sort by name and drop a name seen before (static functions of one name
 * in two files, a module's copy of the kernel's): a kprobe takes a name,
 * not a BTF id. The kernel's own is kept.
 */
void bio_funcs_sort(struct bio_funcs *fs);
/* ctracer --list: one line per function, then the counts and the skipped. */
void bio_funcs_print(const struct bio_funcs *fs, FILE *out);
void bio_funcs_free(struct bio_funcs *fs);

#endif /* __BTF_SCAN_H */
