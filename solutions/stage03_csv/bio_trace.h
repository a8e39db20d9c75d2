/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What the BPF side and the user side of bio_trace share. */
#ifndef __BIO_TRACE_H
#define __BIO_TRACE_H

/* One bio's latency, sent to user space through the ring buffer. */
struct event {
	__u64 bio;		/* struct bio *: an address the kernel reuses */
	__u64 start_ns;		/* submit, bpf_ktime_get_ns() */
	__u64 end_ns;		/* completion */
	__u64 latency_ns;	/* end_ns - start_ns */
	__u32 write;		/* op_is_write() of the bio's operation */
};

#endif /* __BIO_TRACE_H */
