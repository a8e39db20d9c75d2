/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Doors into the kernel: for each probe point of a stage, pick kprobe,
 * fentry or tracepoint, switch the other programs off, attach, detach.
 */
#ifndef __DOORS_H
#define __DOORS_H

#include <stdio.h>
#include <bpf/libbpf.h>

/* In the order -a auto tries them. */
enum door {
	DOOR_AUTO,
	DOOR_FENTRY,
	DOOR_KPROBE,
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
	/*
	 * Function doors: one more function where the same event happens,
	 * attached with programs <door>__<also.prog> where the kernel has it
	 * (the tracepoint fires in both places, so its door needs nothing).
	 */
	struct tp_target also;	/* .prog, and the function in .tp */
	int stat;		/* counter of events seen here, -1 for none */
};

struct door_choice {
	enum door door;
	const char *func;	/* kprobe/fentry: the function used */
	bool raw;		/* tracepoint door: raw_tp rather than tp_btf */
	enum door first;	/* -a auto: the first door left (doors_next()) */
	char why[224];		/* doors passed over, and why */
};

struct doors {
	struct bpf_object *obj;
	const struct probe_point *const *points;
	int n;
	enum door want;		/* as -a asked */
	unsigned int failed;	/* doors whose load failed, 1 << door */
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
/*
 * After a failed load, -a auto only: move every point on to its next door
 * (the object must then be opened, selected and loaded again). 0, or -1
 * when -a named the door or no point has one left.
 */
int doors_next(struct doors *d, int err);
/* Those doors, as "tp_btf, raw_tp", in buf. */
const char *doors_failed(const struct doors *d, char *buf, size_t size);
/* After load: attach the chosen programs; prints one line per point. */
int doors_attach(struct doors *d);
/* Detach everything attached; safe to call twice. */
void doors_detach(struct doors *d);
/* Per-point event counts, drop counters, recursion misses, trace_lost. */
void doors_print_summary(struct doors *d, FILE *out, unsigned long long trace_lost);

#endif /* __DOORS_H */
