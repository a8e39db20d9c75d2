/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * log2 histograms: the slot a value falls in (shared by the BPF side, so
 * both sides agree on the bounds) and, on the user side, printing one as
 * bars (print_log2_hist) or as one row of a heat map.
 */
#ifndef __HIST_H
#define __HIST_H

/* Slot i holds [2^i, 2^(i+1)); slot 0 also holds 0. 2^32 us is 71 minutes. */
#define HIST_SLOTS 32

/* floor(log2(v)), 0 for 0; no loops, so the verifier takes it as is. */
static inline unsigned int hist_slot(unsigned long long v)
{
	unsigned int r, s;

	r = (v > 0xffffffffULL) << 5;
	v >>= r;
	s = (v > 0xffff) << 4;
	v >>= s;
	r |= s;
	s = (v > 0xff) << 3;
	v >>= s;
	r |= s;
	s = (v > 0xf) << 2;
	v >>= s;
	r |= s;
	s = (v > 0x3) << 1;
	v >>= s;
	r |= s;
	return r | (unsigned int)(v >> 1);
}

#ifndef __bpf__
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/*
 * Bars, one line per slot up to the last one used, under 80 columns:
 *     usecs               : count    distribution
 *         4 -> 7          : 12       |*******                   |
 * Prints "(no events)" when every slot is 0.
 */
void print_log2_hist(FILE *out, const unsigned long long *slots, int n, const char *unit);

/* Sum of n slots. */
unsigned long long hist_total(const unsigned long long *slots, int n);

/*
 * One heat-map row of n slots into buf: one cell of HIST_CELL columns per
 * slot, shaded by its count against the row's busiest slot; an empty
 * slot is blank, any other is visible. color: ANSI background colours
 * rather than characters. Only whole cells; returns buf.
 */
#define HIST_CELL 2
char *hist_heat_row(char *buf, size_t len, const unsigned long long *slots, int n,
		    bool color);

/* The shade (0 = empty … HIST_SHADES - 1 = busiest) of count against max. */
#define HIST_SHADES 10
int hist_shade(unsigned long long count, unsigned long long max);

#endif /* !__bpf__ */
#endif /* __HIST_H */
