/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Stage 10's trees: the events of each bio kept together, keyed by its
 * address, until the bio has ended; then handed out, its events in time
 * order, and forgotten. An event is the stage's own struct, copied whole:
 * only its time (a __u64 of nanoseconds at ts_off) is read here. When a
 * tree ends, and when an address begins a new bio, is the stage's to say.
 */
#ifndef __BIO_FOREST_H
#define __BIO_FOREST_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct bio_tree {
	struct bio_tree *prev, *next;	/* the forest's list, in order of first event */
	__u64 bio;
	__u64 end_ns;		/* the time of its end; 0: not ended yet */
	int n, cap;
	char *ev;		/* n events, in the order they came */
};

struct bio_forest {
	size_t size;		/* an event's size */
	size_t ts_off;		/* where in an event its time is */
	void *index;		/* tsearch()'s search tree of the trees, by address */
	struct bio_tree *first, *last;
};

/* bio's tree, or NULL. */
struct bio_tree *bio_tree_find(struct bio_forest *f, __u64 bio);
/* Add a copy of ev to bio's tree, a new one if it has none; NULL: out of memory. */
struct bio_tree *bio_tree_add(struct bio_forest *f, __u64 bio, const void *ev);
/* Event i of t. */
const void *bio_tree_event(const struct bio_forest *f, const struct bio_tree *t, int i);
/* Hand t to show() now, ended or not, its events sorted by time; then forget it. */
void bio_forest_take(struct bio_forest *f, struct bio_tree *t,
		     void (*show)(const struct bio_forest *f, const struct bio_tree *t));
/*
 * Hand each tree that ended before `before` (ns), or, with all, every
 * tree, to show(), oldest first, its events sorted by time; then forget
 * it. The number handed out.
 */
int bio_forest_flush(struct bio_forest *f, __u64 before, bool all,
		     void (*show)(const struct bio_forest *f, const struct bio_tree *t));

#endif /* __BIO_FOREST_H */
