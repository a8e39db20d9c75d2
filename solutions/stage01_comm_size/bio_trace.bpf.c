// SPDX-License-Identifier: GPL-2.0
/* Stage 01, solved: who submitted each bio, and how many bytes it carries. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "doors.bpf.h"

static __always_inline int on_submit(void *ctx, struct bio *bio)
{
	u64 ts = bpf_ktime_get_ns();
	char comm[16];

	if (quiet)
		return 0;
	/* The task running now: the submitter (a kworker for writeback). */
	bpf_get_current_comm(comm, sizeof(comm));
	/* bi_iter.bi_size: bytes still to do; at submit, the whole bio. */
	bpf_printk("submit_bio() called: %llu by %s, %u bytes", ts, comm,
		   BPF_CORE_READ(bio, bi_iter.bi_size));
	return 0;
}
BIO_SUBMIT_DOORS(on_submit)

char LICENSE[] SEC("license") = "GPL";
