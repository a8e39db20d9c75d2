// SPDX-License-Identifier: GPL-2.0
/* pagecache_trace, the BPF side: its maps, its handlers, one program per door. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "trace.bpf.h"
#include "ringbuf.bpf.h"
#include "pagecache.bpf.h"
#include "pagecache_trace.h"

/* Set by the user side before load; the verifier then drops dead branches. */
const volatile bool quiet = false;	/* -q: no events, counts only */
const volatile __u32 targ_dev = 0;	/* -d: the disk's dev_t, 0 = every disk */
const volatile __u32 page_shift = 12;	/* log2 of the kernel's page size: 12, 14 or 16 */

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
 * One event per lookup and per add, to this run's reader only: a ring
 * buffer, as in stage 03 (bpf_printk's buffer is every program's). Its
 * size is in bytes; an event that finds it full is counted as lost.
 */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} events SEC(".maps");

/*
 * Lesson#2: what this task added and has not read yet. Readahead adds a
 * run of pages ahead of the reader, in the reader's own context; reading
 * a page of that run is a miss. Task storage lives as long as the task
 * and needs no key space that could run out.
 */
struct task_pages {
	u64 mapping;		/* the file of the run */
	u64 lo, hi;		/* the run lo..hi; empty when lo > hi */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_pages);
} task_pages SEC(".maps");

static __always_inline void pages_add(__u32 key, s64 n)
{
	__u64 *v = bpf_map_lookup_elem(&pages, &key);

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

/*
 * Reserve room in the ring buffer, fill it, submit it: one event. The
 * task is the one running now: a read's lookups and readahead's adds
 * run in the reader's context.
 */
static __always_inline void send_event(__u32 type, struct address_space *mapping,
				       u64 first, u64 last, u64 hit, u64 miss)
{
	struct event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		stat_inc(STAT_RB_FULL);	/* user space fell behind */
		return;
	}
	e->type = type;
	e->pid = bpf_get_current_pid_tgid() >> 32;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	e->ino = ino_of(mapping);
	e->first = first;
	e->last = last;
	e->hit = hit;
	e->miss = miss;
	bpf_ringbuf_submit(e, ringbuf_wakeup(&events));
}

static __always_inline int on_add(struct address_space *mapping, unsigned long index,
				  __u32 nr)
{
	u64 m = (u64)mapping, end = index + nr - 1;
	struct task_pages *t;

	stat_inc(STAT_ADD);
	pages_add(PAGES_ADDED, nr);
	if (!quiet)
		send_event(EVENT_ADD, mapping, index, end, 0, 0);
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

/* A read may ask past the end of the file: keep what exists; false if none. */
static __always_inline bool clamp_to_file(struct address_space *mapping,
					  unsigned long first, unsigned long *end)
{
	u64 isize = BPF_CORE_READ(mapping, host, i_size);

	if (!isize)
		return false;
	if (*end > (isize - 1) >> page_shift)
		*end = (isize - 1) >> page_shift;
	return first <= *end;
}

/*
 * The pages of first..end in this task's run are misses: they were not
 * in the cache before this read path added them. They are read now, so
 * the run starts after them.
 */
static __always_inline u64 run_take(struct task_pages *t, u64 m, u64 first, u64 end)
{
	u64 lo, hi;

	if (t->mapping != m)
		return 0;
	lo = first > t->lo ? first : t->lo;
	hi = end < t->hi ? end : t->hi;
	if (hi < lo)
		return 0;
	t->lo = hi + 1;
	return hi - lo + 1;
}

/*
 * Lesson#3: decide per page, never by subtracting totals. Of the pages
 * first..end a read found in the cache, those in this task's run are
 * misses, the rest hits. The function doors know that range exactly.
 */
static __always_inline int on_lookup(struct address_space *mapping, unsigned long first,
				     unsigned long end)
{
	struct task_pages *t;
	u64 n, miss = 0;

	stat_inc(STAT_LOOKUP);
	if (!clamp_to_file(mapping, first, &end))
		return 0;
	n = end - first + 1;
	t = task_get();
	if (t)
		miss = run_take(t, (u64)mapping, first, end);
	pages_add(PAGES_MISS, miss);
	pages_add(PAGES_HIT, n - miss);
	if (!quiet)
		send_event(EVENT_LOOKUP, mapping, first, end, n - miss, miss);
	return 0;
}

/*
 * filemap_get_pages()'s second argument: the iov_iter on 6.1, the bytes
 * the read still wants on later kernels. A kernel address has its top
 * bit set; a read's count is below 2 GiB.
 */
static __always_inline u64 bytes_wanted(u64 arg2)
{
	if (arg2 >> 63)
		return BPF_CORE_READ((struct iov_iter *)arg2, count);
	return arg2;
}

/*
 * Function doors, at the return of filemap_get_pages(iocb, arg2, fbatch, ..):
 * on success (0) fbatch holds the folios the read copies next, from the
 * read's position to the last page of its last folio, but no further than
 * the read asked: a large folio (2 MiB: 512 pages) goes on past it, and
 * those pages are the next reads' lookups, not this one's.
 */
static __always_inline int lookup_done(struct kiocb *iocb, u64 arg2, struct folio_batch *fbatch)
{
	unsigned int nr = BPF_CORE_READ(fbatch, nr);
	struct address_space *mapping;
	struct folio *folio = NULL;
	unsigned long first, end;
	u64 pos, want;

	if (nr < 1 || nr > 64)
		return 0;
	bpf_core_read(&folio, sizeof(folio), &fbatch->folios[nr - 1]);
	if (!folio)
		return 0;
	mapping = BPF_CORE_READ(iocb, ki_filp, f_mapping);
	if (targ_dev && mapping_dev(mapping) != targ_dev)
		return 0;
	pos = BPF_CORE_READ(iocb, ki_pos);
	first = pos >> page_shift;
	end = BPF_CORE_READ(folio, index) + folio_pages(folio) - 1;
	want = bytes_wanted(arg2);
	if (want && (pos + want - 1) >> page_shift < end)
		end = (pos + want - 1) >> page_shift;
	return on_lookup(mapping, first, end);
}

/*
 * The tracepoint door's approximation. mm_filemap_get_pages (6.11+)
 * names the range the read asked for, not what the batch holds, so two
 * corrections, by what this task's last event was (tp_last):
 *  - a new read: while it waits for readahead I/O, the kernel hands it
 *    the folios before the one it waits for, with no event. Those are
 *    the start of this task's run, right before this event's first page:
 *    count them with this read.
 *  - the same read asking again (same file and end, a later start): the
 *    batch held only the start of the last range. Take the rest back
 *    from the last count, with the misses it had, and count it anew.
 * The function doors need none of this.
 */
struct tp_last {
	u64 mapping, first, end;	/* the last range counted */
	u64 mlo, mhi;			/* and its misses; empty when mlo > mhi */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct tp_last);
} tp_last SEC(".maps");

