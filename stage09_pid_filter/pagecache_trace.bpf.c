// SPDX-License-Identifier: GPL-2.0
/* Stage 09: page-cache hits and misses of reads, for one process. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "doors.bpf.h"
#include "pagecache_trace.h"

/*
 * Lesson#1: per-CPU counters, one slot each for hits, misses and added
 * pages. They never fill, unlike the seed's 4096-entry hash keyed by
 * time, which stopped counting at its 4096th lookup.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PAGES_MAX);
	__type(key, __u32);
	__type(value, __u64);
} pages SEC(".maps");

/*
 * Lesson#2: what this task added and has not read yet. Readahead adds a
 * run of pages ahead of the reader, in the reader's own context; reading
 * a page of that run is a miss. Task storage lives as long as the task
 * and needs no key space that could run out.
 */
struct task_pages {
	u64 mapping;		/* the file of the run */
	u64 lo, hi;		/* the run lo..hi; empty when lo > hi */
	/* tracepoint door: the last range counted, and its misses */
	u64 last_mapping, last_first, last_end, last_mlo, last_mhi;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_pages);
} task_pages SEC(".maps");

/*
 * Lesson#4: the process to count, set by user space before it attaches,
 * so no other process's event slips in; 0 counts every process.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);	/* TGID */
} pid_filter_map SEC(".maps");

/* The process (TGID, upper half), not the thread the seed compared. */
static __always_inline bool pid_wanted(void)
{
	__u32 key = 0, *pid = bpf_map_lookup_elem(&pid_filter_map, &key);

	return !pid || !*pid || *pid == bpf_get_current_pid_tgid() >> 32;
}

static __always_inline void pages_add(__u32 key, s64 n)
{
	__u64 *v = bpf_map_lookup_elem(&pages, &key);

	/* a retraction may take from another CPU's slot: the sum is right */
	if (v)
		*v += n;
}

static __always_inline struct task_pages *task_get(void)
{
	struct task_pages *t;

	t = bpf_task_storage_get(&task_pages, bpf_get_current_task_btf(), NULL,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!t)
		stat_inc(STAT_TASK_STORE);
	return t;
}

static __always_inline u64 ino_of(struct address_space *mapping)
{
	return BPF_CORE_READ(mapping, host, i_ino);
}

static __always_inline int on_add(void *ctx, struct address_space *mapping,
				  unsigned long index, __u32 nr)
{
	u64 m = (u64)mapping, end = index + nr - 1;
	struct task_pages *t;

	if (!pid_wanted())
		return 0;
	pages_add(PAGES_ADDED, nr);
	if (!quiet)
		bpf_printk("filemap_add_folio (ino=%llu index=%lu pages=%u)",
			   ino_of(mapping), index, nr);
	t = task_get();
	if (!t)
		return 0;
	/* Extend the run when the folio touches it, else start a new one. */
	if (t->mapping == m && t->lo <= t->hi && index <= t->hi + 1 && end + 1 >= t->lo) {
		if (index < t->lo)
			t->lo = index;
		if (end > t->hi)
			t->hi = end;
	} else {
		t->mapping = m;
		t->lo = index;
		t->hi = end;
	}
	return 0;
}
PAGECACHE_ADD_DOORS(on_add)

/*
 * Lesson#3: decide per page, never by subtracting totals. Of the pages
 * first..end a read looks up, those in this task's run are misses (they
 * were not in the cache before this read path added them), the rest hits.
 */
static __always_inline int on_lookup(void *ctx, struct address_space *mapping,
				     unsigned long first, unsigned long end, bool exact)
{
	u64 m = (u64)mapping, isize, mlo, mhi, n, miss = 0;
	struct task_pages *t;

	if (!pid_wanted())
		return 0;
	/* The request may run past the end of the file: count what exists. */
	isize = BPF_CORE_READ(mapping, host, i_size);
	if (!isize)
		return 0;
	if (end > (isize - 1) >> PAGECACHE_PAGE_SHIFT)
		end = (isize - 1) >> PAGECACHE_PAGE_SHIFT;
	if (first > end)
		return 0;
	t = task_get();
	if (!t) {
		pages_add(PAGES_HIT, end - first + 1);
		return 0;
	}
	/*
	 * Tracepoint door, a new read: while it waits for readahead I/O the
	 * kernel hands a read the folios before the one it waits for, with
	 * no event. Those are the start of this task's run, right before
	 * this event's first page: count them with this read.
	 */
	if (!exact && !(t->last_mapping == m && t->last_end == end) &&
	    t->mapping == m && t->lo < first && first <= t->hi + 1)
		first = t->lo;
	n = end - first + 1;
	/*
	 * Tracepoint door: the event names the range the read asked for.
	 * When the batch held only its start, the same read asks again for
	 * the rest (same file and end, later start): take that rest back
	 * from the last count, with the misses it had, and count it anew.
	 */
	if (!exact && t->last_mapping == m && t->last_end == end && first > t->last_first) {
		u64 tail_miss = 0;

		mlo = first > t->last_mlo ? first : t->last_mlo;
		mhi = t->last_mhi;
		if (mhi >= mlo)
			tail_miss = mhi - mlo + 1;
		pages_add(PAGES_HIT, -(s64)(n - tail_miss));
		pages_add(PAGES_MISS, -(s64)tail_miss);
		if (tail_miss && t->mapping == m && mlo < t->lo) {
			t->lo = mlo;	/* those pages are unread again */
			if (t->hi < mhi)
				t->hi = mhi;
		}
	}
	mlo = 1;
	mhi = 0;
	if (t->mapping == m) {
		mlo = first > t->lo ? first : t->lo;
		mhi = end < t->hi ? end : t->hi;
		if (mhi >= mlo) {
			miss = mhi - mlo + 1;
			t->lo = mhi + 1;	/* read now: no longer pending */
		}
	}
	pages_add(PAGES_MISS, miss);
	pages_add(PAGES_HIT, n - miss);
	if (!exact) {
		t->last_mapping = m;
		t->last_first = first;
		t->last_end = end;
		t->last_mlo = mlo;
		t->last_mhi = mhi;
	}
	if (!quiet)
		bpf_printk("filemap_get_pages (ino=%llu pages=%lu-%lu hit=%llu miss=%llu)",
			   ino_of(mapping), first, end, n - miss, miss);
	return 0;
}
PAGECACHE_LOOKUP_DOORS(on_lookup)

char LICENSE[] SEC("license") = "GPL";
