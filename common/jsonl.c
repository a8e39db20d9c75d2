// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* JSON lines: see jsonl.h; the fields are documented in docs/json.md. */
#include "jsonl.h"
#include "page.h"

static void key(const char *k)
{
	printf(",");
	page_json_str(stdout, k);
	printf(":");
}

void json_begin(const char *type)
{
	printf("{\"type\":");
	page_json_str(stdout, type);
}

void json_u64(const char *k, unsigned long long v)
{
	key(k);
	printf("%llu", v);
}

void json_hex(const char *k, unsigned long long v)
{
	key(k);
	printf("\"0x%llx\"", v);
}

void json_num(const char *k, double v)
{
	key(k);
	printf("%.6f", v);
}

void json_str(const char *k, const char *s)
{
	key(k);
	page_json_str(stdout, s);
}

void json_bool(const char *k, bool v)
{
	key(k);
	printf(v ? "true" : "false");
}

void json_u64s(const char *k, const unsigned long long *v, int n)
{
	key(k);
	printf("[");
	for (int i = 0; i < n; i++)
		printf("%s%llu", i ? "," : "", v[i]);
	printf("]");
}

void json_strs(const char *k, char (*s)[128], int n)
{
	key(k);
	printf("[");
	for (int i = 0; i < n; i++) {
		printf("%s", i ? "," : "");
		page_json_str(stdout, s[i]);
	}
	printf("]");
}

void json_end(void)
{
	printf("}\n");
}
