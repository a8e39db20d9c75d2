/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A request's flush data step, which is not its end. For the stages'
 * bio ends (bio_end.bpf.h), stage 11 and iofollow alike.
 */
#ifndef __FLUSH_STEP_BPF_H
#define __FLUSH_STEP_BPF_H

/* blk-flush.c's callback; libbpf writes its address from /proc/kallsyms. */
extern const void mq_flush_data_end_io __ksym __weak;

/*
 * A write with PREFLUSH or FUA on a disk with a volatile write cache and
 * no FUA (a loop device; many SATA and virtio disks) goes through the
 * flush state machine (block/blk-flush.c). Its request is ended once for
 * its data step, with rq->end_io = mq_flush_data_end_io and its bios
 * advanced but not ended, then again when the flushes after it are done,
 * with rq->bio put back. Only that last end is the request's (and its
 * bios'). The flush request itself (REQ_OP_FLUSH) ends once.
 */
static __always_inline bool rq_flush_data_step(struct request *rq)
{
	return &mq_flush_data_end_io && rq->end_io == (void *)&mq_flush_data_end_io;
}

static __always_inline bool rq_flush_data_step_core(struct request *rq)
{
	return &mq_flush_data_end_io &&
	       BPF_CORE_READ(rq, end_io) == (void *)&mq_flush_data_end_io;
}

#endif /* __FLUSH_STEP_BPF_H */
