// SPDX-License-Identifier: GPL-2.0
/* Stage 03: the latency of each bio, from submit_bio() to bio_endio(). */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "doors.bpf.h"

/*
 * Lesson#3: a map remembers when each bio was submitted, keyed by the
 * bio's address: insert at submit, look up and delete at completion.
 * Sized for the bios a fast machine has in flight at once (an NVMe disk:
 * queues x 1023 tags); a full map is counted.
 */
#define MAX_INFLIGHT 16384

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_INFLIGHT);
	__type(key, u64);	/* struct bio * */
	__type(value, u64);	/* submit time, ns */
} start SEC(".maps");

/* Lesson#1: bpf_ktime_get_ns() is the kernel's monotonic clock, in ns. */
static __always_inline int on_submit(void *ctx, struct bio *bio)
{
	u64 ts = bpf_ktime_get_ns();
	u64 key = (u64)bio;
	int err;	/* not long: 6.1 returns a 32-bit -EEXIST */

	/* BPF_NOEXIST: a start still there is one whose completion was missed */
	err = bpf_map_update_elem(&start, &key, &ts, BPF_NOEXIST);
	if (err == -EEXIST) {
		stat_inc(STAT_STALE);
		err = bpf_map_update_elem(&start, &key, &ts, BPF_ANY);
	}
	if (err)
		stat_inc(STAT_MAP_FULL);
	if (!quiet)
		bpf_printk("submit_bio(bio=0x%llx) called: %llu", key, ts);
	return 0;
}
BIO_SUBMIT_DOORS(on_submit)

static __always_inline int on_done(void *ctx, struct bio *bio)
{
	u64 key = (u64)bio;
	u64 *tsp, ts;

	tsp = bpf_map_lookup_elem(&start, &key);
	if (!tsp) {
		/* submitted before we attached */
		stat_inc(STAT_NO_START);
		return 0;
	}
	if (!quiet) {
		ts = bpf_ktime_get_ns();
		bpf_printk("bio_endio (bio=0x%llx) called: %llu", key, ts);
		bpf_printk("submit_bio() -> bio_endio() time duration: %llu ns", ts - *tsp);
	}
	/* Delete on completion, or the map fills and later bios are lost. */
	bpf_map_delete_elem(&start, &key);
	return 0;
}
BIO_DONE_DOORS(on_done)

char LICENSE[] SEC("license") = "GPL";
