// SPDX-License-Identifier: GPL-2.0
/*
 * Stage 03, solved: a linear histogram of bio latency, 0 to 100 ms in
 * 1 ms steps (BPF Performance Tools, chapter 9, exercises 1 and 2).
 * The BPF side counts; the user side prints, per interval if asked.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "doors.bpf.h"
#include "start.bpf.h"
#include "bio_trace.h"


struct start_rec {
	u64 key;	/* struct bio *, 0 = free slot */
	u64 ts;		/* submit time, ns */
};

/* The start map of stage 03 (common/start.bpf.h). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, START_SLOTS);
	__type(key, u32);
	__type(value, struct start_rec);
} start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, HIST_SLOTS);
	__type(key, u32);	/* latency in ms, capped at the last slot */
	__type(value, u64);	/* bios */
} hist SEC(".maps");

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
	return 0;
}
BIO_SUBMIT_DOORS(on_submit)

static __always_inline int on_done(void *ctx, struct bio *bio)
{
	u64 key = start_key(bio), ms, *slot;
	struct start_rec *sr;
	u32 idx;

	sr = start_find(&start, key);
	if (!sr) {
		stat_inc(STAT_NO_START);
		return 0;
	}
	ms = (bpf_ktime_get_ns() - sr->ts) / (HIST_STEP_MS * 1000000ULL);
	idx = ms < HIST_SLOTS - 1 ? ms : HIST_SLOTS - 1;
	slot = bpf_map_lookup_elem(&hist, &idx);
	if (slot)
		__sync_fetch_and_add(slot, 1);	/* completions race on other CPUs */
	start_release(sr, key);
	return 0;
}
BIO_DONE_DOORS(on_done)

char LICENSE[] SEC("license") = "GPL";
