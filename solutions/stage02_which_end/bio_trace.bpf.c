// SPDX-License-Identifier: GPL-2.0
/* Stage 02, solved: each completion line names the point that ended the bio. */
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

/* by: the probe point that ended the bio, a string in .rodata */
static __always_inline int on_done(struct bio *bio, const char *by)
{
	u64 ts = bpf_ktime_get_ns();

	stat_inc(STAT_DONE);
	if (!quiet)
		bpf_printk("bio_endio() called: %llu by %s", ts, by);
	return 0;
}

/* rq_end_bios() takes a handler of one argument: the request walk's. */
static __always_inline int on_rq_done(struct bio *bio)
{
	return on_done(bio, "block_rq_complete");
}

/*
 * The bios merged behind a request's first one, from the tracepoint
 * door's walk (rq_end_bios()): a global function, checked once.
 */
__noinline int on_done_merged(u64 bio)
{
	return on_done((struct bio *)bio, "block_rq_complete");
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

/* Fired in submit_bio_noacct_nocheck(), after the partition remap. */
SEC("tp_btf/block_bio_queue")
int BPF_PROG(block_bio_queue_btf, struct bio *bio)
{
	if (targ_dev && bio_dev(bio) != targ_dev)
		return 0;
	return bio_split_part(bio) ? 0 : on_submit(bio);
}

SEC("kprobe/bio_endio")
int BPF_KPROBE(bio_endio_kprobe, struct bio *bio)
{
	if (targ_dev && bio_dev_core(bio) != targ_dev)
		return 0;
	if (bio_split_part_core(bio)) {
		stat_inc(STAT_SPLIT_PART);	/* it ends with its bio */
		return 0;
	}
	return on_done(bio, "bio_endio");
}

SEC("fentry/bio_endio")
int BPF_PROG(bio_endio_fentry, struct bio *bio)
{
	if (targ_dev && bio_dev(bio) != targ_dev)
		return 0;
	if (bio_split_part(bio)) {
		stat_inc(STAT_SPLIT_PART);	/* it ends with its bio */
		return 0;
	}
	return on_done(bio, "bio_endio");
}

/* Request-based disks (loop, virtio, nvme): the bios this completion ends. */
SEC("tp_btf/block_rq_complete")
int BPF_PROG(block_rq_complete_btf, struct request *rq, blk_status_t error,
	     unsigned int nr_bytes)
{
	if (targ_dev && rq_dev(rq) != targ_dev)
		return 0;
	rq_end_bios(rq, nr_bytes, on_rq_done, on_done_merged);
	return 0;
}

/* Bio-based disks (zram, dm, md) end each bio with this tracepoint. */
SEC("tp_btf/block_bio_complete")
int BPF_PROG(block_bio_complete_btf, struct request_queue *q, struct bio *bio)
{
	if (targ_dev && bio_dev(bio) != targ_dev)
		return 0;
	if (bio_split_part(bio)) {
		stat_inc(STAT_SPLIT_PART);	/* it ends with its bio */
		return 0;
	}
	return on_done(bio, "block_bio_complete");
}

char LICENSE[] SEC("license") = "GPL";
