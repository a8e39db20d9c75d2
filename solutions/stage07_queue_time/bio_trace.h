/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What the BPF side and the user side of bio_trace share. */
#ifndef __BIO_TRACE_H
#define __BIO_TRACE_H

/* One request's latency, sent to user space through the ring buffer. */
struct event {
	__u64 rq;		/* struct request *: blk-mq reuses them all the time */
	__u64 start_ns;		/* blk_mq_start_request(), bpf_ktime_get_ns() */
	__u64 end_ns;		/* its end */
	__u64 latency_ns;	/* end_ns - start_ns */
	__u64 queue_ns;		/* block_io_start -> start; 0: its io_start not seen */
	__u32 batch;		/* 1: ended by blk_mq_end_request_batch() */
	__u32 pad;
};

#endif /* __BIO_TRACE_H */
