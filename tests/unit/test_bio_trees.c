// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of tools/ctracer/bio_trees.c: trees taken ended or timed out, late events. */
#include <stdlib.h>
#include "bio_trees.h"
#include "tap.h"

struct ev {
	__u64 ts;
	unsigned int flags;
};

#define END 0x4

int main(void)
{
	struct bio_trees *s = calloc(1, sizeof(*s));
	struct ev e1 = { 1000, 0 }, e2 = { 2000, END }, e3 = { 1500, 0 };
	struct bio_tree **out;
	int n;

	if (!s)
		return 1;
	s->size = sizeof(struct ev);
	s->end = END;
	/* bio 0xa ends; bio 0xb has no end and no event after 1500 ns */
	bio_tree_add(s, 0xa, &e1, e1.flags);
	bio_tree_add(s, 0xa, &e2, e2.flags)->ended_at = 1.0;
	bio_tree_add(s, 0xb, &e3, e3.flags);
	out = bio_trees_take(s, 2.0, 1800, false, &n);
	is_int(n, 2, "both taken: one ended, one idle since before 1800 ns");
	is_int(out && n == 2 && out[0]->bio == 0xa && !out[0]->timed_out, 1, "0xa first, ended");
	is_int(out && n == 2 && out[1]->bio == 0xb && out[1]->timed_out, 1, "0xb timed out");
	for (int i = 0; i < n; i++)
		bio_tree_free(out[i]);
	free(out);
	ok(bio_trees_late(s, 0xb, false), "an event of 0xb now is late");
	ok(bio_trees_late(s, 0xb, false), "and the next one too");
	ok(!bio_trees_late(s, 0xa, false), "0xa ended: an event of it starts a tree");
	ok(!bio_trees_late(s, 0xb, true), "0xb begun again: a new bio, not late");
	ok(!bio_trees_late(s, 0xb, false), "and forgotten after");
	free(s);
	return done();
}