static __always_inline int on_lookup_tp(struct address_space *mapping, unsigned long first,
					unsigned long end)
{
	u64 m = (u64)mapping, n, miss;
	struct task_pages *t;
	struct tp_last *last;
	bool same_read;

	stat_inc(STAT_LOOKUP);
	if (!clamp_to_file(mapping, first, &end))
		return 0;
	t = task_get();
	last = bpf_task_storage_get(&tp_last, bpf_get_current_task_btf(), NULL,
				    BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!t || !last) {
		if (t)
			stat_inc(STAT_TASK_STORE);
		pages_add(PAGES_HIT, end - first + 1);
		return 0;
	}
	same_read = last->mapping == m && last->end == end;
	if (!same_read && t->mapping == m && t->lo < first && first <= t->hi + 1)
		first = t->lo;
	n = end - first + 1;
	if (same_read && first > last->first) {
		u64 mlo = first > last->mlo ? first : last->mlo, tail_miss = 0;

		if (last->mhi >= mlo)
			tail_miss = last->mhi - mlo + 1;
		/* a retraction may take from another CPU's slot: the sum is right */
		pages_add(PAGES_HIT, -(s64)(n - tail_miss));
		pages_add(PAGES_MISS, -(s64)tail_miss);
		if (tail_miss && t->mapping == m && mlo < t->lo) {
			t->lo = mlo;	/* those pages are unread again */
			if (t->hi < last->mhi)
				t->hi = last->mhi;
		}
	}
	miss = run_take(t, m, first, end);
	pages_add(PAGES_MISS, miss);
	pages_add(PAGES_HIT, n - miss);
	last->mapping = m;
	last->first = first;
	last->end = end;
	last->mlo = miss ? t->lo - miss : 1;	/* run_take() moved t->lo past them */
	last->mhi = miss ? t->lo - 1 : 0;
	if (!quiet)
		send_event(EVENT_LOOKUP, mapping, first, end, n - miss, miss);
	return 0;
}

/*
 * The doors, one program each; the loader keeps one door per probe point
 * and switches the others off before load. A tp_btf program gets
 * BTF-typed pointers (folio->mapping is a plain load). The kprobe and
 * fentry programs here hand their arguments to the same helpers
 * (mapping_dev(), folio_pages()), which read with BPF_CORE_READ(): that
 * works in both, typed pointer or plain number.
 */
