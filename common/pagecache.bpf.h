/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Page-cache helpers of stages 08-09: a file's disk, a folio's pages. */
#ifndef __PAGECACHE_BPF_H
#define __PAGECACHE_BPF_H

#include "disk.bpf.h"

/*
 * The disk under a file, as the dev_t -d gives. Block-device files and
 * filesystems without a disk (tmpfs, proc) have no sb->s_bdev: 0.
 */
static __always_inline __u32 mapping_dev(struct address_space *mapping)
{
	struct block_device *bdev = BPF_CORE_READ(mapping, host, i_sb, s_bdev);
	struct gendisk *disk;

	if (!bdev)
		return 0;
	disk = BPF_CORE_READ(bdev, bd_disk);
	return DISK_MKDEV(BPF_CORE_READ(disk, major), BPF_CORE_READ(disk, first_minor));
}

/* 6.1 named a large folio's page count _folio_nr_pages; 6.18 _nr_pages. */
struct folio___61 {
	unsigned int _folio_nr_pages;
} __attribute__((preserve_access_index));

/*
 * Since 6.18 folio->flags is memdesc_flags_t, a struct around the word.
 * Both layouts are named here, not taken from vmlinux.h: the arm64 one
 * is 6.1's, the x86 one 6.18's, and a program built on either must load
 * on both kinds of kernel.
 */
struct memdesc_flags___618 {
	unsigned long f;
} __attribute__((preserve_access_index));

struct folio___618 {
	struct memdesc_flags___618 flags;
	unsigned int _nr_pages;
} __attribute__((preserve_access_index));

struct folio___pre618 {
	unsigned long flags;
} __attribute__((preserve_access_index));

/* The pages of a folio: 1, or for a large folio (PG_head) its count. */
static __always_inline __u32 folio_pages(struct folio *folio)
{
	struct folio___61 *old = (void *)folio;
	struct folio___618 *new = (void *)folio;
	struct folio___pre618 *pre618 = (void *)folio;
	unsigned long flags = 0;

	if (bpf_core_field_exists(pre618->flags))
		bpf_core_read(&flags, sizeof(flags), &pre618->flags);
	else
		bpf_core_read(&flags, sizeof(flags), &new->flags.f);
	if (!(flags & (1UL << bpf_core_enum_value(enum pageflags, PG_head))))
		return 1;
	if (bpf_core_field_exists(new->_nr_pages))
		return BPF_CORE_READ(new, _nr_pages);
	if (bpf_core_field_exists(old->_folio_nr_pages))
		return BPF_CORE_READ(old, _folio_nr_pages);
	return 1;
}

#endif /* __PAGECACHE_BPF_H */
