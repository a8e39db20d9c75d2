// SPDX-License-Identifier: GPL-2.0
/* Stage 01, solved: the tracepoint door as a classic tracepoint program. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "trace.bpf.h"
#include "disk.bpf.h"
#include "bio_end.bpf.h"

/* Set by the user side before load; the verifier then drops dead branches. */
const volatile bool quiet = false;	/* -q: no bpf_printk at all */
const volatile __u32 targ_dev = 0;	/* -d: the disk's dev_t, 0 = every disk */

/* Lesson#1: bpf_ktime_get_ns() is the kernel's monotonic clock, in ns. */
static __always_inline int on_submit(struct bio *bio)
{
	u64 ts = bpf_ktime_get_ns();

	stat_inc(STAT_SUBMIT);
	if (!quiet)
		bpf_printk("submit_bio() called: %llu", ts);
	return 0;
}

/*
 * Lesson#2: the doors, one program each; the loader keeps one door per
 * probe point and switches the others off before load. A kprobe program
 * gets the argument as a plain number and reads its fields with
 * BPF_CORE_READ() (the _core helpers); fentry and tp_btf programs get a
 * BTF-typed pointer and read fields with plain loads.
 */
SEC("kprobe/submit_bio")
int BPF_KPROBE(submit_bio_kprobe, struct bio *bio)
{
	if (targ_dev && bio_dev_core(bio) != targ_dev)
		return 0;
	return bio_split_part_core(bio) ? 0 : on_submit(bio);
}

SEC("fentry/submit_bio")
int BPF_PROG(submit_bio_fentry, struct bio *bio)
{
	if (targ_dev && bio_dev(bio) != targ_dev)
		return 0;
	return bio_split_part(bio) ? 0 : on_submit(bio);
}

/*
 * Fired in submit_bio_noacct_nocheck(), after the partition remap. The
 * argument is the record the tracepoint fills (its format file's fields):
 * no bio, so no split check, and the kernel fills the record (rwbs, comm)
 * on every event before this program runs.
 */
SEC("tracepoint/block/block_bio_queue")
int block_bio_queue_tp(struct trace_event_raw_block_bio *ctx)
{
	if (targ_dev && ctx->dev != targ_dev)
		return 0;
	stat_inc(STAT_SUBMIT);
	if (!quiet)
		bpf_printk("submit_bio() called: %llu sector %llu %s",
			   bpf_ktime_get_ns(), ctx->sector, ctx->rwbs);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
