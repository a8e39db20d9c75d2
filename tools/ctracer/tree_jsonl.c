// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* ctracer's bios as JSON lines: see tree_jsonl.h and docs/json.md. */
#include <string.h>
#include "jsonl.h"
#include "page.h"
#include "tree_jsonl.h"

/* "READ SYNC|IDLE" as "op":"READ","flags":"SYNC|IDLE": a reader wants the op alone. */
static void op_flags(const struct req_names *names, __u32 opf)
{
	char buf[128], *flags;

	req_opf_str(names, opf, buf, sizeof(buf));
	flags = strchr(buf, ' ');
	if (flags)
		*flags++ = '\0';
	json_str("op", buf);
	json_str("flags", flags ? flags : "");
}

void tree_jsonl_bio(struct tree_jsonl *p, const struct tree_bio *b)
{
	if (!p->on)
		return;
	json_begin("bio");
	json_hex("bio", b->addr);
	if (b->parent)
		json_hex("parent", b->parent);
	if (b->stacked)		/* parent: the bio above it was sent for */
		json_bool("stacked", true);
	json_str("disk", b->disk);
	json_u64("sector", b->sector);
	json_u64("size", b->size);
	op_flags(p->names, b->opf);
	json_u64("first_ns", b->first);
	json_u64("last_ns", b->last);
	json_bool("submitted", b->submitted);
	json_bool("ended", b->ended);
	printf(",\"events\":[");
	p->events = 0;
}

void tree_jsonl_row(struct tree_jsonl *p, const struct tree_row *r)
{
	if (!p->on || r->close)
		return;
	/* jsonl.h writes an object's members; this one opens with its first */
	printf("%s{\"point\":", p->events++ ? "," : "");
	page_json_str(stdout, r->point);
	json_u64("ts_ns", r->ts);
	json_u64("at_ns", r->at);
	json_u64("cpu", r->cpu);
	json_str("ctx", r->ctx);
	json_u64("tid", r->tid);
	json_str("comm", r->comm);
	json_u64("sector", r->sector);
	json_u64("size", r->size);
	json_u64("status", r->status);
	json_bool("end", r->end);
	if (r->dur >= 0)	/* -r, its return seen */
		json_u64("dur_ns", r->dur);
	printf("}");
}

void tree_jsonl_bio_end(struct tree_jsonl *p, const struct btt_marks *m)
{
	const char *sep = "";
	__u64 ns;

	if (!p->on)
		return;
	printf("],\"btt_ns\":{");
	for (int i = 0; i < BTT_PHASES; i++) {
		if (!btt_phase(m, i, &ns))
			continue;
		printf("%s\"%s\":%llu", sep, btt_phase_name(i), (unsigned long long)ns);
		sep = ",";
	}
	printf("}");
	json_end();
}
