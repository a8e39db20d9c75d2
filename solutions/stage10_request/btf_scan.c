// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Functions taking a struct bio *, from BTF: see btf_scan.h. */
/* Stage 10, exercise 1: or a pointer to another struct, by its name. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "btf_scan.h"
#include "tracefs.h"

/* const, volatile, restrict, typedef and type tags say nothing of the shape. */
static const struct btf_type *skip_mods(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	while (t && (btf_is_mod(t) || btf_is_typedef(t)))
		t = btf__type_by_id(btf, t->type);
	return t;
}

const char *btf_scan_struct = "bio";

/* struct bio *: a pointer to a struct (or a forward declaration) named bio. */
static int is_bio_ptr(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = skip_mods(btf, id);

	if (!t || !btf_is_ptr(t))
		return 0;
	t = skip_mods(btf, t->type);
	if (!t || !(btf_is_struct(t) || (btf_is_fwd(t) && !btf_kflag(t))))
		return 0;
	if (strcmp(btf_scan_struct, "bio"))	/* or the one --class names */
		return !strcmp(btf__name_by_offset(btf, t->name_off), btf_scan_struct);
	return !strcmp(btf__name_by_offset(btf, t->name_off), "bio");
}

int btf_bio_arg(const struct btf *btf, const struct btf_type *fn)
{
	const struct btf_type *proto = btf__type_by_id(btf, fn->type);
	const struct btf_param *p;

	if (!proto || !btf_is_func_proto(proto))
		return -1;
	p = btf_params(proto);
	for (int i = 0; i < btf_vlen(proto); i++, p++)
		if (is_bio_ptr(btf, p->type))
			return i;
	return -1;
}

/* The tracepoints' own functions take the tracepoint's bio too: not ours. */
static int is_glue(const char *name)
{
	static const char *const prefixes[] = {
		"__bpf_trace_", "__probestub_", "__traceiter_", "trace_event_raw_event_",
		"perf_trace_",
	};

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

static int add(struct bio_funcs *fs, const char *name, const char *module, int arg,
	       __u32 btf_id)
{
	if (fs->n == fs->cap) {
		int cap = fs->cap ? fs->cap * 2 : 256;
		struct bio_func *f = realloc(fs->f, cap * sizeof(*f));

		if (!f)
			return -ENOMEM;
		fs->f = f;
		fs->cap = cap;
	}
	fs->f[fs->n].name = strdup(name);
	if (!fs->f[fs->n].name)
		return -ENOMEM;
	fs->f[fs->n].module = module;
	fs->f[fs->n].btf_id = btf_id;
	fs->f[fs->n++].arg = arg;
	return 0;
}

/* One copy of a module's name for all its functions: they compare it by address. */
static const char *keep_module(struct bio_funcs *fs, const char *module)
{
	char **m = realloc(fs->modules, (fs->n_modules + 1) * sizeof(*m));

	if (!m)
		return NULL;
	fs->modules = m;
	m[fs->n_modules] = strdup(module);
	return m[fs->n_modules] ? m[fs->n_modules++] : NULL;
}

int btf_scan_bio(const struct btf *btf, __u32 first_id, const char *module,
		 struct bio_funcs *fs)
{
	__u32 n = btf__type_cnt(btf);

	if (module && !(module = keep_module(fs, module)))
		return -ENOMEM;

	for (__u32 id = first_id ? first_id : 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *name;
		int arg;

		if (!btf_is_func(t))
			continue;
		arg = btf_bio_arg(btf, t);
		if (arg < 0)
			continue;
		name = btf__name_by_offset(btf, t->name_off);
		if (is_glue(name)) {
			fs->glue++;
			continue;
		}
		if (arg >= BIO_ARG_MAX) {
			fs->far_arg++;
			continue;
		}
		if (add(fs, name, module, arg, id))
			return -ENOMEM;
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * One line per function: "name" or "name [module]"; a name may repeat
 * (static functions of two files). Only the name matters here.
 */
int bio_funcs_filter(struct bio_funcs *fs, const char *path)
{
	FILE *f = fopen(path, "r");
	char **names = NULL, line[512];
	size_t n = 0, cap = 0;
	int kept = 0, err = 0;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, " \t\n")] = '\0';
		if (!line[0])
			continue;
		if (n == cap) {
			char **p = realloc(names, (cap = cap ? cap * 2 : 4096) * sizeof(*p));

			if (!p) {
				err = -ENOMEM;
				goto out;
			}
			names = p;
		}
		names[n] = strdup(line);
		if (!names[n]) {
			err = -ENOMEM;
			goto out;
		}
		n++;
	}
	if (ferror(f) || !n) {
		/* tracefs may refuse the read (EPERM) or list nothing */
		err = ferror(f) ? -EIO : -ENODATA;
		goto out;
	}
	qsort(names, n, sizeof(*names), cmp_str);
	for (int i = 0; i < fs->n; i++) {
		if (bsearch(&fs->f[i].name, names, n, sizeof(*names), cmp_str)) {
			fs->f[kept++] = fs->f[i];
		} else {
			free(fs->f[i].name);
			fs->not_traceable++;
		}
	}
	fs->n = kept;
out:
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	fclose(f);
	return err;
}

