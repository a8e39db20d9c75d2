// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Verifier corner 1: a map value used without a NULL check.
 * Counts the bios queued on the disk of -d, in a hash map keyed by its
 * dev_t (stage 03's map, one key). Make it load; count must still be the
 * number of bios.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "disk.bpf.h"

const volatile __u32 targ_dev = 0;	/* set by vload from -d */
__u64 count;				/* read by vload at the end */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16);
	__type(key, u32);	/* dev_t */
	__type(value, u64);	/* bios queued */
} per_disk SEC(".maps");

SEC("tp_btf/block_bio_queue")
int BPF_PROG(count_bio, struct bio *bio)
{
	u32 dev = bio_dev(bio);
	u64 zero = 0, *n;

	if (dev != targ_dev)
		return 0;
	bpf_map_update_elem(&per_disk, &dev, &zero, BPF_NOEXIST);
	n = bpf_map_lookup_elem(&per_disk, &dev);
	/* another program may delete it in between: the verifier makes us look */
	if (!n)
		return 0;
	__sync_fetch_and_add(n, 1);
	count = *n;
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
