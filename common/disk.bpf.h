/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Which disk a bio or a request is for, as the dev_t the user side gives
 * with -d. Each comes twice:
 *   bio_dev(), rq_dev(): for fentry and tp_btf programs, whose pointers
 *     have a BTF type. A field is one plain load; the verifier checks it.
 *   bio_dev_core(), rq_dev_core(): for kprobe programs, whose pointers
 *     are plain numbers. Each field is read with BPF_CORE_READ(), a call
 *     of bpf_probe_read_kernel() (about 30 ns each here, docs/overhead.md).
 */
#ifndef __DISK_BPF_H
#define __DISK_BPF_H

/* The kernel's MKDEV(): 12 bits of major above 20 bits of minor. */
#define DISK_MKDEV(major, minor) (((__u32)(major) << 20) | (__u32)(minor))

/* Before 5.12 a bio named its disk itself (bio->bi_disk, with bi_partno). */
struct bio___pre512 {
	struct gendisk *bi_disk;
} __attribute__((preserve_access_index));

static __always_inline __u32 bio_dev(struct bio *bio)
{
	struct bio___pre512 *old = (void *)bio;
	struct gendisk *disk;

	if (bpf_core_field_exists(old->bi_disk))
		disk = old->bi_disk;
	else
		disk = bio->bi_bdev->bd_disk;
	return DISK_MKDEV(disk->major, disk->first_minor);
}

static __always_inline __u32 bio_dev_core(struct bio *bio)
{
	struct bio___pre512 *old = (void *)bio;
	struct gendisk *disk;

	if (bpf_core_field_exists(old->bi_disk))
		disk = BPF_CORE_READ(old, bi_disk);
	else
		disk = BPF_CORE_READ(bio, bi_bdev, bd_disk);
	return DISK_MKDEV(BPF_CORE_READ(disk, major), BPF_CORE_READ(disk, first_minor));
}

/* Before 5.17 a request named its disk itself (rq->rq_disk). */
struct request___pre517 {
	struct gendisk *rq_disk;
} __attribute__((preserve_access_index));

static __always_inline __u32 rq_dev(struct request *rq)
{
	struct request___pre517 *old = (void *)rq;
	struct gendisk *disk;

	if (bpf_core_field_exists(old->rq_disk))
		disk = old->rq_disk;
	else
		disk = rq->q->disk;
	return DISK_MKDEV(disk->major, disk->first_minor);
}

static __always_inline __u32 rq_dev_core(struct request *rq)
{
	struct request___pre517 *old = (void *)rq;
	struct gendisk *disk;

	if (bpf_core_field_exists(old->rq_disk))
		disk = BPF_CORE_READ(old, rq_disk);
	else
		disk = BPF_CORE_READ(rq, q, disk);
	return DISK_MKDEV(BPF_CORE_READ(disk, major), BPF_CORE_READ(disk, first_minor));
}

#endif /* __DISK_BPF_H */
