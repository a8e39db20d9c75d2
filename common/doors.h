/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Doors into the kernel: for each probe point of a stage, pick fentry,
 * kprobe or the tracepoint door, switch the other programs off, attach,
 * detach. A program is known by its type and what it attaches to, as
 * libbpf read them off its SEC() line: "kprobe/submit_bio" is the kprobe
 * door of the point whose function is submit_bio.
 */
#ifndef __DOORS_H
#define __DOORS_H

#include <stdbool.h>
#include <bpf/libbpf.h>
#include "kernel_has.h"

/* In the order -a auto tries them. */
enum door {
	DOOR_AUTO,
	DOOR_FENTRY,	/* SEC("fentry/FUNC") or SEC("fexit/FUNC") */
	DOOR_KPROBE,	/* SEC("kprobe/FUNC") or SEC("kretprobe/FUNC") */
	DOOR_TRACEPOINT,	/* SEC("tp_btf/TP") or SEC("tracepoint/GROUP/TP") */
	DOOR_COUNT,
};

#define POINT_MAX_TPS	2
#define DOORS_MAX_POINTS 9	/* tools/iofollow has 9 */
#define DOORS_MAX_LINKS	16

/* A place in the kernel a stage listens at (see points.c). */
struct probe_point {
	const char *name;	/* in the door line and the Events: line */
	const char *func;	/* fentry and kprobe doors: the kernel function */
	/*
	 * Function doors: one more function where the same event happens,
	 * taken where the kernel has it (the tracepoint fires in both).
	 */
	const char *also;
	const char *tps[POINT_MAX_TPS];	/* tracepoint door: each of them */
	int stat;		/* its counter in stats.h */
};

struct door_choice {
	enum door door;
	enum door first;	/* -a auto: the first door left (doors_next()) */
	bool also;		/* function doors: the kernel has point->also */
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
	int link_point[DOORS_MAX_LINKS];	/* which point each link serves */
	int nlinks;
	__u64 kprobe_missed;	/* counted by the kernel (6.7+), read at detach */
	__u64 no_start_at_stop;	/* STAT_NO_START when the start point shut (summary.c) */
	__u32 bio_cloned;	/* 1 << BIO_CLONED on this kernel, for bio_end.bpf.h */
};

extern const struct probe_point point_submit_bio;
extern const struct probe_point point_bio_endio;
extern const struct probe_point point_filemap_get_pages;
extern const struct probe_point point_filemap_add_folio;
extern const struct probe_point point_rq_start;
extern const struct probe_point point_rq_done;
/* Stage 11's more */
extern const struct probe_point point_write;
extern const struct probe_point point_folio_dirty;
extern const struct probe_point point_folio_gone;
extern const struct probe_point point_bio_queued;
extern const struct probe_point point_bio_split;
/* tools/iofollow's: tracepoint door only (no function named) */
extern const struct probe_point point_syscall;
extern const struct probe_point point_folio;
extern const struct probe_point point_bio_queue;
extern const struct probe_point point_rq_issue;
extern const struct probe_point point_rq_complete;
/* tools/iofollow's more */
extern const struct probe_point point_folio_add;
extern const struct probe_point point_getrq;
extern const struct probe_point point_merge;
extern const struct probe_point point_bio_complete;

int door_from_name(const char *name, enum door *door);
const char *door_name(enum door door);

/* Before load: choose a door per point, switch off the other programs. */
int doors_select(struct doors *d, struct bpf_object *obj,
		 const struct probe_point *const *points, int n, enum door want);
/*
 * In a test build only (TEST_HOOKS=1, tests/hooks/): called for each
 * program doors_select() keeps, with its door's load name (tp_btf).
 */
void doors_test_hook(struct bpf_program *prog, const char *door) __attribute__((weak));
/*
 * After a failed load, -a auto only: move every point on to its next door
 * (the object must then be opened, selected and loaded again). 0, or -1
 * when -a named the door or no point has one left.
 */
int doors_next(struct doors *d, int err);
/* Those doors, as "fentry, kprobe", in buf. */
const char *doors_failed(const struct doors *d, char *buf, size_t size);
/* What point p listens at in its door: its function, or its first tracepoint. */
const char *doors_target(const struct doors *d, const struct probe_point *p);
/* The door chosen for point p (DOOR_AUTO if p is not one of the stage's). */
enum door doors_door(const struct doors *d, const struct probe_point *p);
/*
 * After load: attach the chosen programs, the start point (a stage lists
 * it first) last; prints one line per point.
 */
int doors_attach(struct doors *d);
/*
 * Detach the start point's programs (a stage lists it first): no I/O is
 * timed from now on, the ends of I/O in flight still are.
 */
void doors_detach_first(struct doors *d);
/* Detach everything attached; safe to call twice. */
void doors_detach(struct doors *d);

#endif /* __DOORS_H */
