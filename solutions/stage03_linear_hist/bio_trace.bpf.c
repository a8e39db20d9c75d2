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
#include "bio_trace.h"

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

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, HIST_SLOTS);
	__type(key, u32);	/* latency in ms, capped at the last slot */
	__type(value, u64);	/* bios */
} hist SEC(".maps");

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
	return 0;
}
BIO_SUBMIT_DOORS(on_submit)

static __always_inline int on_done(void *ctx, struct bio *bio)
{
	u64 key = (u64)bio;
	u64 *tsp, ms, *slot;
	u32 idx;

	tsp = bpf_map_lookup_elem(&start, &key);
	if (!tsp) {
		/* submitted before we attached */
		stat_inc(STAT_NO_START);
		return 0;
	}
	ms = (bpf_ktime_get_ns() - *tsp) / (HIST_STEP_MS * 1000000ULL);
	idx = ms < HIST_SLOTS - 1 ? ms : HIST_SLOTS - 1;
	slot = bpf_map_lookup_elem(&hist, &idx);
	if (slot)
		__sync_fetch_and_add(slot, 1);	/* completions race on other CPUs */
	/* Delete on completion, or the map fills and later bios are lost. */
	bpf_map_delete_elem(&start, &key);
	return 0;
}
BIO_DONE_DOORS(on_done)

char LICENSE[] SEC("license") = "GPL";
