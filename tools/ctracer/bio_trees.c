// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Events per bio, in time order: see bio_trees.h. */
#define _GNU_SOURCE		/* qsort_r() */
#include <stdlib.h>
#include <string.h>
#include "bio_trees.h"

static struct bio_tree **bucket(struct bio_trees *s, __u64 bio)
{
	/* the low bits of a slab address say little */
	return &s->b[(bio >> 6 ^ bio >> 18) % BIO_TREES_BUCKETS];
}

static __u64 ts_of(const struct bio_trees *s, const struct bio_tree *t, int i)
{
	__u64 ts;

	memcpy(&ts, (char *)t->ev + i * s->size + s->ts_off, sizeof(ts));
	return ts;
}

struct bio_tree *bio_tree_find(struct bio_trees *s, __u64 bio)
{
	struct bio_tree *t;

	for (t = *bucket(s, bio); t && t->bio != bio; t = t->next)
		;
	return t;
}

struct bio_tree *bio_tree_add(struct bio_trees *s, __u64 bio, const void *e, unsigned int flags)
{
	struct bio_tree *t = bio_tree_find(s, bio);
	__u64 ts;
	int i;

	if (!t) {
		t = calloc(1, sizeof(*t));
		if (!t)
			return NULL;
		t->bio = bio;
		t->life = ++s->lives;
		t->next = *bucket(s, bio);
		*bucket(s, bio) = t;
	}
	if (t->n == t->cap) {
		/* the tracepoint door sends a bio 4 or 5 events: room for 4 first */
		int cap = t->cap ? t->cap * 2 : 4;
		void *ev = realloc(t->ev, cap * s->size);

		if (!ev) {
			if (!t->n) {	/* no tree without an event */
				bio_tree_remove(s, t);
				bio_tree_free(t);
			}
			return NULL;
		}
		t->ev = ev;
		t->cap = cap;
	}
	/* in time order: events of other CPUs may arrive a little late */
	memcpy(&ts, (const char *)e + s->ts_off, sizeof(ts));
	for (i = t->n; i > 0 && ts_of(s, t, i - 1) > ts; i--)
		;
	memmove((char *)t->ev + (i + 1) * s->size, (char *)t->ev + i * s->size,
		(t->n - i) * s->size);
	memcpy((char *)t->ev + i * s->size, e, s->size);
	t->n++;
	t->flags |= flags;
	return t;
}

void bio_tree_free(struct bio_tree *t)
{
	free(t->ev);
	free(t);
}

void bio_tree_remove(struct bio_trees *s, struct bio_tree *t)
{
	struct bio_tree **pp;

	for (pp = bucket(s, t->bio); *pp != t; pp = &(*pp)->next)
		;
	*pp = t->next;
}

static int by_first_ts(const void *a, const void *b, void *s)
{
	__u64 x = ts_of(s, *(struct bio_tree *const *)a, 0);
	__u64 y = ts_of(s, *(struct bio_tree *const *)b, 0);

	return x < y ? -1 : x > y;
}

struct bio_tree **bio_trees_take(struct bio_trees *s, double before, __u64 idle_ns, bool all,
				 int *n)
{
	struct bio_tree **out = NULL;
	int cap = 0;

	*n = 0;
	for (int b = 0; b < BIO_TREES_BUCKETS; b++) {
		for (struct bio_tree **pp = &s->b[b]; *pp;) {
			struct bio_tree *t = *pp;
			bool ended = t->flags & s->end;

			/* ended, but its parts not all: it waits (they time out, not it) */
			t->timed_out = !all && !ended && t->n && ts_of(s, t, t->n - 1) < idle_ns;
			ended = ended && !t->parts;
			if (!all && !(ended && t->ended_at < before) && !t->timed_out) {
				pp = &t->next;
				continue;
			}
			*pp = t->next;
			if (t->timed_out)
				s->timed_out[s->n_timed_out++ % BIO_TREES_TIMED_OUT] = t->bio;
			if (*n == cap) {
				int c = cap ? cap * 2 : 64;
				struct bio_tree **o = realloc(out, c * sizeof(*o));

				if (!o) {
					bio_tree_free(t);	/* unprinted, but not kept */
					continue;
				}
				out = o;
				cap = c;
			}
			out[(*n)++] = t;
		}
	}
	if (*n)
		qsort_r(out, *n, sizeof(*out), by_first_ts, s);
	return out;
}

bool bio_trees_late(struct bio_trees *s, __u64 bio, bool new_life)
{
	unsigned int n = s->n_timed_out < BIO_TREES_TIMED_OUT ? s->n_timed_out :
			 BIO_TREES_TIMED_OUT;

	for (unsigned int i = 0; i < n; i++) {
		if (s->timed_out[i] != bio)
			continue;
		if (new_life)
			s->timed_out[i] = 0;
		return !new_life;
	}
	return false;
}