/* By name; the same name: the kernel's own first, then by module. */
static int cmp_func(const void *a, const void *b)
{
	const struct bio_func *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c || x->module == y->module)
		return c;
	if (!x->module || !y->module)
		return x->module ? 1 : -1;
	return strcmp(x->module, y->module);
}

void bio_funcs_sort(struct bio_funcs *fs)
{
	int kept = 0;

	qsort(fs->f, fs->n, sizeof(*fs->f), cmp_func);
	for (int i = 0; i < fs->n; i++) {
		if (kept && !strcmp(fs->f[kept - 1].name, fs->f[i].name)) {
			free(fs->f[i].name);
			fs->dup++;
			continue;
		}
		fs->f[kept++] = fs->f[i];
	}
	fs->n = kept;
}

void bio_funcs_traceable(struct bio_funcs *fs, const char *name)
{
	char path[512];
	int err;

	snprintf(path, sizeof(path), "%s/available_filter_functions",
		 tracefs_mount() ? "/sys/kernel/tracing" : tracefs_root());
	err = bio_funcs_filter(fs, path);
	if (err)
		fprintf(stderr, "%s: cannot read %s (%s): keeping BTF's list, "
			"some may refuse to attach\n", name, path,
			err == -ENODATA ? "empty" : strerror(-err));
}

void bio_funcs_print(const struct bio_funcs *fs, FILE *out)
{
	int mods = 0;

	for (int i = 0; i < fs->n; i++) {
		fprintf(out, "%-44s arg%d%s%s\n", fs->f[i].name, fs->f[i].arg + 1,
			fs->f[i].module ? "  " : "", fs->f[i].module ? fs->f[i].module : "");
		mods += fs->f[i].module != NULL;
	}
	if (strcmp(btf_scan_struct, "bio")) {	/* another struct: its name */
		fprintf(out, "%d functions take a struct %s * (%d in modules)\n", fs->n,
			btf_scan_struct, mods);
		fprintf(out, "Skipped: %d tracepoint glue, %d with the %s after argument %d, "
			"%d repeated names, %d not in available_filter_functions\n", fs->glue,
			fs->far_arg, btf_scan_struct, BIO_ARG_MAX, fs->dup, fs->not_traceable);
		return;
	}
	fprintf(out, "%d functions take a struct bio * (%d in modules)\n", fs->n, mods);
	fprintf(out, "Skipped: %d tracepoint glue, %d with the bio after argument %d, "
		"%d repeated names, %d not in available_filter_functions\n",
		fs->glue, fs->far_arg, BIO_ARG_MAX, fs->dup, fs->not_traceable);
}

void bio_funcs_free(struct bio_funcs *fs)
{
	for (int i = 0; i < fs->n; i++)
		free(fs->f[i].name);
	for (int i = 0; i < fs->n_modules; i++)
		free(fs->modules[i]);
	free(fs->f);
	free(fs->modules);
	memset(fs, 0, sizeof(*fs));
}
