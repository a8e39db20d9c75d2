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
};

/*
 * The slowest bio a CPU has completed. One record, written whole by the
 * completion handler, so bio and times always belong together.
 */
struct max_rec {
	__u64 bio;		/* struct bio *, 0 = none yet */
	__u64 start;		/* submit time, ns */
	__u64 end;		/* completion time, ns */
	__u64 duration;		/* end - start */
};

/* The slowest TOP_N bios a CPU has completed, slowest first. */
#define TOP_N 3

struct top_rec {
	struct max_rec r[TOP_N];	/* r[i].bio 0: a free place */
};

/*
 * top_rec records per CPU, one per level a completion can run at (task,
 * softirq, hardirq, NMI): one interrupting another never shares its record.
 */
#define MAX_LEVELS 4

#endif /* __BIO_TRACE_H */
