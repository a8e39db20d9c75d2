/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A bio's pages, walked from its iterator as bio_for_each_segment()
 * does, for stage 11 and tools/iofollow: the folio of each step, and
 * the bytes of the bio before it (its sector's offset). One step is a
 * page, or the rest of a large folio at once.
 */
#ifndef __BIO_PAGES_BPF_H
#define __BIO_PAGES_BPF_H

#include "pagecache.bpf.h"

struct bio_pages {
	struct bio_vec *vecs;
	__u64 off;		/* bytes of the bio walked */
	__u64 left;		/* bytes still to walk */
	__u32 idx;		/* bio_vec index */
	__u32 bvec_done;	/* bytes of that bio_vec walked, as bi_bvec_done */
	__u32 page_shift;
};

/* Where a walk of bio starts: the rest of the bio its iterator has left. */
static __always_inline void bio_pages_init(struct bio_pages *p, struct bio *bio,
					   __u32 page_shift)
{
	p->vecs = BPF_CORE_READ(bio, bi_io_vec);
	p->off = 0;
	p->left = BPF_CORE_READ(bio, bi_iter.bi_size);
	p->idx = BPF_CORE_READ(bio, bi_iter.bi_idx);
	p->bvec_done = BPF_CORE_READ(bio, bi_iter.bi_bvec_done);
	p->page_shift = page_shift;
}

/*
 * One step: the folio at p->off, with its page in *page; then p->off
 * moves past it. 0 once the bio is walked (or a bio_vec is unreadable).
 */
static __always_inline __u64 bio_pages_next(struct bio_pages *p, __u64 *page)
{
	__u64 page_size = 1ULL << p->page_shift, psz = bpf_core_type_size(struct page);
	__u64 folio, pg;
	__u32 pos, in_page, chunk;
	struct bio_vec bv;

	if (!p->left)
		return 0;
	if (bpf_probe_read_kernel(&bv, sizeof(bv), &p->vecs[p->idx]) || !bv.bv_len)
		return 0;
	/* a bio_vec may span pages: their struct pages lie one after another */
	pos = bv.bv_offset + p->bvec_done;
	pg = (__u64)bv.bv_page + (pos >> p->page_shift) * psz;
	folio = page_folio_addr(pg);
	chunk = bv.bv_len - p->bvec_done;
	if (chunk > p->left)
		chunk = p->left;
	/*
	 * To the chunk's end when its last page is of this folio (a large
	 * folio's pages lie between its first and last), else to the page's.
	 */
	in_page = page_size - (pos & (page_size - 1));
	if (chunk > in_page &&
	    page_folio_addr((__u64)bv.bv_page + ((pos + chunk - 1) >> p->page_shift) * psz) != folio)
		chunk = in_page;
	p->off += chunk;
	p->left -= chunk;
	p->bvec_done += chunk;
	if (p->bvec_done >= bv.bv_len) {
		p->idx++;
		p->bvec_done = 0;
	}
	*page = pg;
	return folio;
}

#endif /* __BIO_PAGES_BPF_H */
