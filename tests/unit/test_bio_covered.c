// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of common/bio_covered.h, the rule both rq->bio walkers use
 * (bio_end.bpf.h, tools/ctracer/ctracer.bpf.c), against the kernel's own
 * walk in blk_update_request(): each bio takes min(its size, what is
 * left) bytes, ends if that is all of it, and the walk stops once the
 * bytes run out.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <linux/types.h>
#include "bio_covered.h"
#include "tap.h"

#define MAX_BIOS 8

/* The kernel's walk: marks the bios this completion ends, advances the rest. */
static void kernel_update(__u32 *size, int n, __u32 nr_bytes, bool *ended)
{
	for (int i = 0; i < n && nr_bytes; i++) {
		__u32 bytes = size[i] < nr_bytes ? size[i] : nr_bytes;

		if (ended[i])
			continue;
		ended[i] = bytes == size[i];
		size[i] -= bytes;	/* bio_advance() */
		nr_bytes -= bytes;
	}
}

/* The walkers' view: bios still in rq->bio, each with bio_covered(). */
static int walker_update(const __u32 *size, const bool *gone, int n, __u32 nr_bytes,
			 bool *ends)
{
	__s64 left = nr_bytes;
	int count = 0;

	for (int i = 0; i < n; i++) {
		ends[i] = false;
		if (gone[i])
			continue;
		ends[i] = bio_covered(size[i], &left);
		count += ends[i];
	}
	return count;
}

int main(void)
{
	__u32 size[MAX_BIOS] = { 8192, 8192, 4096 };
	bool gone[MAX_BIOS] = { false }, ends[MAX_BIOS];
	int n;

	/* the case a walker that skips a partly done bio gets wrong */
	n = walker_update(size, gone, 3, 12288, ends);
	is_int(n, 1, "12 KiB over bios of 8, 8 and 4 KiB ends one bio");
	ok(ends[0] && !ends[1] && !ends[2], "the first 8 KiB one, not the 4 KiB one behind the partly done one");
	kernel_update(size, 3, 12288, gone);
	is_int(size[1], 4096, "the kernel advanced the second bio by the 4 KiB left");
	n = walker_update(size, gone, 3, 8192, ends);
	is_int(n, 2, "then 8 KiB ends the other two");
	ok(!ends[0] && ends[1] && ends[2], "the second and the third");

	/* a bio of 0 bytes (a flush) behind a partly done one does not end */
	{
		__s64 left = 4096;

		ok(!bio_covered(8192, &left) && !bio_covered(0, &left),
		   "nothing ends behind a partly done bio, not even an empty one");
	}

	/* random requests and completions against the kernel's walk */
	srandom(25);
	for (int round = 0; round < 20000; round++) {
		__u32 sz[MAX_BIOS], total = 0;
		bool k_ended[MAX_BIOS] = { false }, w_gone[MAX_BIOS] = { false };
		int nb = 1 + random() % MAX_BIOS, bad = 0;

		for (int i = 0; i < nb; i++) {
			sz[i] = (1 + random() % 16) * 512;
			total += sz[i];
		}
		while (total) {
			__u32 nr = 512 * (1 + random() % (total / 512));
			bool before[MAX_BIOS];

			walker_update(sz, w_gone, nb, nr, ends);
			for (int i = 0; i < nb; i++)
				before[i] = k_ended[i];
			kernel_update(sz, nb, nr, k_ended);
			for (int i = 0; i < nb; i++) {
				bad |= ends[i] != (k_ended[i] && !before[i]);
				w_gone[i] = k_ended[i];
			}
			total -= nr;
		}
		if (bad) {
			ok(0, "round %d: the walker and the kernel disagree", round);
			return done();
		}
	}
	ok(1, "20000 random requests: every completion ends the bios the kernel ends");
	return done();
}
