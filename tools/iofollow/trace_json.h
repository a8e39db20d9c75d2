/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * iofollow --trace-json FILE: each sample in Chrome's trace-event format,
 * for Perfetto or chrome://tracing: the seed's three timelines (the page
 * cache with the call, the bio, the request) and a flow arrow per hop.
 */
#ifndef __TRACE_JSON_H
#define __TRACE_JSON_H
#include "samples.h"

/* 0, or -errno: FILE cannot be created */
int trace_json_open(const char *path);
/* a sample, as it is printed */
void trace_json_sample(const struct sample *s);
/* the file's end; 0, or -errno if any write failed */
int trace_json_close(void);

#endif /* __TRACE_JSON_H */
