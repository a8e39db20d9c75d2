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
/* BIO_CLONED in bio->bi_flags, from the kernel's BTF (common/doors.c) */
const volatile __u32 bio_cloned_flag = 1U << 1;

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

/*
 * fentry and tp_btf programs get BTF-typed pointers: a field is one load
 * the verifier checks. kprobe and raw_tp programs get plain numbers and
 * must call bpf_probe_read_kernel() per field; for the -d filter that was
 * ~120 ns per event (docs/overhead.md). The doors pass btf as a constant,
 * so each program is compiled with one of the two ways only.
 */
#define DOOR_READ(btf, p, field) ((btf) ? (p)->field : BPF_CORE_READ(p, field))

/* The kernel's MKDEV(): 12 bits of major above 20 bits of minor. */
static __always_inline __u32 disk_dev(struct gendisk *disk, bool btf)
{
	return (DOOR_READ(btf, disk, major) << 20) | DOOR_READ(btf, disk, first_minor);
}

/* Before 5.17 a request named its disk itself (rq->rq_disk). */
struct request___pre517 {
	struct gendisk *rq_disk;
} __attribute__((preserve_access_index));

static __always_inline struct gendisk *rq_disk(struct request *rq, bool btf)
{
	struct request___pre517 *old = (void *)rq;
	struct request_queue *q;

	if (bpf_core_field_exists(old->rq_disk))
		return DOOR_READ(btf, old, rq_disk);
	q = DOOR_READ(btf, rq, q);
	return DOOR_READ(btf, q, disk);
}

static __always_inline bool bio_wanted(struct bio *bio, bool btf)
{
	struct block_device *bdev;

	if (!targ_dev)
		return true;
	bdev = DOOR_READ(btf, bio, bi_bdev);
	return disk_dev(DOOR_READ(btf, bdev, bd_disk), btf) == targ_dev;
}

static __always_inline bool rq_wanted(struct request *rq, bool btf)
{
	return !targ_dev || disk_dev(rq_disk(rq, btf), btf) == targ_dev;
}

#endif /* __TRACE_BPF_H */
