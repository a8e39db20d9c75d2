/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Events grouped per bio, each group (a tree) in time order, in a hash
 * table keyed by the bio's address: the store behind ctracer's trees.
 * An event is the program's own struct, copied whole; the store reads only
 * its time. When a tree begins and ends is the program's to say.
 */
#ifndef __BIO_TREES_H
#define __BIO_TREES_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#define BIO_TREES_BUCKETS 4096
#define BIO_TREES_TIMED_OUT 256	/* the last timed-out trees' bios, remembered */

struct bio_tree {
	struct bio_tree *next;	/* hash chain */
	__u64 bio;
	__u64 life;		/* its number: an address has many lives */
	void *ev;		/* n events, oldest first */
	int n, cap;
	unsigned int flags;	/* its events' flags, or-ed */
	double ended_at;	/* the program's clock when its end arrived */
	bool timed_out;		/* taken without its end: no event for too long */
	bool cut;		/* taken without its end: its address began a new bio */
	/*
	 * A bio others are chained to (bio_chain(): a split's parts) ends
	 * when they all have: its tree waits for this many more ends.
	 */
	int parts;
	__u64 parts_end;	/* the last of its parts' ends (their time, ns) */
	__u64 part_of, part_of_life;	/* while counted in another's parts: that tree */
};

struct bio_trees {
	size_t size;		/* of an event */
	size_t ts_off;		/* where in it its time (__u64 ns) is */
	unsigned int end;	/* the flag that ends a tree */
	struct bio_tree *b[BIO_TREES_BUCKETS];
	__u64 lives;		/* trees begun so far: the next one's life */
	__u64 timed_out[BIO_TREES_TIMED_OUT];	/* a ring: see bio_trees_late() */
	unsigned int n_timed_out;
};

struct bio_tree *bio_tree_find(struct bio_trees *s, __u64 bio);
/* e into bio's tree, a new one if it has none; NULL when out of memory. */
struct bio_tree *bio_tree_add(struct bio_trees *s, __u64 bio, const void *e, unsigned int flags);
/* Out of the table (to print it now); then bio_tree_free() it. */
void bio_tree_remove(struct bio_trees *s, struct bio_tree *t);
void bio_tree_free(struct bio_tree *t);
/*
 * Out of the table, oldest first: the trees ended before `before` (with
 * no part still to end), and those without an end whose last event is
 * older than idle_ns (timed out); every tree when all. *n of them; free
 * each and the array.
 */
struct bio_tree **bio_trees_take(struct bio_trees *s, double before, __u64 idle_ns, bool all,
				 int *n);
/*
 * Was bio's tree taken timed out (one of the last BIO_TREES_TIMED_OUT)?
 * Then an event of it now is late, not a new bio. new_life: the address
 * begins a new bio (a begin or a submit): forgotten, and false.
 */
bool bio_trees_late(struct bio_trees *s, __u64 bio, bool new_life);

#endif /* __BIO_TREES_H */
