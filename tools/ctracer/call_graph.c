// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* ftrace's function graph from calls and returns: see call_graph.h. */
#include <stddef.h>
#include "call_graph.h"

#define STACKS_MAX	16
#define DEPTH_MAX	64

/* The calls open in one thread (or interrupt): their rows. */
struct stack {
	__u64 who;
	int n;
	int at[DEPTH_MAX];
};

static struct stack *stack_of(struct stack *st, int *nst, __u64 who)
{
	for (int i = 0; i < *nst; i++)
		if (st[i].who == who)
			return &st[i];
	if (*nst == STACKS_MAX)
		return NULL;
	st[*nst].who = who;
	st[*nst].n = 0;
	return &st[(*nst)++];
}

/*
 * A return closes the latest open call of its function in its thread;
 * the calls above it never returned while we watched (a return missed).
 */
int call_graph(const struct call_ev *ev, int n, bool nest, struct call_row *rows,
	       int *unreturned)
{
	struct stack st[STACKS_MAX], *k;
	int nst = 0, nr = 0, j;

	for (int i = 0; i < n; i++) {
		k = stack_of(st, &nst, ev[i].who);
		if (!ev[i].ret) {
			rows[nr] = (struct call_row){ .ev = i, .depth = k ? k->n : 0, .dur = -1 };
			if (nest && k && k->n < DEPTH_MAX)
				k->at[k->n++] = nr;
			nr++;
			continue;
		}
		for (j = k ? k->n - 1 : -1; j >= 0 && ev[rows[k->at[j]].ev].id != ev[i].id; j--)
			;
		if (j < 0)
			continue;	/* its call was not seen */
		k->n = j;
		rows[k->at[j]].dur = ev[i].ts - ev[rows[k->at[j]].ev].ts;
		if (k->at[j] == nr - 1) {
			rows[nr - 1].leaf = true;
			continue;
		}
		rows[nr++] = (struct call_row){ .ev = rows[k->at[j]].ev, .depth = j,
						.dur = rows[k->at[j]].dur, .close = true };
	}
	*unreturned = 0;
	for (int i = 0; i < nr; i++)
		*unreturned += nest && !rows[i].close && rows[i].dur < 0;
	return nr;
}
