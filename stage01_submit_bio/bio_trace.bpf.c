// SPDX-License-Identifier: GPL-2.0
/* Stage 01: print the time of every submit_bio() call. */
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

char LICENSE[] SEC("license") = "GPL";
