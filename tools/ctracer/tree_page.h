/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * ctracer's page (--html): at the top every bio of the run as a thin
 * bar on one time axis (click one to open it), a key to the colours,
 * then per bio its call tree and timeline, btt's phases coloured in it.
 * Its style and script, inline: the page is one file, read offline.
 *
 * tree_view.c writes the data between tree_page_begin() and
 * tree_page_end(): a JSON array, an object per bio:
 *   bio, hdr		its address, its tree's header line
 *   sector, size, op	at its first event; op in words ("READ SYNC")
 *   ended		its end was seen
 *   t0			its first event, us from the first bio written (older
 *			bios are negative: the script's 0 is the run's first event)
 *   span		us from its first event to its last
 *   rows		the tree's lines: t (us since the bio's first event),
 *			d (us to the call's return, < 0: none seen), depth,
 *			close (a "}" line), fn, cpu, ctx, task, data
 *   btt		{"Q2G": us, ...}: the phases seen (btt.h)
 *   marks		{"Q": us since the bio's first event, ...}: the marks seen
 */
#ifndef __TREE_PAGE_H
#define __TREE_PAGE_H

#include <stdio.h>

/* The page up to the opening of its data (page.h's skeleton), title escaped. */
void tree_page_begin(FILE *f, const char *title);

/* The end of the data, the script that draws the page from it, the page's end. */
void tree_page_end(FILE *f);

#endif /* __TREE_PAGE_H */
