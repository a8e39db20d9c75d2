/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* tracefs: finding or mounting it, and a private instance per run. */
#ifndef __TRACEFS_H
#define __TRACEFS_H

#include <stdbool.h>
#include <stdio.h>

/* Where tracefs is; empty until tracefs_mount() found or mounted it. */
const char *tracefs_root(void);
/* Find tracefs where it is mounted; -ENOENT if it is not. */
int tracefs_find(void);
/* Find tracefs, mounting it at /sys/kernel/tracing if needed. */
int tracefs_mount(void);

/*
 * Stages 01-02 only: a private trace instance. bpf_printk lines land in
 * every instance that enables bpf_trace/bpf_trace_printk, so two runs
 * never steal each other's lines or read old leftovers; but each still
 * sees every program's bpf_printk on the machine (stage 03's reason for
 * a ring buffer).
 */
struct trace_reader {
	char dir[256];		/* instances/<name>, removed on close */
	int fd;			/* its trace_pipe, non-blocking */
	unsigned long long lost;	/* lines the kernel reported lost */
	char buf[65536];
	size_t len;		/* bytes of a partial line kept in buf */
};

int trace_open(struct trace_reader *tr, const char *name);
/*
 * Remove the instances of runs that are gone (killed with SIGKILL, they
 * keep collecting lines); where tracefs is not mounted, nothing to do.
 */
void trace_remove_stale(void);
/* Copy complete lines to out; 0, or -1 when out failed (errno says why). */
int trace_drain(struct trace_reader *tr, FILE *out);
/* Overrun counts of the instance plus [LOST …] markers seen. */
unsigned long long trace_lost(struct trace_reader *tr);
void trace_close(struct trace_reader *tr);

#endif /* __TRACEFS_H */
