// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Verifier corner 5: a kernel pointer read without BPF_CORE_READ().
 * Counts the bios queued on the disk of -d from a raw tracepoint, whose
 * argument, like a kprobe's, is a plain number to the verifier. Make it
 * load; count must still be the number of bios.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "disk.bpf.h"

const volatile __u32 targ_dev = 0;	/* set by vload from -d */
__u64 count;				/* read by vload at the end */

SEC("raw_tp/block_bio_queue")
int BPF_PROG(count_bio_raw, struct bio *bio)
{
	/* a plain number to the verifier: read through it with BPF_CORE_READ() */
	if (bio_dev_core(bio) != targ_dev)
		return 0;
	__sync_fetch_and_add(&count, 1);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
