/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The counters every stage keeps, so that nothing is lost quietly: events
 * per probe point, and every event a stage could not handle (stats.h).
 * The user side adds them up for the Events: and Lost: lines.
 */
#ifndef __TRACE_BPF_H
#define __TRACE_BPF_H

#include "stats.h"

#ifndef EEXIST
#define EEXIST 17	/* vmlinux.h has no errno values */
#endif

/* One slot per counter, per CPU: no atomic add, no shared cache line. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, STAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

static __always_inline void stat_inc(enum trace_stat s)
{
	__u32 key = s;
	__u64 *v = bpf_map_lookup_elem(&stats, &key);

	if (v)
		(*v)++;
}

#endif /* __TRACE_BPF_H */
