/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ctracer's views of its trees, one per bio: the terminal's lines, like
 * ftrace's function graph; --trace-json, Chrome trace events (Perfetto and
 * speedscope open them); --html, a page of every bio on one time axis,
 * each bio's timeline and call tree (tree_page.h). Each gets the same rows.
 */
#ifndef __TREE_VIEW_H
#define __TREE_VIEW_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/types.h>
#include "btt.h"
#include "req_opf.h"

struct tree_view {
	bool quiet;		/* no terminal lines */
	bool nest;		/* returns seen: "name() {" … "} name" */
	const struct req_names *names;	/* bi_opf in words */
	const char *json_path, *html_path;	/* NULL: not asked for */
	FILE *json, *html;
	bool begun;		/* their heads written: tracing started */
	int bios;		/* bios written so far: each its own track */
	int rows;		/* rows of the bio being written */
	__u64 sector;		/* the fields of its last row but "}" lines */
	__u32 size, opf;
	__u64 base;		/* 0 in --trace-json: set before any event, else the first bio's */
	__u64 first, last;	/* the bio's first and last event's time */
};

/* A bio: its tree's header line, its track's, its page section's. */
struct tree_bio {
	__u64 addr;
	__u64 parent;		/* a split part: the bio it was cut from */
	bool stacked;		/* parent: the bio above it a stacked device sent it for */
	const char *disk;	/* its disk, named when stacked */
	int events;
	bool submitted, ended;	/* seen */
	__u64 sector;		/* at its first event */
	__u32 size, opf;
	__u64 first, last;	/* its first and last event's time, ns */
};

/* One line of the tree: a function (or tracepoint) entered, or left. */
struct tree_row {
	const char *point;	/* the function or tracepoint */
	const char *ctx, *task;
	const char *comm;	/* the task apart: its name and thread ID */
	__u32 tid;
	__u64 ts;		/* its event's time, ns */
	__u64 at;		/* ns since the bio's first event */
	long long dur;		/* ns to its return, -1: none seen */
	__u64 sector;		/* the bio's fields then */
	__u32 size, opf;
	__u8 status;
	bool end;		/* the bio ended there */
	__u32 cpu;
	int depth;		/* calls open in the same thread */
	bool leaf;		/* entered and left on one line */
	bool close;		/* a "}" line */
};

/* Before tracing: open the files asked for; a path we cannot write is one line, -1. */
int tree_view_open(struct tree_view *p, const char *prog);
/* After attaching: the files' heads, the door and how it attached in their title. */
void tree_view_begin(struct tree_view *p, const char *door, const char *how);
/*
 * A bio (its header line), each of its rows in order, then
 * tree_view_bio_end() with where its time went (btt.h): a "btt:" line,
 * a "btt" object in --trace-json's last event of the bio and in the page.
 */
void tree_view_bio(struct tree_view *p, const struct tree_bio *b);
void tree_view_row(struct tree_view *p, const struct tree_row *r);
void tree_view_bio_end(struct tree_view *p, const struct btt_marks *m);
/*
 * 0, or -1 after one line when a file could not be written whole (a
 * full disk). The files of a run that never began are removed.
 */
int tree_view_close(struct tree_view *p, const char *prog);

#endif /* __TREE_VIEW_H */
