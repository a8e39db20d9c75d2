// SPDX-License-Identifier: GPL-2.0
/* Stage 02: print the time of every submit_bio() and bio_endio() call. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "doors.bpf.h"

/* Lesson#1: bpf_ktime_get_ns() is the kernel's monotonic clock, in ns. */
static __always_inline int on_submit(void *ctx, struct bio *bio)
{
	u64 ts = bpf_ktime_get_ns();

	if (!quiet)
		bpf_printk("submit_bio() called: %llu", ts);
	return 0;
}
BIO_SUBMIT_DOORS(on_submit)

static __always_inline int on_done(void *ctx, struct bio *bio)
{
	u64 ts = bpf_ktime_get_ns();

	if (!quiet)
		bpf_printk("bio_endio() called: %llu", ts);
	return 0;
}
BIO_DONE_DOORS(on_done)

char LICENSE[] SEC("license") = "GPL";
