/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Page-cache helpers of stages 08, 09 and 11: a file's disk, a folio's
 * pages, a page's folio.
 */
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

/*
 * A tail page of a large folio leads to the folio (its head page) by a
 * word whose bit 0 says "tail": compound_head, a pointer to the head
 * plus 1; in newer kernels (the VM's 7.2) compound_info, which where the
 * kernel optimizes HugeTLB's vmemmap holds instead a mask for the page's
 * own address, plus 1. A mask is high ones over low zeros; a pointer
 * never is.
 */
struct page___compound_head {
	unsigned long compound_head;
} __attribute__((preserve_access_index));

struct page___compound_info {
	unsigned long compound_info;
} __attribute__((preserve_access_index));

/* The folio of a page: the page itself, or its head. */
static __always_inline __u64 page_folio_addr(__u64 page)
{
	struct page___compound_info *ci = (void *)page;
	struct page___compound_head *ch = (void *)page;
	unsigned long info = 0, m;

	if (bpf_core_field_exists(ci->compound_info))
		bpf_core_read(&info, sizeof(info), &ci->compound_info);
	else
		bpf_core_read(&info, sizeof(info), &ch->compound_head);
	if (!(info & 1))
		return page;
	m = info - 1;
	if (!(~m & (~m + 1)))	/* ~m is 2^k - 1: a mask */
		return page & m;
	return m;
}

#endif /* __PAGECACHE_BPF_H */
