/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Options every stage shares, named as in libbpf-tools. */
#ifndef __OPTIONS_H
#define __OPTIONS_H

#include <argp.h>
#include <stdbool.h>
#include "doors.h"

struct common_env {
	enum door door;		/* -a, --attach */
	const char *disk;	/* -d, --disk: name as given */
	unsigned int dev;	/* kernel dev_t of that disk, 0 = all */
	double duration;	/* --duration SECONDS, 0 = until Ctrl-C */
	bool quiet;		/* -q: no per-event lines */
	bool json;		/* -j: JSON lines on stdout (jsonl.h) */
	bool verbose;		/* -v: libbpf debug output */
};

extern struct common_env env;

/* Add as a child of the stage's argp: { &common_argp, 0, NULL, 0 }. */
extern const struct argp common_argp;
/* -j, --json: a child too, in the stages whose output has JSON lines. */
extern const struct argp json_argp;

/*
 * Parse argv with the stage's argp; usage errors exit 2 with one line
 * and a --help hint. Also installs the libbpf print hook (-v).
 */
int parse_args(const struct argp *argp, int argc, char **argv, void *input);

/* Seconds (--duration): a positive number up to 1e7; -1 when s is anything else. */
double parse_seconds(const char *s);

/* Parse a whole positive decimal number; -1 when s is anything else. */
long parse_positive(const char *s, long max);

/* "loop0", "/dev/loop0" or a partition: kernel dev_t of its disk, 0 if none. */
unsigned int disk_to_dev(const char *name);

#endif /* __OPTIONS_H */
