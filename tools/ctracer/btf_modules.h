/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The BTF of each loaded module (/sys/kernel/btf/<module>): split BTF
 * on top of the kernel's, its own types numbered after the kernel's.
 */
#ifndef __BTF_MODULES_H
#define __BTF_MODULES_H

#include <bpf/btf.h>

/*
 * fn(mod, module, arg) for each module's BTF (freed after the call; the
 * name too). 0, or the first error fn returns (the walk stops there).
 */
int btf_modules_each(struct btf *vmlinux,
		     int (*fn)(const struct btf *mod, const char *module, void *arg), void *arg);

#endif /* __BTF_MODULES_H */
