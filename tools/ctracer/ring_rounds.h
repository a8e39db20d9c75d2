/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A ring buffer read in rounds: at most round events, then a call to
 * between() (ctracer prints and frees the trees that ended), then the
 * next round. Under a flood the buffer never empties, and
 * ring_buffer__consume() would not return until it did: whatever the
 * reader builds from the events would pile up meanwhile.
 */
#ifndef __RING_ROUNDS_H
#define __RING_ROUNDS_H

#include <bpf/libbpf.h>

struct ring_rounds {
	struct ring_buffer *rb;
	ring_buffer_sample_fn fn;	/* the reader's own callback */
	void *ctx;
	int round, left;		/* events a round, and left in this one */
};

/* 0, or -1 with errno (ring_buffer__new()'s). */
int ring_rounds_open(struct ring_rounds *r, int map_fd, ring_buffer_sample_fn fn, void *ctx,
		     int round);
/* Rounds until the buffer is empty or limit seconds have passed; between() after each. */
void ring_rounds_drain(struct ring_rounds *r, double limit, void (*between)(void));
void ring_rounds_close(struct ring_rounds *r);

#endif /* __RING_ROUNDS_H */
