// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Verifier corner 6: a helper this program type may not call.
 * Counts the bios queued on the disk of -d, per probed function, as the
 * function doors of stage 10 do with bpf_get_func_ip(). Make it load in
 * the tracepoint door; count must still be the number of bios.
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
	__type(key, u64);	/* the probed function's address */
	__type(value, u64);	/* bios */
} per_func SEC(".maps");

SEC("tp_btf/block_bio_queue")
int BPF_PROG(count_per_func, struct bio *bio)
{
	/* a tracepoint is one place, not a function: name it with its own key */
	u64 ip = 0, one = 1, *n;

	if (bio_dev(bio) != targ_dev)
		return 0;
	n = bpf_map_lookup_elem(&per_func, &ip);
	if (n)
		__sync_fetch_and_add(n, 1);
	else
		bpf_map_update_elem(&per_func, &ip, &one, BPF_NOEXIST);
	__sync_fetch_and_add(&count, 1);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
