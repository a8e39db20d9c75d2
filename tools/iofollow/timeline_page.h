/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * iofollow --html FILE: the seed's picture, redrawn from a run: three
 * timelines (page cache, bio, request) with each sample S1, S2 ... drawn
 * through its hops. A self-contained page, no script, written at exit.
 */
#ifndef __TIMELINE_PAGE_H
#define __TIMELINE_PAGE_H
#include "samples.h"

/* a sample, as it is printed: kept for the page (the first SAMPLES_DRAWN) */
void timeline_add(const struct sample *s);
/* write the page; 0, or -errno */
int timeline_write(const char *path);

#endif /* __TIMELINE_PAGE_H */
