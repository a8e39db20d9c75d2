/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * When a bio or a request really ends. Most completions are plain; these
 * helpers tell the odd ones apart, so that every bio and request is
 * counted once, whatever path it takes:
 *   bio_split_part()      a piece bio_split() cut off: not a bio of its own
 *   rq_flush_data_step()  a write's first end in a flush sequence: not its end
 *                         (flush_step.bpf.h)
 *   rq_end_bios()         the tracepoint door's walk of rq->bio
 *   rq_ends()             a request's end, once
 *   rq_batch_end()        the requests a driver ends in one batch (NVMe,
 *                         rq_batch.bpf.h)
 * As in disk.bpf.h, a _core variant reads with BPF_CORE_READ() for kprobe
 * programs; the plain one is for fentry and tp_btf programs.
 */
#ifndef __BIO_END_BPF_H
#define __BIO_END_BPF_H

#include "trace.bpf.h"
#include "bio_covered.h"
#include "flush_step.bpf.h"
#include "rq_batch.bpf.h"

/*
 * BIO_CLONED, a bit of bio->bi_flags, sits in an enum without a name,
 * which CO-RE cannot relocate: bit 1 on 6.1, 6.12 and 6.18, bit 2 on 6.4.
 * Each stage's user side writes the running kernel's mask here before
 * load: skel->rodata->bio_cloned_flag = t.doors.bio_cloned.
 */
const volatile __u32 bio_cloned_flag = 1U << 1;

/*
 * The kernel's callbacks that mark the odd cases. libbpf writes their
 * addresses from /proc/kallsyms before load; __weak leaves 0 on a kernel
 * without one, and then no case is odd.
 */
extern const void bio_chain_endio __ksym __weak;

/*
 * A bio larger than the disk takes (max_sectors_kb) is cut by bio_split():
 * the front parts are clones chained to the rest (bi_end_io is
 * bio_chain_endio), sent on without block_bio_queue or submit_bio(). Their
 * ends count toward the bio they were cut from, which ends with its own
 * last part. A few callers do submit such parts (the XFS log, dm-cache),
 * so they are skipped at submit too. Bios a caller chains itself (a large
 * discard) are each submitted, and are no clones.
 */
static __always_inline bool bio_split_part(struct bio *bio)
{
	return &bio_chain_endio && bio->bi_end_io == (void *)&bio_chain_endio &&
	       (bio->bi_flags & bio_cloned_flag);
}

static __always_inline bool bio_split_part_core(struct bio *bio)
{
	return &bio_chain_endio &&
	       BPF_CORE_READ(bio, bi_end_io) == (void *)&bio_chain_endio &&
	       (BPF_CORE_READ(bio, bi_flags) & bio_cloned_flag);
}

/* A loop request can merge hundreds of bios (max_sectors_kb 1280 = 320 pages). */
#define BIO_WALK_MAX 512

/*
 * The tracepoint door's bio ends (tp_btf/block_rq_complete). There is no
 * tracepoint in bio_endio(): a request-based disk (loop, virtio, nvme)
 * ends its bios from blk_update_request(rq, error, nr_bytes), which fires
 * block_rq_complete and clears the bios' trace flag, so
 * block_bio_complete never fires for them. The bios it ends are those at
 * the head of rq->bio whose bytes nr_bytes covers; a bio only partly done
 * ends in a later call. A part of a split bio is counted, not ended.
 *
 * Most requests hold one bio: rq_end_bios() ends it with end(bio), the
 * stage's inline handler, reading with plain loads. Bios merged behind it
 * go to end_merged(bio), the stage's global (not static) function, with
 * the bio's address as a number: the verifier checks a global function
 * once, not once per round of this loop, but it takes no BTF pointer, so
 * the loop reads with BPF_CORE_READ().
 */
static __always_inline void rq_end_bios(struct request *rq, unsigned int nr_bytes,
					int (*end)(struct bio *bio),
					int (*end_merged)(u64 bio))
{
	struct bio *first = rq->bio;
	__s64 left = nr_bytes;
	u64 bio;
	int i;

	if (!first || rq_flush_data_step(rq))	/* a data step: its bios end later */
		return;
	if (!bio_covered(first->bi_iter.bi_size, &left))	/* partly done: it ends later */
		return;
	if (bio_split_part(first))
		stat_inc(STAT_SPLIT_PART);
	else
		end(first);
	if (!first->bi_next)
		return;
	bio = (u64)BPF_CORE_READ(first, bi_next);
	for (i = 1; i < BIO_WALK_MAX && bio; i++) {
		if (!bio_covered(BPF_CORE_READ((struct bio *)bio, bi_iter.bi_size), &left))
			return;
		if (bio_split_part_core((struct bio *)bio))
			stat_inc(STAT_SPLIT_PART);
		else
			end_merged(bio);
		bio = (u64)BPF_CORE_READ((struct bio *)bio, bi_next);
	}
	if (bio)
		stat_inc(STAT_WALK_CUT);
}

/*
 * The end of a started request, once. blk_update_request(rq, error,
 * nr_bytes) and block_rq_complete (which fires at its top) come for
 * every piece of a partial completion: only the one whose nr_bytes
 * covers what is left (rq->__data_len, lowered after) ends the request.
 * A request the flush machinery ends without a driver ever starting it
 * (an empty flush) is still MQ_RQ_IDLE: no start, so no end either. And
 * a write's flush data step is not its end.
 */
static __always_inline bool rq_ends(struct request *rq, unsigned int nr_bytes)
{
	return nr_bytes >= rq->__data_len && rq->state != MQ_RQ_IDLE &&
	       !rq_flush_data_step(rq);
}

static __always_inline bool rq_ends_core(struct request *rq, unsigned int nr_bytes)
{
	return nr_bytes >= BPF_CORE_READ(rq, __data_len) &&
	       BPF_CORE_READ(rq, state) != MQ_RQ_IDLE && !rq_flush_data_step_core(rq);
}

/*
 * The requests of a batch (NVMe), each passed to end(rq): see
 * rq_batch.bpf.h. A walk cut at its bound is counted.
 */
static __always_inline void rq_batch_end(struct io_comp_batch *iob, int (*end)(u64 rq))
{
	if (rq_batch_walk(iob, end))
		stat_inc(STAT_WALK_CUT);
}

#endif /* __BIO_END_BPF_H */
