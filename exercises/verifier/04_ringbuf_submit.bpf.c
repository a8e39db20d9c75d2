// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Verifier corner 4: a ring buffer record reserved and not submitted.
 * Sends one record per bio queued on the disk of -d, as stage 03 sends
 * its events. Make it load; vload must still receive one record per bio.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "disk.bpf.h"

const volatile __u32 targ_dev = 0;	/* set by vload from -d */
__u64 count;				/* read by vload at the end */

struct record {
	u64 sector;
	u32 size;
};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 16);
} events SEC(".maps");

SEC("tp_btf/block_bio_queue")
int BPF_PROG(send_record, struct bio *bio)
{
	struct record *r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);

	if (!r)
		return 0;
	/* not our disk: nothing to send */
	if (bio_dev(bio) != targ_dev)
		return 0;
	r->sector = bio->bi_iter.bi_sector;
	r->size = bio->bi_iter.bi_size;
	bpf_ringbuf_submit(r, 0);
	__sync_fetch_and_add(&count, 1);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
