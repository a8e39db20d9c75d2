// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Unit tests of common/jsonl.c: the objects a stage writes from its
 * events, strings escaped, numbers as they are.
 */
#include <stdlib.h>
#include <unistd.h>
#include "jsonl.h"
#include "tap.h"

static FILE *out;
static int saved = -1;

/* stdout into a temporary file, until captured() */
static void capture(void)
{
	fflush(stdout);
	out = tmpfile();
	saved = dup(1);
	dup2(fileno(out), 1);
}

static char *captured(void)
{
	static char buf[1024];
	size_t n;

	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	rewind(out);
	n = fread(buf, 1, sizeof(buf) - 1, out);
	buf[n] = '\0';
	fclose(out);
	return buf;
}

int main(void)
{
	unsigned long long v[3] = { 1, 0, 18446744073709551615ULL };
	char s[2][128] = { "submit_bio+0x5", "a\"b\\c\n" };

	capture();
	json_begin("latency");
	json_hex("bio", 0xffff8881042a6e00ULL);
	json_u64("start_ns", 1234567890123ULL);
	json_u64("latency_ns", 96804);
	json_end();
	is_str(captured(),
	       "{\"type\":\"latency\",\"bio\":\"0xffff8881042a6e00\",\"start_ns\":1234567890123,"
	       "\"latency_ns\":96804}\n",
	       "a latency object: hex as a string, numbers as they are");

	capture();
	json_begin("lookup");
	json_str("comm", "my \"reader\"\t");
	json_num("time_s", 1.5);
	json_end();
	is_str(captured(), "{\"type\":\"lookup\",\"comm\":\"my \\\"reader\\\"\\t\",\"time_s\":1.500000}\n",
	       "a string escaped; a number with six decimals");

	capture();
	json_begin("bio");
	json_bool("ended", true);
	json_bool("submitted", false);
	json_end();
	is_str(captured(), "{\"type\":\"bio\",\"ended\":true,\"submitted\":false}\n",
	       "booleans as JSON's true and false");

	capture();
	json_begin("stack");
	json_u64s("counts", v, 3);
	json_strs("frames", s, 2);
	json_end();
	is_str(captured(),
	       "{\"type\":\"stack\",\"counts\":[1,0,18446744073709551615],"
	       "\"frames\":[\"submit_bio+0x5\",\"a\\\"b\\\\c\\n\"]}\n",
	       "arrays of numbers (2^64-1 whole) and of escaped strings");

	capture();
	json_begin("max");
	json_end();
	is_str(captured(), "{\"type\":\"max\"}\n", "an object with no fields");

	/* a task's name cut at 15 bytes inside a character: JSON stays UTF-8 */
	capture();
	json_begin("task");
	json_str("comm", "caf\xc3\xa9-\xe2\x82\xac");
	json_str("cut", "write-\xe2\x82");
	json_str("bad", "\xc0\xaf\xed\xa0\x80\xff");
	json_end();
	is_str(captured(),
	       "{\"type\":\"task\",\"comm\":\"caf\xc3\xa9-\xe2\x82\xac\","
	       "\"cut\":\"write-\\ufffd\\ufffd\","
	       "\"bad\":\"\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\"}\n",
	       "UTF-8 as it is; a cut, overlong or surrogate sequence, byte by byte, as U+FFFD");
	return done();
}
