/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* One CSV row, from the BPF side to the user side through a ring buffer. */
#ifndef __BIO_TRACE_H
#define __BIO_TRACE_H

struct csv_row {
	__u64 done_ns;		/* completion time, bpf_ktime_get_ns() */
	__u64 latency_ns;	/* completion - submit */
	__u32 write;		/* op_is_write() of the bio's operation */
};

#endif /* __BIO_TRACE_H */
