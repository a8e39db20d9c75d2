/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Doors into the kernel: for each probe point of a stage, pick kprobe,
 * fentry or tracepoint, switch the other programs off, attach, detach.
 */
#ifndef __DOORS_H
#define __DOORS_H

#include <stdio.h>
#include <bpf/libbpf.h>

enum door {
	DOOR_AUTO,
	DOOR_KPROBE,
	DOOR_FENTRY,
	DOOR_TRACEPOINT,
	DOOR_RAW_TP,	/* the tracepoint door, forced to its raw_tp flavour */
};

#define POINT_MAX_FUNCS	4
#define POINT_MAX_TPS	3
#define DOORS_MAX_POINTS 4
#define DOORS_MAX_LINKS	(DOORS_MAX_POINTS * POINT_MAX_TPS)

struct tp_target {
	const char *prog;	/* programs tp_btf__<prog> and raw_tp__<prog> */
	const char *tp;		/* tracepoint name, e.g. block_rq_complete */
};

/* A place in the kernel a stage listens at (see points.c). */
struct probe_point {
	const char *name;	/* programs kprobe__<name>, fentry__<name> */
	const char *funcs[POINT_MAX_FUNCS];	/* kernel functions, first found wins */
	struct tp_target tps[POINT_MAX_TPS];	/* tracepoint door: all of them */
	int stat;		/* counter of events seen here, -1 for none */
};

struct door_choice {
	enum door door;
	const char *func;	/* kprobe/fentry: the function used */
	bool raw;		/* tracepoint door: raw_tp rather than tp_btf */
	char why[160];		/* doors passed over, and why */
};

struct doors {
	struct bpf_object *obj;
	const struct probe_point *const *points;
	int n;
	struct door_choice choice[DOORS_MAX_POINTS];
	struct bpf_link *links[DOORS_MAX_LINKS];
	int nlinks;
	int link_point[DOORS_MAX_LINKS];	/* which point each link serves */
	int attaching;				/* the point being attached */
	__u64 kprobe_missed;	/* counted by the kernel (6.7+), read at detach */
};

extern const struct probe_point point_submit_bio;
extern const struct probe_point point_bio_endio;
extern const struct probe_point point_filemap_get_pages;
extern const struct probe_point point_filemap_add_folio;
extern const struct probe_point point_rq_start;
extern const struct probe_point point_rq_done;

int door_from_name(const char *name, enum door *door);
const char *door_name(enum door door);

/* Before load: choose a door per point, set autoload and attach targets. */
int doors_select(struct doors *d, struct bpf_object *obj,
		 const struct probe_point *const *points, int n, enum door want);
/* After load: attach the chosen programs; prints one line per point. */
int doors_attach(struct doors *d);
/* Detach everything attached; safe to call twice. */
void doors_detach(struct doors *d);
/* Per-point event counts, drop counters, recursion misses, trace_lost. */
void doors_print_summary(struct doors *d, FILE *out, unsigned long long trace_lost);

#endif /* __DOORS_H */
