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

/* One function argument, same argument in the tracepoint door. */
#define DOOR_FUNC1(point, type, filter, handler)				\
SEC("kprobe")								\
int BPF_KPROBE(kprobe__##point, type arg)				\
{									\
	return filter(arg) ? handler(ctx, arg) : 0;			\
}									\
SEC("fentry")								\
int BPF_PROG(fentry__##point, type arg)					\
{									\
	return filter(arg) ? handler(ctx, arg) : 0;			\
}

#define DOOR_TP(point, filter, handler, args...)				\
SEC("tp_btf")								\
int BPF_PROG(tp_btf__##point, args)					\
{									\
	return filter ? handler : 0;					\
}									\
SEC("raw_tp")								\
int BPF_PROG(raw_tp__##point, args)					\
{									\
	return filter ? handler : 0;					\
}

/*
 * submit_bio(bio): kprobe/fentry on submit_bio(), tracepoint door
 * block_bio_queue (fired in submit_bio_noacct_nocheck(), after the
 * partition remap).
 */
#define BIO_SUBMIT_DOORS(handler)					\
static __always_inline int handler##_count(void *ctx, struct bio *bio)	\
{									\
	stat_inc(STAT_SUBMIT);						\
	return handler(ctx, bio);					\
}									\
DOOR_FUNC1(submit_bio, struct bio *, bio_wanted, handler##_count)	\
DOOR_TP(submit_bio, bio_wanted(bio), handler##_count(ctx, bio),		\
	struct bio *bio)

/*
 * bio_endio(bio): kprobe/fentry on bio_endio(). There is no single
 * tracepoint: request-based drivers (loop, virtio, nvme) end their bios
 * from blk_update_request(), which fires block_rq_complete and clears the
 * bio's trace flag, so block_bio_complete never fires for them. The
 * tracepoint door therefore walks rq->bio at block_rq_complete (only the
 * bios that nr_bytes finishes) and also takes block_bio_complete, which
 * fires for bio-based drivers (zram, dm, md). Completion handlers get no
 * ctx (NULL): they run from the walk, one bio at a time.
 */
#define BIO_DONE_DOORS(handler)						\
static __always_inline int handler##_count(void *ctx, struct bio *bio)	\
{									\
	stat_inc(STAT_DONE);						\
	return handler(ctx, bio);					\
}									\
/* A global function is verified once, not once per loop iteration. */	\
__noinline int handler##_one(u64 bio)					\
{									\
	return handler##_count(NULL, (struct bio *)bio);		\
}									\
static __always_inline int handler##_walk(struct request *rq,		\
					  unsigned int nr_bytes)	\
{									\
	struct bio *bio = BPF_CORE_READ(rq, bio);			\
	int i;								\
									\
	for (i = 0; i < BIO_WALK_MAX && bio; i++) {			\
		__u32 size = BPF_CORE_READ(bio, bi_iter.bi_size);	\
									\
		if (size > nr_bytes)	/* partly done: ends later */	\
			return 0;					\
		nr_bytes -= size;					\
		handler##_one((u64)bio);				\
		bio = BPF_CORE_READ(bio, bi_next);			\
	}								\
	if (bio)							\
		stat_inc(STAT_WALK_CUT);				\
	return 0;							\
}									\
DOOR_FUNC1(bio_endio, struct bio *, bio_wanted, handler##_count)	\
DOOR_TP(bio_endio_rq, rq_wanted(rq), handler##_walk(rq, nr_bytes),	\
	struct request *rq, blk_status_t error, unsigned int nr_bytes)	\
DOOR_TP(bio_endio_bio, bio_wanted(bio), handler##_count(ctx, bio),	\
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
DOOR_TP(rq_start, rq_wanted(rq), handler##_count(ctx, rq),		\
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
 * The end of a started request, once (points.c names the functions).
 * block_rq_complete fires for every blk_update_request() call, also for
 * a partial completion (nr_bytes below the bytes left, rq->__data_len,
 * which blk_update_request() lowers after the event): only the one that
 * covers the rest ends the request.
 */
#define RQ_DONE_DOORS(handler)						\
static __always_inline int handler##_end(void *ctx, struct request *rq)	\
{									\
	if (!rq_started(rq))						\
		return 0;						\
	stat_inc(STAT_RQ_DONE);						\
	return handler(ctx, rq);					\
}									\
DOOR_FUNC1(rq_done, struct request *, rq_wanted, handler##_end)		\
DOOR_TP(rq_done, rq_wanted(rq) && nr_bytes >= BPF_CORE_READ(rq, __data_len), \
	handler##_end(ctx, rq),						\
	struct request *rq, blk_status_t error, unsigned int nr_bytes)

#endif /* __DOORS_BPF_H */
