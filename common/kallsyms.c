// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Kernel symbols from a kallsyms file: see kallsyms.h. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kallsyms.h"

struct ksyms {
	struct ksym *syms;
	int n, cap;
	char *strs;		/* names and modules, back to back */
	size_t slen, scap;
};

static int is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

/* Markers where the kernel's text ends: what follows is no function. */
static int is_text_end(const char *name)
{
	return !strcmp(name, "_etext") || !strcmp(name, "_einittext");
}

/* The last symbol has no next one to end it: allow a large function. */
#define LAST_SYM_SPAN (1ULL << 20)

/* Copy s into the string arena; returns its offset, or -1. */
static long add_str(struct ksyms *ks, const char *s, size_t len)
{
	size_t off = ks->slen;

	if (ks->slen + len + 1 > ks->scap) {
		size_t cap = ks->scap ? ks->scap * 2 : 1 << 16;
		char *p;

		while (cap < ks->slen + len + 1)
			cap *= 2;
		p = realloc(ks->strs, cap);
		if (!p)
			return -1;
		ks->strs = p;
		ks->scap = cap;
	}
	memcpy(ks->strs + off, s, len);
	ks->strs[off + len] = '\0';
	ks->slen += len + 1;
	return off;
}

/*
 * One line: "<hex address> <type> <name>[\t[<module>]]". Returns 1 if
 * stored, 0 if the line is not in that shape, -1 on no memory.
 */
static int add_line(struct ksyms *ks, char *line)
{
	char *p = line, *end, *name, *mod = NULL;
	unsigned long long addr;
	long noff, moff = -1;
	size_t nlen;
	char type;

	/* strtoull would also take leading blanks and a minus sign */
	if (!isxdigit((unsigned char)*p))
		return 0;
	errno = 0;
	addr = strtoull(p, &end, 16);
	if (errno || end == p || *end != ' ')
		return 0;
	p = end + 1;
	type = *p;
	if (!type || type == ' ' || p[1] != ' ')
		return 0;
	name = p + 2;
	nlen = strcspn(name, " \t\r\n");
	if (!nlen)
		return 0;
	p = name + nlen;
	p += strspn(p, " \t");
	if (*p == '[') {
		mod = p + 1;
		p = strchr(mod, ']');
		if (!p || p == mod)
			return 0;
		*p = '\0';
	}
	if (ks->n == ks->cap) {
		int cap = ks->cap ? ks->cap * 2 : 4096;
		struct ksym *s = realloc(ks->syms, cap * sizeof(*s));

		if (!s)
			return -1;
		ks->syms = s;
		ks->cap = cap;
	}
	noff = add_str(ks, name, nlen);
	if (mod)
		moff = add_str(ks, mod, strlen(mod));
	if (noff < 0 || (mod && moff < 0))
		return -1;
	/* offsets for now: the arena may still move */
	ks->syms[ks->n].addr = addr;
	ks->syms[ks->n].name = (const char *)(uintptr_t)noff;
	ks->syms[ks->n].module = mod ? (const char *)(uintptr_t)moff : NULL;
	ks->syms[ks->n].type = type;
	ks->n++;
	return 1;
}

/*
 * By address (64-bit compare, no subtraction); at one address text first,
 * so a lookup lands on a function, then by name, so the order is stable.
 */
static int cmp_sym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (is_text(x->type) != is_text(y->type))
		return is_text(y->type) - is_text(x->type);
	return strcmp(x->name, y->name);
}

struct ksyms *ksyms_load(const char *path)
{
	struct ksyms *ks;
	size_t cap = 0;
	char *line = NULL;
	int nonzero = 0, err = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f)
		return NULL;
	ks = calloc(1, sizeof(*ks));
	if (!ks) {
		fclose(f);
		errno = ENOMEM;
		return NULL;
	}
	while (getline(&line, &cap, f) > 0) {
		int r = add_line(ks, line);

		if (r < 0) {
			err = ENOMEM;
			break;
		}
		if (r && ks->syms[ks->n - 1].addr)
			nonzero = 1;
	}
	free(line);
	fclose(f);
	/* kptr_restrict shows every address as 0 to a reader it distrusts */
	if (!err && ks->n && !nonzero)
		err = EPERM;
	if (err) {
		ksyms_free(ks);
		errno = err;
		return NULL;
	}
	for (int i = 0; i < ks->n; i++) {
		ks->syms[i].name = ks->strs + (uintptr_t)ks->syms[i].name;
		if (ks->syms[i].module)
			ks->syms[i].module = ks->strs + (uintptr_t)ks->syms[i].module;
	}
	if (ks->n)
		qsort(ks->syms, ks->n, sizeof(*ks->syms), cmp_sym);
	return ks;
}

const struct ksyms *ksyms_kernel(void)
{
	static struct ksyms *kernel;
	static int err;

	if (!kernel && !err) {
		kernel = ksyms_load("/proc/kallsyms");
		if (!kernel)
			err = errno;
	}
	if (!kernel)
		errno = err;
	return kernel;
}

const struct ksym *ksyms_find(const struct ksyms *ks, uint64_t addr,
			      uint64_t *offset)
{
	int lo = 0, hi = ks ? ks->n - 1 : -1, at = -1;
	const struct ksym *s;

	/* the last symbol at or below addr */
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;

		if (ks->syms[mid].addr <= addr) {
			at = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	if (at < 0)
		return NULL;
	/* step back over other names of the same address to its function */
	while (at > 0 && ks->syms[at - 1].addr == ks->syms[at].addr)
		at--;
	s = &ks->syms[at];
	if (!is_text(s->type) || is_text_end(s->name))
		return NULL;
	if (at == ks->n - 1 && addr - s->addr >= LAST_SYM_SPAN)
		return NULL;
	if (offset)
		*offset = addr - s->addr;
	return s;
}

int ksyms_count(const struct ksyms *ks)
{
	return ks ? ks->n : 0;
}

void ksyms_free(struct ksyms *ks)
{
	if (!ks)
		return;
	free(ks->syms);
	free(ks->strs);
	free(ks);
}
