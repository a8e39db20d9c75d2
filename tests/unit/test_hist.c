// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of common/hist.c: slot bounds, bars, heat-map rows. */
#include <stdlib.h>
#include <string.h>
#include "hist.h"
#include "tap.h"

/* Print into a memory buffer and return it (caller frees). */
static char *printed(const unsigned long long *slots, int n, const char *unit)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	print_log2_hist(f, slots, n, unit);
	fclose(f);
	return buf;
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static int longest_line(const char *s)
{
	int max = 0, cur = 0;

	for (; *s; s++) {
		if (*s == '\n') {
			max = cur > max ? cur : max;
			cur = 0;
		} else {
			cur++;
		}
	}
	return max;
}

/* The count column of the row whose range starts at low; -1 if none. */
static long long row_count(const char *text, unsigned long long low)
{
	char want[32];
	const char *line = text;

	snprintf(want, sizeof(want), "%llu -> ", low);
	while (line && *line) {
		const char *p = line;
		unsigned long long lo, hi, count;

		while (*p == ' ')
			p++;
		if (!strncmp(p, want, strlen(want)) &&
		    sscanf(p, "%llu -> %llu : %llu", &lo, &hi, &count) == 3)
			return count;
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return -1;
}

static void test_slots(void)
{
	is_int(hist_slot(0), 0, "slot of 0 is 0");
	is_int(hist_slot(1), 0, "slot of 1 is 0");
	is_int(hist_slot(2), 1, "slot of 2 is 1");
	is_int(hist_slot(3), 1, "slot of 3 is 1");
	is_int(hist_slot(4), 2, "slot of 4 is 2");
	is_int(hist_slot(1023), 9, "slot of 1023 is 9");
	is_int(hist_slot(1024), 10, "slot of 1024 is 10");
	is_int(hist_slot(0xffffffffULL), 31, "slot of 2^32-1 is 31");
	is_int(hist_slot(0x100000000ULL), 32, "slot of 2^32 is 32");
	is_int(hist_slot(~0ULL), 63, "slot of 2^64-1 is 63");
	for (int i = 1; i < 64; i++) {
		unsigned long long v = 1ULL << i;

		if (hist_slot(v) != (unsigned int)i || hist_slot(v - 1) != (unsigned int)i - 1) {
			ok(0, "slot bounds at 2^%d", i);
			return;
		}
	}
	ok(1, "every power of two starts a slot, the value below ends the last");
}

static void test_bars(void)
{
	unsigned long long s[HIST_SLOTS] = { 0 };
	char *out;

	out = printed(s, HIST_SLOTS, "usecs");
	is_str(out, "(no events)\n", "an empty histogram says so");
	free(out);

	s[0] = 1;	/* 0-1 */
	s[3] = 40;	/* 8-15 */
	s[5] = 3;	/* 32-63 */
	out = printed(s, HIST_SLOTS, "usecs");
	is_int(count_lines(out), 1 + 6, "header and slots 0..5, up to the last used");
	ok(strstr(out, "usecs") && strstr(out, "count    distribution"), "header names unit and columns");
	is_int(row_count(out, 0), 1, "0 -> 1 counts 1");
	is_int(row_count(out, 8), 40, "8 -> 15 counts 40");
	is_int(row_count(out, 32), 3, "32 -> 63 counts 3");
	is_int(row_count(out, 64), -1, "no row past the last used slot");
	ok(strstr(out, "8 -> 15 ") != NULL, "slot 3 is 8 -> 15");
	ok(strstr(out, "|****************************************|"), "the busiest slot has the full bar");
	ok(strstr(out, ": 1        |*                                       |") != NULL,
	   "a slot of 1 against 40 still shows one star");
	ok(longest_line(out) < 80, "under 80 columns (%d)", longest_line(out));
	free(out);

	memset(s, 0, sizeof(s));
	s[HIST_SLOTS - 1] = 7;	/* 2^31 … 2^32 - 1 */
	out = printed(s, HIST_SLOTS, "usecs");
	is_int(row_count(out, 1ULL << 31), 7, "last slot: 2147483648 -> 4294967295 counts 7");
	ok(strstr(out, "4294967295") != NULL, "its upper bound is printed in full");
	ok(longest_line(out) < 80, "last slot still under 80 columns (%d)", longest_line(out));
	free(out);

	{
		unsigned long long big[64] = { 0 };

		big[63] = 2;
		big[1] = 1;
		out = printed(big, 64, "nsecs");
		is_int(row_count(out, 1ULL << 63), 2, "64-bit slots: the top slot prints");
		ok(strstr(out, "18446744073709551615") != NULL, "top bound is 2^64 - 1");
		ok(longest_line(out) < 80, "64 slots: still under 80 columns (%d)", longest_line(out));
		free(out);
	}
}

static void test_heat(void)
{
	unsigned long long s[8] = { 0, 1, 0, 100, 50, 0, 0, 2 };
	char buf[256], small[4];

	is_int(hist_shade(0, 100), 0, "an empty slot is blank");
	is_int(hist_shade(1, 1000000), 1, "one event among many is still visible");
	is_int(hist_shade(100, 100), HIST_SHADES - 1, "the busiest slot is darkest");
	is_int(hist_shade(99, 100), HIST_SHADES - 2, "only the busiest is darkest");

	hist_heat_row(buf, sizeof(buf), s, 8, false);
	is_int(strlen(buf), 8 * HIST_CELL, "text row: HIST_CELL characters per slot");
	ok(buf[0] == ' ' && buf[2 * HIST_CELL] == ' ' && buf[5 * HIST_CELL] == ' ',
	   "empty slots are blanks");
	ok(buf[1 * HIST_CELL] != ' ' && buf[7 * HIST_CELL + 1] != ' ', "small slots are visible");
	ok(buf[3 * HIST_CELL] == '@', "busiest slot is the darkest character");

	hist_heat_row(buf, sizeof(buf), s, 8, true);
	ok(strncmp(buf, "\033[49m  ", 7) == 0, "colour row: an empty slot keeps the terminal's background");
	ok(strstr(buf, "\033[48;5;232m  ") != NULL, "colour row: the busiest slot is darkest grey");
	ok(strlen(buf) > 4 && !strcmp(buf + strlen(buf) - 4, "\033[0m"),
	   "colour row switches the colour off");

	hist_heat_row(small, sizeof(small), s, 8, false);
	is_int(strlen(small), 2, "a short buffer takes the whole cells that fit");
	hist_heat_row(buf, 20, s, 8, true);
	ok(strlen(buf) < 20 && !strcmp(buf + strlen(buf) - 4, "\033[0m"),
	   "short colour buffer: whole cells, colour still switched off");
}

int main(void)
{
	test_slots();
	test_bars();
	test_heat();
	return done();
}
