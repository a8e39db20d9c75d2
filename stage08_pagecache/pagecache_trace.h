/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The page counters both sides of pagecache_trace share. */
#ifndef __PAGECACHE_TRACE_H
#define __PAGECACHE_TRACE_H

enum pages_slot {
	PAGES_HIT,	/* pages a read found in the cache */
	PAGES_MISS,	/* pages a read found only after its own read path added them */
	PAGES_ADDED,	/* pages added to the cache for any reason */
	PAGES_MAX,
};

#endif /* __PAGECACHE_TRACE_H */