SEC("kprobe/__filemap_add_folio")
int BPF_KPROBE(filemap_add_folio_kprobe, struct address_space *mapping,
	       struct folio *folio, unsigned long index)
{
	if (targ_dev && mapping_dev(mapping) != targ_dev)
		return 0;
	return on_add(mapping, index, folio_pages(folio));
}

SEC("fentry/__filemap_add_folio")
int BPF_PROG(filemap_add_folio_fentry, struct address_space *mapping,
	     struct folio *folio, unsigned long index)
{
	if (targ_dev && mapping_dev(mapping) != targ_dev)
		return 0;
	return on_add(mapping, index, folio_pages(folio));
}

/* Fired at the end of __filemap_add_folio(), with the folio in place. */
SEC("tp_btf/mm_filemap_add_to_page_cache")
int BPF_PROG(mm_filemap_add_to_page_cache_btf, struct folio *folio)
{
	struct address_space *mapping = folio->mapping;

	if (targ_dev && mapping_dev(mapping) != targ_dev)
		return 0;
	return on_add(mapping, folio->index, folio_pages(folio));
}

/*
 * A fault on a page of a mapped file that fault-around did not map (it
 * maps what is cached already): the reader of an mmap()ed file, where a
 * read() would look pages up instead.
 */
static __always_inline int on_fault(struct address_space *mapping, unsigned long index)
{
	if (targ_dev && mapping_dev(mapping) != targ_dev)
		return 0;
	pages_add(PAGES_FAULT, 1);
	if (!quiet)
		send_event(EVENT_FAULT, mapping, index, index, 0, 0);
	return 0;
}

SEC("kprobe/filemap_fault")
int BPF_KPROBE(filemap_fault_kprobe, struct vm_fault *vmf)
{
	return on_fault(BPF_CORE_READ(vmf, vma, vm_file, f_mapping),
			BPF_CORE_READ(vmf, pgoff));
}

SEC("fentry/filemap_fault")
int BPF_PROG(filemap_fault_fentry, struct vm_fault *vmf)
{
	return on_fault(vmf->vma->vm_file->f_mapping, vmf->pgoff);
}

/* Fired at the top of filemap_fault() (6.10+). */
SEC("tp_btf/mm_filemap_fault")
int BPF_PROG(mm_filemap_fault_btf, struct address_space *mapping, unsigned long index)
{
	return on_fault(mapping, index);
}

/*
 * The kprobe door sees filemap_get_pages()'s return in a kretprobe, which
 * has no arguments: the entry program keeps them for it, per task.
 */
struct get_pages_args {
	struct kiocb *iocb;
	u64 arg2;
	struct folio_batch *fbatch;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct get_pages_args);
} get_pages_args SEC(".maps");

SEC("kprobe/filemap_get_pages")
int BPF_KPROBE(filemap_get_pages_kprobe, struct kiocb *iocb, void *arg2,
	       struct folio_batch *fbatch)
{
	struct get_pages_args *a;

	a = bpf_task_storage_get(&get_pages_args, bpf_get_current_task_btf(), NULL,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!a) {
		stat_inc(STAT_TASK_STORE);
		return 0;
	}
	a->iocb = iocb;
	a->arg2 = (u64)arg2;
	a->fbatch = fbatch;
	return 0;
}

SEC("kretprobe/filemap_get_pages")
int BPF_KRETPROBE(filemap_get_pages_kretprobe, int ret)
{
	struct get_pages_args *a, args;

	a = bpf_task_storage_get(&get_pages_args, bpf_get_current_task_btf(), NULL, 0);
	if (!a || !a->iocb)
		return 0;
	args = *a;
	a->iocb = NULL;
	return ret ? 0 : lookup_done(args.iocb, args.arg2, args.fbatch);
}

/*
 * fexit sees the arguments and, with bpf_get_func_ret() (5.17+), the
 * return value. The third argument is fbatch on 6.1 and 6.18 alike.
 */
SEC("fexit/filemap_get_pages")
int BPF_PROG(filemap_get_pages_fexit, struct kiocb *iocb, void *arg2,
	     struct folio_batch *fbatch)
{
	__u64 ret = 0, want = 0;

	bpf_get_func_ret(ctx, &ret);
	/* as a number: on 6.1 the verifier types it as a pointer, no shifts */
	bpf_get_func_arg(ctx, 1, &want);
	return (int)ret ? 0 : lookup_done(iocb, want, fbatch);
}

/* 6.11+: the range the read asked for (the approximation above). */
SEC("tp_btf/mm_filemap_get_pages")
int BPF_PROG(mm_filemap_get_pages_btf, struct address_space *mapping,
	     unsigned long index, unsigned long last_index)
{
	if (targ_dev && mapping_dev(mapping) != targ_dev)
		return 0;
	return on_lookup_tp(mapping, index, last_index);
}

char LICENSE[] SEC("license") = "GPL";
