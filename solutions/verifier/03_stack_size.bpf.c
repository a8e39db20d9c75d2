// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Verifier corner 3: more than 512 bytes of stack.
 * Keeps a record of the last bio queued on the disk of -d (its task's
 * name, its size and a note), built on the stack, then copied into a map.
 * The BPF stack is 512 bytes: clang refuses this one before the verifier
 * sees it. Make it build and load; count must still be the number of bios.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "disk.bpf.h"

const volatile __u32 targ_dev = 0;	/* set by vload from -d */
__u64 count;				/* read by vload at the end */

struct record {
	char comm[16];
	u32 size;
	char note[512];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct record);
} last SEC(".maps");

/* The record is built in a per-CPU slot instead: map memory, any size. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, struct record);
} scratch SEC(".maps");

SEC("tp_btf/block_bio_queue")
int BPF_PROG(keep_record, struct bio *bio)
{
	struct record *r;
	u32 zero = 0;

	if (bio_dev(bio) != targ_dev)
		return 0;
	r = bpf_map_lookup_elem(&scratch, &zero);
	if (!r)
		return 0;
	bpf_get_current_comm(r->comm, sizeof(r->comm));
	r->size = bio->bi_iter.bi_size;
	bpf_map_update_elem(&last, &zero, r, BPF_ANY);
	__sync_fetch_and_add(&count, 1);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
