/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What this kernel has, probed at run time (kernel_has.c): the tests
 * doors.c makes before it chooses a door, and why-strings for its lines.
 */
#ifndef __KERNEL_HAS_H
#define __KERNEL_HAS_H

#include <stdbool.h>
#include <bpf/btf.h>

/* Does this kernel have kprobes (the kprobe PMU, or kprobe_events)? */
bool kprobes_supported(void);
/*
 * Can an fentry program be loaded on func and attached? 0, or -errno
 * (EPERM, ENOTSUPP: no). A cookie other than 0 is attached with it
 * (bpf_link_create(), 5.19), for a stage that tells functions apart so.
 */
int fentry_probe(struct btf *vmlinux, const char *func, __u64 cookie);
/* fentry_probe()'s err in words, for a door line: why no fentry door */
const char *fentry_why(struct btf *vmlinux, int err);
/* Can a kprobe be opened on func? 0, -ENOENT (not in BTF), or -errno. */
int kprobe_probe(struct btf *vmlinux, const char *func);
/* Why tp_btf cannot attach to tracepoint tp ("has no BTF type"), or NULL. */
const char *tp_missing(struct btf *vmlinux, const char *tp);
/*
 * BIO_CLONED, a bit of bio->bi_flags, sits in an enum without a name,
 * which CO-RE cannot relocate: its mask on this kernel, from its BTF.
 * doors_select() keeps it in d->bio_cloned; a stage writes it into its
 * object's bio_cloned_flag (bio_end.bpf.h) before load.
 */
__u32 bio_cloned_flag(const struct btf *vmlinux);

#endif /* __KERNEL_HAS_H */
