/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The summary a stage prints at exit: events per probe point, then every
 * loss, so that nothing is lost quietly.
 */
#ifndef __SUMMARY_H
#define __SUMMARY_H

#include <stdio.h>
#include "doors.h"

/*
 * Hits a kprobe or kprobe.multi link's probes dropped (6.7+; 0 before);
 * read before detach.
 */
__u64 link_kprobe_missed(struct bpf_link *link);
/* Counters 0 to n - 1 of a per-CPU array map (or NULL), each summed over the CPUs. */
void read_counters(struct bpf_map *map, __u64 *total, int n);
/* A loss: a short name for --json, the words of its Lost: line, how many. */
struct loss {
	const char *key;
	const char *what;
	__u64 n;
};

/* A "Lost: N what" line per loss that happened, else "Lost: none". */
void lost_lines(FILE *out, const struct loss *l, int n);
/* -j's member of a summary object: ,"lost":{"key":N,…}, the losses that happened. */
void lost_json(FILE *out, const struct loss *l, int n);
/* Runs the kernel skipped because another BPF program ran on that CPU. */
__u64 recursion_misses(struct bpf_object *obj);
/*
 * Right after doors_detach_first(): the completions without a start seen
 * from now on are of I/O begun after tracing stopped, not before it began.
 * stats: the stage's counters (trace.bpf.h), from its skeleton.
 */
void summary_mark_stop(struct doors *d, struct bpf_map *stats);
/* Starts a stage's start map (NULL: none) holds: I/O in flight. */
__u64 starts_in_flight(struct bpf_map *start);
/*
 * The Events:, Split:, In flight and Lost: lines: the stats counters
 * (stats.h), the starts left in the start map (NULL: none), kprobe and
 * recursion misses, and trace lines lost (trace_lost); the maps are the
 * stage's own, from its skeleton (tracer.h: t.stats, t.start). Call it
 * after doors_detach(). With -j, one "summary" object instead.
 */
void summary_print(struct doors *d, struct bpf_map *stats, struct bpf_map *start,
		   FILE *out, unsigned long long trace_lost);

#endif /* __SUMMARY_H */
