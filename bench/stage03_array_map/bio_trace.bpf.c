// SPDX-License-Identifier: GPL-2.0
/*
 * The overhead lab's fast stage 03: the same program, output and counts,
 * with the start map built for speed. Stage 03 keeps starts in a
 * BPF_MAP_TYPE_HASH; this one keeps them in a hash table of its own
 * inside a BPF_MAP_TYPE_ARRAY (start.bpf.h, in this folder, says how and
 * why). README.md here explains the trick, its race, and what it saves.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "doors.bpf.h"
#include "start.bpf.h"

/*
 * Lesson#3: a map remembers when each bio was submitted, keyed by the
 * bio's address. It is a hash table in an array map (start.bpf.h says
 * why not BPF_MAP_TYPE_HASH: cost): START_SLOTS slots, room for
 * thousands of bios in flight; a full map is counted.
 */
struct start_rec {
	u64 key;	/* struct bio *, 0 = free slot */
	u64 ts;		/* submit time, ns */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, START_SLOTS);
	__type(key, u32);
	__type(value, struct start_rec);
} start SEC(".maps");

/* Lesson#1: bpf_ktime_get_ns() is the kernel's monotonic clock, in ns. */
static __always_inline int on_submit(void *ctx, struct bio *bio)
{
	u64 ts = bpf_ktime_get_ns();
	u64 key = start_key(bio);
	struct start_rec *sr;
	bool stale;

	sr = start_claim(&start, key, &stale);
	if (!sr) {
		stat_inc(STAT_MAP_FULL);
		return 0;
	}
	/* still there: a start whose completion was missed */
	if (stale)
		stat_inc(STAT_STALE);
	sr->ts = ts;
	if (!quiet)
		bpf_printk("submit_bio(bio=0x%llx) called: %llu", key, ts);
	return 0;
}
BIO_SUBMIT_DOORS(on_submit)

static __always_inline int on_done(void *ctx, struct bio *bio)
{
	u64 key = start_key(bio);
	struct start_rec *sr;
	u64 ts;

	sr = start_find(&start, key);
	if (!sr) {
		/* submitted before we attached, or split off after submit */
		stat_inc(STAT_NO_START);
		return 0;
	}
	if (!quiet) {
		ts = bpf_ktime_get_ns();
		bpf_printk("bio_endio (bio=0x%llx) called: %llu", key, ts);
		bpf_printk("submit_bio() -> bio_endio() time duration: %llu ns", ts - sr->ts);
	}
	/* Free the slot on completion, or the map fills and later bios are lost. */
	start_release(sr, key);
	return 0;
}
BIO_DONE_DOORS(on_done)

char LICENSE[] SEC("license") = "GPL";
