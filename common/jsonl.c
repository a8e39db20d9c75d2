// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* JSON lines: see jsonl.h; the fields are documented in docs/json.md. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
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

/*
 * The bpf_printk() messages of the stages, each with its event name.
 * {name:u} is a decimal number, {name:x} hex digits (written "0x…"),
 * {name:s} a function name; everything else must match as it stands.
 * The more specific pattern comes first.
 */
static const struct {
	const char *event;
	const char *pattern;
} formats[] = {
	{ "submit", "submit_bio() called: {time_ns:u}" },
	{ "end", "bio_endio() called: {time_ns:u}" },
	{ "submit", "submit_bio(bio=0x{bio:x}) called: {time_ns:u}" },
	{ "end", "bio_endio (bio=0x{bio:x}) called: {time_ns:u}" },
	{ "latency", "submit_bio() -> bio_endio() time duration: {latency_ns:u} ns" },
	{ "rq_start", "blk_mq_start_request(rq=0x{rq:x}) is called!" },
	{ "rq_end", "{function:s}(rq=0x{rq:x}) is called!" },
	{ "rq_latency", "blk_mq_start_request() -> {function:s}() time duration: {latency_ns:u} ns" },
	{ "lookup", "filemap_get_pages (ino={ino:u} pages={first:u}-{last:u} hit={hit:u} miss={miss:u})" },
	{ "add", "filemap_add_folio (ino={ino:u} index={index:u} pages={pages:u})" },
};

#define MAX_FIELDS 6

struct field {
	char name[16];
	char kind;		/* u, x, s */
	const char *val;	/* into the message */
	int len;
};

/* Match msg against pattern; fills fields, returns their count or -1. */
static int match(const char *pat, const char *msg, struct field *f)
{
	int n = 0;

	while (*pat) {
		const char *close, *colon, *v = msg;
		int (*ok)(int);

		if (*pat != '{') {
			if (*pat++ != *msg++)
				return -1;
			continue;
		}
		close = strchr(pat, '}');
		colon = strchr(pat, ':');
		if (!close || !colon || colon > close || n == MAX_FIELDS ||
		    colon - pat - 1 >= (int)sizeof(f[n].name))
			return -1;
		memcpy(f[n].name, pat + 1, colon - pat - 1);
		f[n].name[colon - pat - 1] = '\0';
		f[n].kind = colon[1];
		ok = f[n].kind == 'u' ? isdigit : f[n].kind == 'x' ? isxdigit : isalnum;
		while (*msg && (ok((unsigned char)*msg) || (f[n].kind == 's' && *msg == '_')))
			msg++;
		if (msg == v)
			return -1;
		f[n].val = v;
		f[n++].len = msg - v;
		pat = close + 1;
	}
	return *msg ? -1 : n;
}

/* A line we cannot take apart: kept whole. */
static int text_line(FILE *out, const char *line)
{
	fprintf(out, "{\"type\":\"line\",\"text\":");
	page_json_str(out, line);
	return fprintf(out, "}\n");
}

int json_trace_line(FILE *out, const char *line)
{
	const char *msg = strstr(line, ": bpf_trace_printk: ");
	char head[256], *p, *task, *ts;
	struct field f[MAX_FIELDS];
	int cpu = -1, n = -1, pid = -1;
	size_t i;

	if (!msg || msg - line >= (long)sizeof(head))
		return text_line(out, line);
	/* "   task-pid   [cpu] flags   time" */
	memcpy(head, line, msg - line);
	head[msg - line] = '\0';
	msg += strlen(": bpf_trace_printk: ");
	ts = strrchr(head, ' ');
	p = strrchr(head, '[');
	if (!ts || !p || p > ts || !ts[1] || strspn(ts + 1, "0123456789.") != strlen(ts + 1))
		return text_line(out, line);
	*ts++ = '\0';
	cpu = atoi(p + 1);
	while (p > head && p[-1] == ' ')
		p--;
	*p = '\0';
	for (task = head; *task == ' '; task++)
		;
	p = strrchr(task, '-');
	if (p) {
		*p = '\0';
		pid = atoi(p + 1);
	}
	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		n = match(formats[i].pattern, msg, f);
		if (n >= 0)
			break;
	}
	if (n < 0)
		return text_line(out, line);
	fprintf(out, "{\"type\":\"event\",\"time_s\":%s,\"cpu\":%d,\"task\":", ts, cpu);
	page_json_str(out, task);
	fprintf(out, ",\"pid\":%d", pid);
	fprintf(out, ",\"event\":\"%s\"", formats[i].event);
	for (int k = 0; k < n; k++) {
		fprintf(out, ",\"%s\":", f[k].name);
		if (f[k].kind == 'u')
			fprintf(out, "%.*s", f[k].len, f[k].val);
		else
			fprintf(out, "\"%s%.*s\"", f[k].kind == 'x' ? "0x" : "", f[k].len, f[k].val);
	}
	return fprintf(out, "}\n");
}
