/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ctracer's -j: each bio's tree as one "bio" JSON object on stdout,
 * its events in an array, written from the rows the views get
 * (tree_view.h). Field names and units are in docs/json.md.
 */
#ifndef __TREE_JSONL_H
#define __TREE_JSONL_H

#include <stdbool.h>
#include "btt.h"
#include "req_opf.h"
#include "tree_view.h"

struct tree_jsonl {
	bool on;			/* -j: else every call does nothing */
	const struct req_names *names;	/* bi_opf in words */
	int events;			/* of the bio being written, so far */
};

/*
 * As tree_view.h's: a bio, each of its rows in order (a "}" row adds
 * nothing: its call's event has the duration), then its btt phases,
 * which end its line.
 */
void tree_jsonl_bio(struct tree_jsonl *p, const struct tree_bio *b);
void tree_jsonl_row(struct tree_jsonl *p, const struct tree_row *r);
void tree_jsonl_bio_end(struct tree_jsonl *p, const struct btt_marks *m);

#endif /* __TREE_JSONL_H */
