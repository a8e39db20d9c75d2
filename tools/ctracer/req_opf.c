// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* bi_opf in words, from BTF: see req_opf.h. */
#include <stdio.h>
#include <string.h>
#include "req_opf.h"

void req_names_read(struct req_names *rn, const struct btf *btf)
{
	memset(rn, 0, sizeof(*rn));
	for (__u32 id = 1; id < btf__type_cnt(btf); id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const struct btf_enum *e;
		const char *tn;

		if (!btf_is_enum(t))
			continue;
		tn = btf__name_by_offset(btf, t->name_off);
		if (strcmp(tn, "req_op") && strcmp(tn, "req_flag_bits"))
			continue;
		e = btf_enum(t);
		for (int i = 0; i < btf_vlen(t); i++, e++) {
			const char *n = btf__name_by_offset(btf, e->name_off);

			if (!strncmp(n, "REQ_OP_", 7) && e->val >= 0 && e->val < 256)
				rn->op[e->val] = n + 7;
			else if (!strncmp(n, "__REQ_", 6) && e->val >= 0 && e->val < 32 &&
				 strcmp(n, "__REQ_NR_BITS"))
				rn->flag[e->val] = n + 6;
		}
	}
}

const char *req_opf_str(const struct req_names *rn, __u32 opf, char *buf, size_t len)
{
	const char *op = rn->op[opf & 0xff] ? rn->op[opf & 0xff] : "OP?";
	size_t n = snprintf(buf, len, "%s", op);

	/* a space after the operation, then | between the flags */
	for (int b = 8; b < 32 && n < len; b++)
		if (opf & 1U << b)
			n += snprintf(buf + n, len - n, "%s%s", n == strlen(op) ? " " : "|",
				      rn->flag[b] ? rn->flag[b] : "?");
	return buf;
}
