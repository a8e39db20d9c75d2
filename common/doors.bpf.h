/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The three doors into each probe point. A stage writes one handler per
 * probe point and names it here; these macros generate the thin entry
 * programs for every door (kprobe, fentry, tracepoint as tp_btf and
 * raw_tp). The loader (doors.c) keeps the programs of the chosen door and
 * switches the others off before load. Program names follow
 * <door>__<probe point>, which is how the loader finds them.
 */
#ifndef __DOORS_BPF_H
#define __DOORS_BPF_H

#include "trace.bpf.h"

/* A loop request can merge hundreds of bios (max_sectors_kb 1280 = 320 pages). */
#define BIO_WALK_MAX 512

/*
 * One function argument, same argument in the tracepoint door. The
 * filter is called as filter(arg, btf) (see DOOR_READ in trace.bpf.h).
 */
#define DOOR_FUNC1(point, type, filter, handler)				\
SEC("kprobe")								\
int BPF_KPROBE(kprobe__##point, type arg)				\
{									\
	return filter(arg, false) ? handler(ctx, arg) : 0;		\
}									\
SEC("fentry")								\
int BPF_PROG(fentry__##point, type arg)					\
{									\
	return filter(arg, true) ? handler(ctx, arg) : 0;		\
}

/* filter and handler are expressions; they may use the constant btf. */
#define DOOR_TP(point, filter, handler, args...)				\
SEC("tp_btf")								\
int BPF_PROG(tp_btf__##point, args)					\
{									\
	const bool btf __attribute__((unused)) = true;			\
	return filter ? handler : 0;					\
}									\
SEC("raw_tp")								\
int BPF_PROG(raw_tp__##point, args)					\
{									\
	const bool btf __attribute__((unused)) = false;			\
	return filter ? handler : 0;					\
}

/*
 * Two kernel callbacks tell the odd cases of a completion apart (below).
 * libbpf writes their addresses here from /proc/kallsyms before load;
 * __weak leaves 0 on a kernel without one, and then no case is special.
 */
extern const void bio_chain_endio __ksym __weak;
extern const void mq_flush_data_end_io __ksym __weak;

/*
 * A part cut off a bio by bio_split() (a bio larger than the disk takes,
 * max_sectors_kb): a clone chained to the rest (bi_end_io is
 * bio_chain_endio), sent on without block_bio_queue. It is not a bio of
 * its own: its end counts toward the bio it was cut from, which ends with
 * its own last part. A few callers submit such parts with submit_bio()
 * (the XFS log, dm-cache): they are skipped at submit too. Bios chained
 * by a caller (a large discard) are submitted one by one and are no
 * clones.
 */
static __always_inline bool bio_split_part(struct bio *bio, bool btf)
{
	if (!&bio_chain_endio ||
	    DOOR_READ(btf, bio, bi_end_io) != (void *)&bio_chain_endio)
		return false;
	return DOOR_READ(btf, bio, bi_flags) & bio_cloned_flag;
}

/*
 * A write with PREFLUSH or FUA on a disk with a volatile write cache and
 * no FUA (a loop device; many SATA and virtio disks) goes through the
 * flush state machine (block/blk-flush.c): the request is ended once for
 * its data step, with rq->end_io = mq_flush_data_end_io and its bios
 * advanced but not ended, then again when the flushes after it are done,
 * with rq->bio put back. Only that last end is the request's (and its
 * bio's) end. The flush request itself (REQ_OP_FLUSH) ends once.
 */
static __always_inline bool rq_flush_data_step(struct request *rq, bool btf)
{
	return &mq_flush_data_end_io &&
	       DOOR_READ(btf, rq, end_io) == (void *)&mq_flush_data_end_io;
}

/*
 * submit_bio(bio): kprobe/fentry on submit_bio(), tracepoint door
 * block_bio_queue (fired in submit_bio_noacct_nocheck(), after the
 * partition remap). Parts of a split bio are no bios of their own.
 */
#define BIO_SUBMIT_DOORS(handler)					\
static __always_inline int handler##_count(void *ctx, struct bio *bio,	\
					   bool btf)			\
{									\
	if (!bio_wanted(bio, btf) || bio_split_part(bio, btf))		\
		return 0;						\
	stat_inc(STAT_SUBMIT);						\
	return handler(ctx, bio);					\
}									\
SEC("kprobe")								\
int BPF_KPROBE(kprobe__submit_bio, struct bio *bio)			\
{									\
	return handler##_count(ctx, bio, false);			\
}									\
SEC("fentry")								\
int BPF_PROG(fentry__submit_bio, struct bio *bio)			\
{									\
	return handler##_count(ctx, bio, true);				\
}									\
DOOR_TP(submit_bio, true, handler##_count(ctx, bio, btf), struct bio *bio)

/*
 * bio_endio(bio): kprobe/fentry on bio_endio(). There is no single
 * tracepoint: request-based drivers (loop, virtio, nvme) end their bios
 * from blk_update_request(), which fires block_rq_complete and clears the
 * bio's trace flag, so block_bio_complete never fires for them. The
 * tracepoint door therefore walks rq->bio at block_rq_complete (only the
 * bios that nr_bytes finishes) and also takes block_bio_complete, which
 * fires for bio-based drivers (zram, dm, md). Completion handlers get no
 * ctx (NULL): they run from the walk, one bio at a time. Parts of a split
 * bio are counted apart (STAT_SPLIT_PART), not as bios.
 */
#define BIO_DONE_DOORS(handler)						\
static __always_inline int handler##_count(void *ctx, struct bio *bio,	\
					   bool btf)			\
{									\
	if (bio_split_part(bio, btf)) {					\
		stat_inc(STAT_SPLIT_PART);				\
		return 0;						\
	}								\
	stat_inc(STAT_DONE);						\
	return handler(ctx, bio);					\
}									\
/* A global function is verified once, not once per loop iteration. */	\
__noinline int handler##_one(u64 bio)					\
{									\
	return handler##_count(NULL, (struct bio *)bio, false);		\
}									\
/*									\
 * The first bio inline (most requests hold one; fentry/tp_btf read it	\
 * with plain loads), the merged ones after it one global call each: an	\
 * inlined handler in the 512-round loop makes the verifier walk every	\
 * round, which takes seconds on a slow CPU. Their pointers are read	\
 * with the helper, as numbers: a global function takes no BTF pointer.	\
 */									\
static __always_inline int handler##_walk(struct request *rq,		\
					  unsigned int nr_bytes, bool btf) \
{									\
	struct bio *bio;						\
	__u64 next;							\
	__u32 size;							\
	int i;								\
									\
	if (rq_flush_data_step(rq, btf))	/* its bios end later */	\
		return 0;						\
	bio = DOOR_READ(btf, rq, bio);					\
	if (!bio)							\
		return 0;						\
	size = DOOR_READ(btf, bio, bi_iter.bi_size);			\
	if (size > nr_bytes)	/* partly done: ends later */		\
		return 0;						\
	nr_bytes -= size;						\
	handler##_count(NULL, bio, btf);				\
	if (!DOOR_READ(btf, bio, bi_next))				\
		return 0;						\
	next = (__u64)BPF_CORE_READ(bio, bi_next);			\
	for (i = 1; i < BIO_WALK_MAX && next; i++) {			\
		size = BPF_CORE_READ((struct bio *)next, bi_iter.bi_size); \
		if (size > nr_bytes)					\
			return 0;					\
		nr_bytes -= size;					\
		handler##_one(next);					\
		next = (__u64)BPF_CORE_READ((struct bio *)next, bi_next); \
	}								\
	if (next)							\
		stat_inc(STAT_WALK_CUT);				\
	return 0;							\
}									\
SEC("kprobe")								\
int BPF_KPROBE(kprobe__bio_endio, struct bio *bio)			\
{									\
	return bio_wanted(bio, false) ? handler##_count(ctx, bio, false) : 0; \
}									\
SEC("fentry")								\
int BPF_PROG(fentry__bio_endio, struct bio *bio)			\
{									\
	return bio_wanted(bio, true) ? handler##_count(ctx, bio, true) : 0; \
}									\
DOOR_TP(bio_endio_rq, rq_wanted(rq, btf), handler##_walk(rq, nr_bytes, btf), \
	struct request *rq, blk_status_t error, unsigned int nr_bytes)	\
DOOR_TP(bio_endio_bio, bio_wanted(bio, btf), handler##_count(ctx, bio, btf), \
	struct request_queue *q, struct bio *bio)

/*
 * blk_mq_start_request(rq): the driver takes the request. Tracepoint door
 * block_rq_issue, fired inside blk_mq_start_request() (since 5.11 its only
 * argument is the request).
 */
#define RQ_START_DOORS(handler)						\
static __always_inline int handler##_count(void *ctx, struct request *rq) \
{									\
	stat_inc(STAT_RQ_START);					\
	return handler(ctx, rq);					\
}									\
DOOR_FUNC1(rq_start, struct request *, rq_wanted, handler##_count)	\
DOOR_TP(rq_start, rq_wanted(rq, btf), handler##_count(ctx, rq),	\
	struct request *rq)

/*
 * Requests the flush machinery ends without a driver ever starting them
 * (an empty flush on a queue without a write cache) are still MQ_RQ_IDLE
 * when they end: no start, so no latency and no "lost" start either.
 */
static __always_inline bool rq_started(struct request *rq)
{
	return BPF_CORE_READ(rq, state) != MQ_RQ_IDLE;
}

/*
 * The end of a started request, once: blk_update_request(rq, error,
 * nr_bytes), or block_rq_complete, which fires at its top (and in
 * blk_mq_end_request_batch()). Both come for every piece of a partial
 * completion too: only the one whose nr_bytes covers what is left
 * (rq->__data_len, lowered after) ends the request. A write in a flush
 * sequence ends twice: its data step is not its end. A driver that ends
 * requests in batches (NVMe) does so in blk_mq_end_request_batch() (5.16+),
 * without blk_update_request(): block_rq_complete fires for each there,
 * and the function doors walk the batch's list (point rq_done_batch).
 */
/* Before 6.13 a batch's requests were a bare list head, not struct rq_list. */
struct io_comp_batch___pre613 {
	struct request *req_list;
} __attribute__((preserve_access_index));

/* NVMe ends up to a whole completion queue in one batch. */
#define RQ_BATCH_MAX 1024

#define RQ_DONE_DOORS(handler)						\
static __always_inline int handler##_end(void *ctx, struct request *rq,	\
					 unsigned int nr_bytes, bool btf) \
{									\
	if (!rq_wanted(rq, btf) || nr_bytes < DOOR_READ(btf, rq, __data_len) || \
	    !rq_started(rq) || rq_flush_data_step(rq, btf))		\
		return 0;						\
	stat_inc(STAT_RQ_DONE);						\
	return handler(ctx, rq);					\
}									\
SEC("kprobe")								\
int BPF_KPROBE(kprobe__rq_done, struct request *rq, blk_status_t error,	\
	       unsigned int nr_bytes)					\
{									\
	return handler##_end(ctx, rq, nr_bytes, false);			\
}									\
SEC("fentry")								\
int BPF_PROG(fentry__rq_done, struct request *rq, blk_status_t error,	\
	     unsigned int nr_bytes)					\
{									\
	return handler##_end(ctx, rq, nr_bytes, true);			\
}									\
DOOR_TP(rq_done, true, handler##_end(ctx, rq, nr_bytes, btf),		\
	struct request *rq, blk_status_t error, unsigned int nr_bytes)	\
/* One request of a batch: a global function, verified once. */	\
__noinline int handler##_batch_one(u64 rq)				\
{									\
	return handler##_end(NULL, (struct request *)rq, ~0U, false);	\
}									\
static __always_inline int handler##_batch(struct io_comp_batch *iob)	\
{									\
	struct io_comp_batch___pre613 *old = (void *)iob;		\
	__u64 rq;							\
	int i;								\
									\
	if (bpf_core_field_exists(old->req_list))			\
		rq = (__u64)BPF_CORE_READ(old, req_list);		\
	else								\
		rq = (__u64)BPF_CORE_READ(iob, req_list.head);		\
	for (i = 0; i < RQ_BATCH_MAX && rq; i++) {			\
		handler##_batch_one(rq);				\
		rq = (__u64)BPF_CORE_READ((struct request *)rq, rq_next); \
	}								\
	if (rq)								\
		stat_inc(STAT_WALK_CUT);				\
	return 0;							\
}									\
SEC("kprobe")								\
int BPF_KPROBE(kprobe__rq_done_batch, struct io_comp_batch *iob)	\
{									\
	return handler##_batch(iob);					\
}									\
SEC("fentry")								\
int BPF_PROG(fentry__rq_done_batch, struct io_comp_batch *iob)		\
{									\
	return handler##_batch(iob);					\
}

/*
 * Page-cache points (stages 08-09). -d keeps files whose filesystem sits
 * on the disk; block-device files and filesystems without a disk (tmpfs,
 * proc) have no sb->s_bdev and are left out when -d is given.
 */
static __always_inline bool mapping_wanted(struct address_space *mapping)
{
	struct block_device *bdev;

	if (!targ_dev)
		return true;
	bdev = BPF_CORE_READ(mapping, host, i_sb, s_bdev);
	return bdev && disk_dev(BPF_CORE_READ(bdev, bd_disk), false) == targ_dev;
}

/* 6.1 named a large folio's page count _folio_nr_pages; 6.18 _nr_pages. */
struct folio___61 {
	unsigned int _folio_nr_pages;
} __attribute__((preserve_access_index));

/* Before 6.18 folio->flags was a plain unsigned long, not memdesc_flags_t. */
struct folio___pre618 {
	unsigned long flags;
} __attribute__((preserve_access_index));

static __always_inline __u32 folio_pages(struct folio *folio)
{
	struct folio___61 *old = (void *)folio;
	struct folio___pre618 *pre618 = (void *)folio;
	unsigned long flags = 0;

	/* Only a large folio (PG_head) has a tail page holding the count. */
	if (bpf_core_field_exists(pre618->flags))
		bpf_core_read(&flags, sizeof(flags), &pre618->flags);
	else
		bpf_core_read(&flags, sizeof(flags), &folio->flags);
	if (!(flags & (1UL << bpf_core_enum_value(enum pageflags, PG_head))))
		return 1;
	if (bpf_core_field_exists(folio->_nr_pages))
		return BPF_CORE_READ(folio, _nr_pages);
	if (bpf_core_field_exists(old->_folio_nr_pages))
		return BPF_CORE_READ(old, _folio_nr_pages);
	return 1;
}

/*
 * A folio enters the page cache: handler(ctx, mapping, index, pages).
 * kprobe/fentry at the entry of __filemap_add_folio(mapping, folio,
 * index, ...), which every add goes through (readahead, read, write,
 * fault); tracepoint mm_filemap_add_to_page_cache(folio) at its end.
 */
#define PAGECACHE_ADD_DOORS(handler)					\
static __always_inline int handler##_count(void *ctx,			\
		struct address_space *mapping, struct folio *folio,	\
		unsigned long index)					\
{									\
	if (!mapping_wanted(mapping))					\
		return 0;						\
	stat_inc(STAT_ADD);						\
	return handler(ctx, mapping, index, folio_pages(folio));	\
}									\
SEC("kprobe")								\
int BPF_KPROBE(kprobe__filemap_add_folio, struct address_space *mapping, \
	       struct folio *folio, unsigned long index)		\
{									\
	return handler##_count(ctx, mapping, folio, index);		\
}									\
SEC("fentry")								\
int BPF_PROG(fentry__filemap_add_folio, struct address_space *mapping,	\
	     struct folio *folio, unsigned long index)			\
{									\
	return handler##_count(ctx, mapping, folio, index);		\
}									\
DOOR_TP(filemap_add_folio, true,					\
	handler##_count(ctx, BPF_CORE_READ(folio, mapping), folio,	\
			BPF_CORE_READ(folio, index)),			\
	struct folio *folio)

