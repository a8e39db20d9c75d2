/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Counters shared by the BPF side and the user side of every stage. */
#ifndef __STATS_H
#define __STATS_H

/*
 * One per-CPU slot per counter. The first ones count events per probe
 * point, the rest count what was lost, so that nothing is dropped quietly.
 */
enum trace_stat {
	STAT_SUBMIT,		/* bios seen at submit */
	STAT_DONE,		/* bios seen at completion */
	STAT_RQ_START,		/* requests seen at start */
	STAT_RQ_DONE,		/* requests seen at completion */
	STAT_LOOKUP,		/* page-cache lookups */
	STAT_ADD,		/* pages added to the page cache */
	STAT_SPLIT_PART,	/* parts of split bios, ended with their bio */
	STAT_NO_START,		/* completions without a recorded start: in
				   flight when tracing began, not a loss */
	STAT_MAP_FULL,		/* start records that could not be stored */
	STAT_RB_FULL,		/* events not sent: the ring buffer was full */
	STAT_STALE,		/* starts replaced before their end was seen */
	STAT_WALK_CUT,		/* rq->bio walks cut at the bound */
	STAT_STACK_ERR,		/* stacks that could not be captured */
	STAT_TASK_STORE,	/* per-task storage that could not be had */
	STAT_MAX,
};

#define STAT_FIRST_DROP STAT_MAP_FULL

#endif /* __STATS_H */
