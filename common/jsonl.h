/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * --json: one JSON object per line on stdout instead of the human lines
 * (JSON lines: jq, a plotting script and the tests read them). Field
 * names and units are in docs/json.md. A stage writes its own objects
 * with these calls:
 *	json_begin("max");
 *	json_hex("bio", m.bio);
 *	json_u64("latency_ns", m.duration);
 *	json_end();
 * Stages 03-09 write one object per ring buffer event, from its struct.
 */
#ifndef __JSONL_H
#define __JSONL_H

#include <stdbool.h>
#include <stdio.h>

/* {"type":TYPE  ... the fields ...  }\n, on stdout. */
void json_begin(const char *type);
void json_u64(const char *key, unsigned long long v);
void json_hex(const char *key, unsigned long long v);	/* "0x…" */
void json_num(const char *key, double v);		/* %.6f */
void json_str(const char *key, const char *s);
void json_bool(const char *key, bool v);		/* true, false */
/* "key":[v0,v1,…] */
void json_u64s(const char *key, const unsigned long long *v, int n);
/* "key":["s0","s1",…] */
void json_strs(const char *key, char (*s)[128], int n);
void json_end(void);

#endif /* __JSONL_H */
