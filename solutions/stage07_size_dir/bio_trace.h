/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What the BPF side and the user side of bio_trace share. */
#ifndef __BIO_TRACE_H
#define __BIO_TRACE_H

/* What the start knew about a request: its time, its bytes, its operation. */
struct start_rec {
	__u64 ts;		/* start time, ns */
	__u32 bytes;		/* rq->__data_len at start */
	__u32 op;		/* rq->cmd_flags & REQ_OP_MASK: 0 read, 1 write ... */
};

/* One request's latency, sent to user space through the ring buffer. */
struct event {
	__u64 rq;		/* struct request *: blk-mq reuses them all the time */
	__u64 start_ns;		/* blk_mq_start_request(), bpf_ktime_get_ns() */
	__u64 end_ns;		/* its end */
	__u64 latency_ns;	/* end_ns - start_ns */
	__u32 batch;		/* 1: ended by blk_mq_end_request_batch() */
	__u32 bytes;		/* from its start record */
	__u32 op;
	__u32 pad;
};

#endif /* __BIO_TRACE_H */
