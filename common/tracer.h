/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The run of a stage around its skeleton: preflight, door choice,
 * attach, the main loop (signals, --duration, the ring buffer's events
 * or stages 01-02's trace lines), summary.
 */
#ifndef __TRACER_H
#define __TRACER_H

#include <signal.h>
#include <bpf/libbpf.h>
#include "doors.h"
#include "jsonl.h"
#include "options.h"
#include "tracefs.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define TRACER_INIT(prog) { .name = (prog), .tr = { .fd = -1 } }

struct tracer {
	const char *name;		/* program name, for messages */
	struct doors doors;
	bool printk;			/* stages 01-02: read bpf_printk's trace lines */
	struct trace_reader tr;
	struct ring_buffer *rb;		/* stage 03 on: the events, polled by tracer_run() */
	/* From the stage's skeleton, for the summary (summary.h) */
	struct bpf_map *stats;		/* its counters (trace.bpf.h) */
	struct bpf_map *start;		/* stage 03 on: its starts, I/O in flight */
	int interval_ms;		/* call tick this often, 0 = never */
	int (*tick)(void *arg);
	void *arg;
};

/*
 * Root and kernel BTF, each failure one line; 0 or -1. Also: SIGINT,
 * SIGTERM and SIGHUP end the run the same way, and a trace instance left
 * by a killed run is removed.
 */
int tracer_preflight(const char *name);
/* Before the skeleton's __load(): choose doors as -a asks. */
int tracer_select(struct tracer *t, struct bpf_object *obj,
		  const struct probe_point *const *points, int n);
/*
 * After __load(), with its error: true when -a auto is to try the next
 * door, the object opened, selected and loaded anew (libbpf loads an
 * object once). False when it loaded, or failed for good: one line said so.
 */
bool tracer_next_door(struct tracer *t, int err);
/* After __load(): with printk, open our trace instance; attach every door. */
int tracer_attach(struct tracer *t);
/*
 * Until Ctrl-C, SIGTERM, SIGHUP, --duration or a closed stdout; then
 * detach and print what the ring buffer still holds. 0, or -1 after one
 * line when stdout failed (ENOSPC, EIO); a reader gone away (EPIPE)
 * ends the run quietly with 0.
 */
int tracer_run(struct tracer *t);
/* Events per probe point, I/O in flight and every loss, on stdout; 0 or -1 as tracer_run(). */
int tracer_summary(struct tracer *t);
void tracer_close(struct tracer *t);
/*
 * Flush stdout: 0 while it takes what we write, else -1 after one line
 * (not for EPIPE). The loop calls it after each poll and tick: a stage
 * needs no fflush() of its own (one would hide the error's errno).
 */
int tracer_output_ok(struct tracer *t);
/* Seconds on CLOCK_MONOTONIC, the clock of bpf_ktime_get_ns(). */
double tracer_now(void);

#endif /* __TRACER_H */
