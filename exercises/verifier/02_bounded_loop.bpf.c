// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Verifier corner 2: a loop the verifier cannot see the end of.
 * Counts the bios of each request that completes on the disk of -d by
 * walking rq->bio as stage 02 does. Make it load; count must still be the
 * number of bios.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "disk.bpf.h"

const volatile __u32 targ_dev = 0;	/* set by vload from -d */
__u64 count;				/* read by vload at the end */

SEC("tp_btf/block_rq_complete")
int BPF_PROG(count_rq_bios, struct request *rq, int error, unsigned int nr_bytes)
{
	struct bio *bio;

	if (rq_dev(rq) != targ_dev)
		return 0;
	/* a chain of bios ends with NULL: how long can it be? */
	for (bio = rq->bio; bio; bio = bio->bi_next)
		__sync_fetch_and_add(&count, 1);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
