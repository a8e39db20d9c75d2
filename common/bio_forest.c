// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Events per bio until the bio ends: see bio_forest.h. */
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include "bio_forest.h"

/* tsearch() orders the trees by the bio's address. */
static int by_bio(const void *a, const void *b)
{
	const struct bio_tree *x = a, *y = b;

	return x->bio < y->bio ? -1 : x->bio > y->bio;
}

struct bio_tree *bio_tree_find(struct bio_forest *f, __u64 bio)
{
	struct bio_tree key = { .bio = bio };
	void **node = tfind(&key, &f->index, by_bio);

	return node ? *node : NULL;
}

/* A new, empty tree for bio, last in the list; NULL: out of memory. */
static struct bio_tree *plant(struct bio_forest *f, __u64 bio)
{
	struct bio_tree *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->bio = bio;
	if (!tsearch(t, &f->index, by_bio)) {
		free(t);
		return NULL;
	}
	t->prev = f->last;
	if (f->last)
		f->last->next = t;
	else
		f->first = t;
	f->last = t;
	return t;
}

static void forget(struct bio_forest *f, struct bio_tree *t)
{
	tdelete(t, &f->index, by_bio);
	if (t->prev)
		t->prev->next = t->next;
	else
		f->first = t->next;
	if (t->next)
		t->next->prev = t->prev;
	else
		f->last = t->prev;
	free(t->ev);
	free(t);
}

struct bio_tree *bio_tree_add(struct bio_forest *f, __u64 bio, const void *ev)
{
	struct bio_tree *t = bio_tree_find(f, bio);

	if (!t && !(t = plant(f, bio)))
		return NULL;
	if (t->n == t->cap) {
		/* the tracepoint door gives a bio 5 or 6 events, a function door dozens */
		int cap = t->cap ? 2 * t->cap : 8;
		char *more = realloc(t->ev, cap * f->size);

		if (!more) {
			if (!t->n)
				forget(f, t);
			return NULL;
		}
		t->ev = more;
		t->cap = cap;
	}
	memcpy(t->ev + t->n++ * f->size, ev, f->size);
	return t;
}

const void *bio_tree_event(const struct bio_forest *f, const struct bio_tree *t, int i)
{
	return t->ev + i * f->size;
}

static __u64 time_of(const struct bio_forest *f, const char *ev)
{
	__u64 ns;

	memcpy(&ns, ev + f->ts_off, sizeof(ns));
	return ns;
}

static void swap(char *a, char *b, size_t size)
{
	while (size--) {
		char c = *a;

		*a++ = *b;
		*b++ = c;
	}
}

/*
 * The ring buffer is shared by every CPU: an event may arrive a little
 * after a later one of another CPU. The events come nearly sorted, so an
 * insertion sort, which also keeps events of the same time in their order.
 */
static void sort_events(const struct bio_forest *f, struct bio_tree *t)
{
	for (int i = 1; i < t->n; i++)
		for (char *e = t->ev + i * f->size;
		     e > t->ev && time_of(f, e - f->size) > time_of(f, e); e -= f->size)
			swap(e - f->size, e, f->size);
}

void bio_forest_take(struct bio_forest *f, struct bio_tree *t,
		     void (*show)(const struct bio_forest *f, const struct bio_tree *t))
{
	sort_events(f, t);
	show(f, t);
	forget(f, t);
}

int bio_forest_flush(struct bio_forest *f, __u64 before, bool all,
		     void (*show)(const struct bio_forest *f, const struct bio_tree *t))
{
	struct bio_tree *t = f->first, *next;
	int n = 0;

	for (; t; t = next) {
		next = t->next;
		if (!all && (!t->end_ns || t->end_ns >= before))
			continue;
		bio_forest_take(f, t, show);
		n++;
	}
	return n;
}
