/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What the BPF side and the user side of pagecache_trace share. */
#ifndef __PAGECACHE_TRACE_H
#define __PAGECACHE_TRACE_H

enum pages_slot {
	PAGES_HIT,	/* pages a read found in the cache */
	PAGES_MISS,	/* pages a read found only after its own read path added them */
	PAGES_ADDED,	/* pages added to the cache for any reason */
	PAGES_FAULT,	/* page faults on mapped files that filemap_fault() served */
	PAGES_MAX,
};

enum event_type {
	EVENT_LOOKUP,	/* filemap_get_pages: a read looked pages up */
	EVENT_ADD,	/* filemap_add_folio: a folio entered the cache */
	EVENT_FAULT,	/* filemap_fault: a fault on a mapped file's page */
};

/* One lookup or one add, sent to user space through the ring buffer. */
struct event {
	__u32 type;		/* enum event_type */
	__u32 pid;		/* the process (TGID) of the task that ran it */
	char comm[16];		/* that task's name (TASK_COMM_LEN) */
	__u64 ino;		/* the file's inode number */
	__u64 first, last;	/* lookup: the pages looked up; add: the folio's;
				   fault: the page faulted on, both */
	__u64 hit, miss;	/* lookup: pages found, pages its read path added */
};

#endif /* __PAGECACHE_TRACE_H */
