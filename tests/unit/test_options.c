// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests of common/options.c helpers and door names. */
#include <limits.h>
#include "tap.h"
#include "options.h"

int main(void)
{
	enum door d = DOOR_AUTO;

	is_int(parse_positive("42", 100), 42, "parse_positive: 42");
	is_int(parse_positive("0", 100), -1, "parse_positive: 0 is refused");
	is_int(parse_positive("-5", 100), -1, "parse_positive: negative is refused");
	is_int(parse_positive("+5", 100), -1, "parse_positive: a sign is refused");
	is_int(parse_positive("12ab", 100), -1, "parse_positive: trailing junk is refused");
	is_int(parse_positive("", 100), -1, "parse_positive: empty is refused");
	is_int(parse_positive(NULL, 100), -1, "parse_positive: NULL is refused");
	is_int(parse_positive("101", 100), -1, "parse_positive: above max is refused");
	is_int(parse_positive("99999999999999999999", LONG_MAX), -1,
	       "parse_positive: overflow is refused");
	is_int(parse_positive(" 7", 100), -1, "parse_positive: leading space is refused");

	is_int(door_from_name("kprobe", &d), 0, "door kprobe is known");
	is_int(d, DOOR_KPROBE, "door kprobe parses to DOOR_KPROBE");
	is_int(door_from_name("tracepoint", &d), 0, "door tracepoint is known");
	is_str(door_name(d), "tracepoint", "door name round-trips");
	ok(door_from_name("Kprobe", &d) != 0, "door names are case-sensitive");
	ok(door_from_name("", &d) != 0, "empty door is refused");

	is_int(disk_to_dev("no_such_disk"), 0, "disk_to_dev: unknown disk is 0");
	is_int(disk_to_dev("../../etc"), 0, "disk_to_dev: a path outside /dev is 0");
	is_int(disk_to_dev("/dev/"), 0, "disk_to_dev: empty name is 0");
	return done();
}
