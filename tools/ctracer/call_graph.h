/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Calls and returns as ftrace's function graph prints them: each return
 * paired with its call, nested by thread, a call that returned before
 * anything else happened on one line ("name()  1.2 us").
 */
#ifndef __CALL_GRAPH_H
#define __CALL_GRAPH_H

#include <stdbool.h>
#include <linux/types.h>

/* A function entered, or left; given in time order. */
struct call_ev {
	__u64 who;		/* the thread, or an interrupt of a CPU */
	__u64 ts;		/* ns */
	__u32 id;		/* the function */
	bool ret;		/* its return */
};

/* One line of the graph: a function entered (or left, close). */
struct call_row {
	int ev;			/* its entry, an index into the events */
	int depth;		/* calls open in the same thread then */
	long long dur;		/* ns to its return, -1: none seen */
	bool leaf;		/* entered and left on one line */
	bool close;		/* a "}" line */
};

/*
 * The rows of n events, into rows (room for n); their number. nest:
 * returns were traced, so calls open without one nest those after them.
 * *unreturned: the calls whose return was not seen.
 */
int call_graph(const struct call_ev *ev, int n, bool nest, struct call_row *rows,
	       int *unreturned);

#endif /* __CALL_GRAPH_H */
