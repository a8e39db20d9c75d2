/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What every stage's BPF side shares: the run's settings, the counters
 * that make losses visible, and the block-device filter behind -d.
 */
#ifndef __TRACE_BPF_H
#define __TRACE_BPF_H

#include "stats.h"

#ifndef EEXIST
#define EEXIST 17	/* vmlinux.h has no errno values */
#endif

/* Set by the loader before load; the verifier then drops dead branches. */
const volatile bool quiet = false;	/* -q: no bpf_printk at all */
const volatile __u32 targ_dev = 0;	/* -d: kernel dev_t of the disk, 0 = all */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

static __always_inline void stat_inc(enum trace_stat s)
{
	__u32 key = s;
	__u64 *v = bpf_map_lookup_elem(&stats, &key);

	if (v)
		(*v)++;
}

/* The kernel's MKDEV(): 12 bits of major above 20 bits of minor. */
static __always_inline __u32 disk_dev(struct gendisk *disk)
{
	return (BPF_CORE_READ(disk, major) << 20) | BPF_CORE_READ(disk, first_minor);
}

/* Before 5.17 a request named its disk itself (rq->rq_disk). */
struct request___pre517 {
	struct gendisk *rq_disk;
} __attribute__((preserve_access_index));

static __always_inline struct gendisk *rq_disk(struct request *rq)
{
	struct request___pre517 *old = (void *)rq;

	if (bpf_core_field_exists(old->rq_disk))
		return BPF_CORE_READ(old, rq_disk);
	return BPF_CORE_READ(rq, q, disk);
}

static __always_inline bool bio_wanted(struct bio *bio)
{
	return !targ_dev || disk_dev(BPF_CORE_READ(bio, bi_bdev, bd_disk)) == targ_dev;
}

static __always_inline bool rq_wanted(struct request *rq)
{
	return !targ_dev || disk_dev(rq_disk(rq)) == targ_dev;
}

#endif /* __TRACE_BPF_H */
