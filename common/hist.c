// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* log2 histograms as bars and as heat-map rows: see hist.h. */
#include <string.h>
#include "hist.h"

unsigned long long hist_total(const unsigned long long *slots, int n)
{
	unsigned long long sum = 0;

	for (int i = 0; i < n; i++)
		sum += slots[i];
	return sum;
}

/* Bounds of slot i: [2^i, 2^(i+1) - 1], the first one from 0. */
static unsigned long long slot_low(int i)
{
	return i ? 1ULL << i : 0;
}

static unsigned long long slot_high(int i)
{
	return i >= 63 ? ~0ULL : (1ULL << (i + 1)) - 1;
}

void print_log2_hist(FILE *out, const unsigned long long *slots, int n, const char *unit)
{
	unsigned long long max = 0;
	int last = -1, width, bar, pad;
	char stars[41];

	for (int i = 0; i < n; i++) {
		if (slots[i])
			last = i;
		if (slots[i] > max)
			max = slots[i];
	}
	if (last < 0) {
		fprintf(out, "%s\n", "(no events)");
		return;
	}
	/* Bounds past 2^32 need 20 digits: shorter bars keep it under 80. */
	width = last >= 32 ? 20 : 10;
	bar = last >= 32 ? 20 : 40;
	pad = width - (int)strlen(unit);
	if (pad < 0)
		pad = 0;
	fprintf(out, "%*s%-*s : count    distribution\n", pad, "", 2 * width + 4 - pad, unit);
	for (int i = 0; i <= last; i++) {
		/* rounded up, so a slot with any count shows one star */
		int k = (int)((slots[i] * bar + max - 1) / max);

		memset(stars, '*', k);
		stars[k] = '\0';
		fprintf(out, "%*llu -> %-*llu : %-8llu |%-*s|\n", width, slot_low(i), width,
			slot_high(i), slots[i], bar, stars);
	}
}

int hist_shade(unsigned long long count, unsigned long long max)
{
	if (!count || !max)
		return 0;
	if (count >= max)
		return HIST_SHADES - 1;
	/* 1 … HIST_SHADES - 1, rounded down: only the busiest is darkest */
	return 1 + (int)((count * (HIST_SHADES - 2)) / max);
}

/* From blank to dark, as characters and as 256-colour greys (0: none). */
static const char shade_chars[HIST_SHADES + 1] = " .:-=+*#%@";
static const int shade_colors[HIST_SHADES] = { 0, 252, 249, 246, 243, 240, 237, 235, 233, 232 };

char *hist_heat_row(char *buf, size_t len, const unsigned long long *slots, int n,
		    bool color)
{
	static const char reset[] = "\033[0m";
	unsigned long long max = 0;
	size_t used = 0;

	if (len)
		buf[0] = '\0';
	if (!len || (color && len < sizeof(reset)))
		return buf;
	if (color)
		len -= sizeof(reset) - 1;	/* room to switch the colour off */
	for (int i = 0; i < n; i++)
		if (slots[i] > max)
			max = slots[i];
	for (int i = 0; i < n && used < len; i++) {
		int s = hist_shade(slots[i], max);
		char cell[HIST_CELL + 1];
		int w;

		memset(cell, color ? ' ' : shade_chars[s], HIST_CELL);
		cell[HIST_CELL] = '\0';
		if (color && !s)	/* the terminal's own background */
			w = snprintf(buf + used, len - used, "\033[49m%s", cell);
		else if (color)
			w = snprintf(buf + used, len - used, "\033[48;5;%dm%s", shade_colors[s], cell);
		else
			w = snprintf(buf + used, len - used, "%s", cell);
		if (w < 0 || (size_t)w >= len - used) {
			buf[used] = '\0';	/* never half a cell */
			break;
		}
		used += w;
	}
	if (color)
		strcpy(buf + used, reset);
	return buf;
}
