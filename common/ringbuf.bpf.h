/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * When to wake the ring buffer's reader. By default bpf_ringbuf_submit()
 * wakes it (an irq_work, then the poller's wakeup) whenever it has read
 * everything before: with a fast reader, for nearly every event, and the
 * wakeup costs more than the event itself (docs/overhead.md). So wake it
 * once a batch is waiting; a lone event waits at most for the run loop's
 * next poll (common/tracer.c polls at least every 200 ms).
 */
#ifndef __RINGBUF_BPF_H
#define __RINGBUF_BPF_H

#define RINGBUF_WAKEUP_BYTES (256 << 10)	/* a quarter of a 1 MiB buffer */

/* The flags for bpf_ringbuf_submit(e, ringbuf_wakeup(&events)). */
static __always_inline __u64 ringbuf_wakeup(void *ringbuf)
{
	if (bpf_ringbuf_query(ringbuf, BPF_RB_AVAIL_DATA) >= RINGBUF_WAKEUP_BYTES)
		return BPF_RB_FORCE_WAKEUP;
	return BPF_RB_NO_WAKEUP;
}

#endif /* __RINGBUF_BPF_H */
