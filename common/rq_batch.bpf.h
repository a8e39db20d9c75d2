/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The requests a driver ends in one batch, for the function doors: the
 * stages' bio ends (bio_end.bpf.h) and stage 11 alike.
 */
#ifndef __RQ_BATCH_BPF_H
#define __RQ_BATCH_BPF_H

/*
 * Before 6.13 a batch's requests were a bare list head, not struct rq_list;
 * 6.12.25 backported rq_list, so Debian's 6.12 has it. The field decides.
 */
struct io_comp_batch___pre613 {
	struct request *req_list;
} __attribute__((preserve_access_index));

/* 6.13 and 6.12.25 on; named here, as the arm64 vmlinux.h (6.1's) has no rq_list. */
struct rq_list___613 {
	struct request *head;
} __attribute__((preserve_access_index));

struct io_comp_batch___613 {
	struct rq_list___613 req_list;
} __attribute__((preserve_access_index));

/* NVMe ends up to a whole completion queue in one batch. */
#define RQ_BATCH_MAX 1024

/*
 * A driver that ends requests in batches (NVMe, 5.16+) calls
 * blk_mq_end_request_batch(iob) without blk_update_request():
 * block_rq_complete fires for each there, but the function doors must
 * walk the batch's list. rq_batch_walk() calls end(rq) for each request,
 * as a number: end is the stage's global function, checked once. True
 * when the walk was cut at RQ_BATCH_MAX.
 */
static __always_inline bool rq_batch_walk(struct io_comp_batch *iob, int (*end)(u64 rq))
{
	struct io_comp_batch___pre613 *old = (void *)iob;
	struct io_comp_batch___613 *new = (void *)iob;
	u64 rq;
	int i;

	if (bpf_core_field_exists(old->req_list))
		rq = (u64)BPF_CORE_READ(old, req_list);
	else
		rq = (u64)BPF_CORE_READ(new, req_list.head);
	for (i = 0; i < RQ_BATCH_MAX && rq; i++) {
		end(rq);
		rq = (u64)BPF_CORE_READ((struct request *)rq, rq_next);
	}
	return rq;
}

#endif /* __RQ_BATCH_BPF_H */
