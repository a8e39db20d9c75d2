// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A ring buffer read in rounds: see ring_rounds.h. */
#include <errno.h>
#include "ring_rounds.h"
#include "tracer.h"

/* The reader's callback, then -EAGAIN once a round is read: consume() stops there. */
static int one(void *ctx, void *data, size_t size)
{
	struct ring_rounds *r = ctx;
	int err = r->fn(r->ctx, data, size);

	if (err)
		return err;
	return --r->left > 0 ? 0 : -EAGAIN;
}

int ring_rounds_open(struct ring_rounds *r, int map_fd, ring_buffer_sample_fn fn, void *ctx,
		     int round)
{
	r->fn = fn;
	r->ctx = ctx;
	r->round = round;
	r->rb = ring_buffer__new(map_fd, one, r, NULL);
	return r->rb ? 0 : -1;
}

void ring_rounds_drain(struct ring_rounds *r, double limit, void (*between)(void))
{
	double t0 = tracer_now();
	int err;

	do {
		r->left = r->round;
		err = ring_buffer__consume(r->rb);
		between();
	} while (err == -EAGAIN && tracer_now() - t0 < limit);
}

void ring_rounds_close(struct ring_rounds *r)
{
	ring_buffer__free(r->rb);
	r->rb = NULL;
}
