// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* START[-END] in sectors: see sector_range.h. */
#include <errno.h>
#include <stdlib.h>
#include "sector_range.h"

/*
 * Decimal digits, up to the first other character (returned), or NULL.
 * strtoull alone would take " 5", "+5", 0x10, read 010 as octal and wrap
 * "-5" to 2^64 - 5.
 */
static const char *parse_sector(const char *s, unsigned long long *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return NULL;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno ? NULL : end;
}

int parse_sector_range(const char *arg, unsigned long long *first, unsigned long long *last)
{
	const char *end = parse_sector(arg, first);

	if (!end)
		return -1;
	*last = *first;
	if (*end == '-')
		end = parse_sector(end + 1, last);
	return !end || *end || *last < *first ? -1 : 0;
}