#define PAGECACHE_PAGE_SHIFT 12	/* 4 KiB pages (x86-64, most arm64) */

/* kprobe door: the arguments of filemap_get_pages(), kept for its return. */
struct pc_lookup_args {
	struct kiocb *iocb;
	struct folio_batch *fbatch;
};

/*
 * The read path's lookup, filemap_get_pages(iocb, .., fbatch, ..): on
 * success (0) fbatch holds the folios the read copies next. handler(ctx,
 * mapping, first, last, exact): pages first..last of the file. Function
 * doors read them from fbatch at the return (exact); the tracepoint
 * mm_filemap_get_pages gives the range the read asked for, of which the
 * batch may hold only the start: a next call of the same read then asks
 * again for the rest (exact = false; the stage sorts that out).
 */
#define PAGECACHE_LOOKUP_DOORS(handler)					\
struct {								\
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);			\
	__uint(map_flags, BPF_F_NO_PREALLOC);				\
	__type(key, int);						\
	__type(value, struct pc_lookup_args);				\
} pc_lookup_args SEC(".maps");						\
static __always_inline int handler##_count(void *ctx,			\
		struct address_space *mapping, unsigned long first,	\
		unsigned long last, bool exact)				\
{									\
	if (!mapping_wanted(mapping))					\
		return 0;						\
	stat_inc(STAT_LOOKUP);						\
	return handler(ctx, mapping, first, last, exact);		\
}									\
static __always_inline int handler##_batch(void *ctx,			\
		struct kiocb *iocb, struct folio_batch *fbatch)		\
{									\
	unsigned int nr = BPF_CORE_READ(fbatch, nr);			\
	struct folio *folio = NULL;					\
	unsigned long first;						\
									\
	if (nr < 1 || nr > 64)						\
		return 0;						\
	bpf_core_read(&folio, sizeof(folio), &fbatch->folios[nr - 1]);	\
	if (!folio)							\
		return 0;						\
	first = BPF_CORE_READ(iocb, ki_pos) >> PAGECACHE_PAGE_SHIFT;	\
	return handler##_count(ctx, BPF_CORE_READ(iocb, ki_filp, f_mapping), \
			first, BPF_CORE_READ(folio, index) +		\
			folio_pages(folio) - 1, true);			\
}									\
SEC("kprobe")								\
int BPF_KPROBE(kentry__filemap_get_pages, struct kiocb *iocb, void *arg2, \
	       struct folio_batch *fbatch)				\
{									\
	struct pc_lookup_args *a;						\
									\
	a = bpf_task_storage_get(&pc_lookup_args, bpf_get_current_task_btf(), \
				 NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);	\
	if (!a) {							\
		stat_inc(STAT_TASK_STORE);				\
		return 0;						\
	}								\
	a->iocb = iocb;							\
	a->fbatch = fbatch;						\
	return 0;							\
}									\
SEC("kretprobe")							\
int BPF_KRETPROBE(kprobe__filemap_get_pages, int ret)			\
{									\
	struct pc_lookup_args *a;						\
	struct pc_lookup_args args;					\
									\
	a = bpf_task_storage_get(&pc_lookup_args, bpf_get_current_task_btf(), \
				 NULL, 0);				\
	if (!a || !a->iocb)						\
		return 0;						\
	args = *a;							\
	a->iocb = NULL;							\
	return ret ? 0 : handler##_batch(ctx, args.iocb, args.fbatch);	\
}									\
/* fexit: the third argument is fbatch on 6.1 and 6.18 alike; the	\
 * return value sits after a count of arguments that changed (6.5). */	\
SEC("fexit")								\
int BPF_PROG(fentry__filemap_get_pages, struct kiocb *iocb, void *arg2,	\
	     struct folio_batch *fbatch)				\
{									\
	__u64 ret = 0;							\
									\
	bpf_get_func_ret(ctx, &ret);					\
	return (int)ret ? 0 : handler##_batch(ctx, iocb, fbatch);	\
}									\
DOOR_TP(filemap_get_pages, true,					\
	handler##_count(ctx, mapping, index, last_index, false),	\
	struct address_space *mapping, unsigned long index,		\
	unsigned long last_index)

#endif /* __DOORS_BPF_H */
