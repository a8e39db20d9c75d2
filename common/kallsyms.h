/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Kernel addresses to symbol + offset, from /proc/kallsyms (or any file
 * in its format): read once, sorted, looked up by binary search.
 */
#ifndef __KALLSYMS_H
#define __KALLSYMS_H

#include <stdint.h>

struct ksym {
	uint64_t addr;
	const char *name;
	const char *module;	/* "ext4", "bpf"; NULL for the kernel image */
	char type;		/* nm-style: t, T, d, … */
};

struct ksyms;

/* Read a kallsyms file; NULL with errno set (EPERM: addresses hidden). */
struct ksyms *ksyms_load(const char *path);
/* /proc/kallsyms, read on the first call only; NULL with errno set. */
const struct ksyms *ksyms_kernel(void);
/*
 * The function holding addr and addr's offset in it; NULL for an address
 * before the first symbol or in data rather than text.
 */
const struct ksym *ksyms_find(const struct ksyms *ks, uint64_t addr,
			      uint64_t *offset);
int ksyms_count(const struct ksyms *ks);
void ksyms_free(struct ksyms *ks);

#endif /* __KALLSYMS_H */
