/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The run of a stage around its skeleton: preflight, door choice,
 * attach, the main loop (signals, --duration, trace lines), summary.
 */
#ifndef __TRACER_H
#define __TRACER_H

#include <signal.h>
#include "doors.h"
#include "jsonl.h"
#include "options.h"
#include "tracefs.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define TRACER_INIT(prog) { .name = (prog), .tr = { .fd = -1 } }

struct tracer {
	const char *name;		/* program name, for messages */
	struct doors doors;
	struct trace_reader tr;
	int interval_ms;		/* call tick this often, 0 = never */
	int (*tick)(void *arg);
	void *arg;
};

/* Root, kernel BTF and tracefs, each failure one line; 0 or -1. */
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
/* After __load(): open our trace instance and attach every door. */
int tracer_attach(struct tracer *t);
/* Until Ctrl-C, SIGTERM, --duration or a closed stdout; then detach. */
int tracer_run(struct tracer *t);
/* Events per probe point and every loss; on stdout. */
void tracer_summary(struct tracer *t);
void tracer_close(struct tracer *t);

#endif /* __TRACER_H */
