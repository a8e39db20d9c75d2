// SPDX-License-Identifier: GPL-2.0
/*
 * iofollow, the BPF side: stage 11's program (one sampled write()
 * followed down the layers, in maps keyed by each layer's hand-off),
 * with what a practitioner asks next: read() too (-r), the process (-p),
 * how the bio joined its request (getrq or a merge), and the fsync()
 * that waited for a sampled write.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "ringbuf.bpf.h"
#include "pagecache.bpf.h"
#include "flush_step.bpf.h"
#include "iofollow.h"

/* Set by the user side before load. */
const volatile bool quiet = false;	/* -q: no events, counts only */
const volatile __u32 targ_dev = 0;	/* -d: the disk's dev_t, 0 = every disk */
const volatile __u32 targ_tgid = 0;	/* -p: the process, 0 = every process */
const volatile __u32 self_tgid = 0;	/* this tracer: its own output is not sampled */
const volatile bool filter_comm = false;	/* -c: the task's name */
const volatile char targ_comm[16] = {};
const volatile __u64 sample_n = 1000;	/* -s N: 1 call in N */
const volatile __u32 follow = KIND_WRITE;	/* -r: read() instead */
const volatile __u32 page_shift = 12;
/* This architecture's system call numbers, from user space's <sys/syscall.h>. */
const volatile long nr_call = -1, nr_pcall = -1;	/* write, pwrite64 (or read, pread64) */
const volatile long nr_fsync = -1, nr_fdatasync = -1;

/* The tool's counters (iofollow.h: enum count), per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

/*
 * The marks, as in stage 11: what a layer hands on, one LRU hash each.
 *   tasks:   thread ID -> the sample, inside the sampled call (or inside
 *            an fsync() that may wait for it: kind KIND_FSYNC)
 *   writers: thread ID -> its last sampled write() that dirtied a
 *            folio, until its next fsync()
 *   folios:  folio -> the sample, from the call that dirtied (or added) it
 *   bios:    bio -> the sample, from a marked folio in its pages (and
 *            a split bio's front part, from the bio)
 */
struct mark {
	__u64 id;	/* the sample: the call's number */
	__u64 t0;	/* when it was entered */
	__u32 kind;	/* enum kind */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct mark);
} tasks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u64);
} writers SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, __u64);
	__type(value, struct mark);
} folios SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct mark);
} bios SEC(".maps");

/*
 * The gates: how many folio and bio marks are out. While none is, the
 * block tracepoints return after this one lookup.
 */
struct gates {
	__s64 folios, bios;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct gates);
} gates SEC(".maps");

/* The calls -p and -c let in, numbered for 1 in N: one count for all CPUs. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} calls SEC(".maps");

/* Every hop of a sampled call, to this run's reader only. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 20);
} events SEC(".maps");

static __always_inline void count(__u32 key)
{
	__u64 *v = bpf_map_lookup_elem(&counts, &key);

	if (v)
		(*v)++;
}

static __always_inline struct gates *gates_get(void)
{
	__u32 key = 0;

	return bpf_map_lookup_elem(&gates, &key);
}

/* Reserve an event and fill what every hop has: time, CPU, task, sample. */
static __always_inline struct event *ev_new(__u32 hop, const struct mark *m)
{
	struct event *e;
	__u64 id;

	if (quiet)
		return NULL;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		count(CNT_RB_FULL);
		return NULL;
	}
	__builtin_memset(e, 0, sizeof(*e));
	id = bpf_get_current_pid_tgid();
	e->hop = hop;
	e->ts = bpf_ktime_get_ns();
	e->cpu = bpf_get_smp_processor_id();
	e->pid = id >> 32;
	e->tid = id;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	e->id = m->id;
	e->t0 = m->t0;
	e->kind = m->kind;
	return e;
}

static __always_inline void ev_send(struct event *e)
{
	bpf_ringbuf_submit(e, ringbuf_wakeup(&events));
}

/* -p and -c: is the current task one to sample? Never the tracer itself. */
static __always_inline bool task_wanted(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	char comm[16];

	if (tgid == self_tgid || (targ_tgid && tgid != targ_tgid))
		return false;
	if (!filter_comm)
		return true;
	bpf_get_current_comm(comm, sizeof(comm));
	for (int i = 0; i < sizeof(comm); i++) {
		if (comm[i] != targ_comm[i])
			return false;
		if (!comm[i])
			break;
	}
	return true;
}

/* The decision, once per call: 1 in N with a modulo. */
static __always_inline void on_call_enter(void)
{
	__u32 key = 0, tid = bpf_get_current_pid_tgid();
	struct mark m = { .kind = follow };
	__u64 *n;

	if (!task_wanted())
		return;
	n = bpf_map_lookup_elem(&calls, &key);
	if (!n)
		return;
	m.id = __sync_fetch_and_add(n, 1) + 1;
	if ((m.id - 1) % sample_n)
		return;
	count(CNT_SAMPLED);
	m.t0 = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&tasks, &tid, &m, BPF_ANY))
		count(CNT_MARK_FAIL);
}

/* An fsync() by a task whose sampled write() dirtied folios: it may wait for them. */
static __always_inline void on_fsync_enter(void)
{
	__u32 tid = bpf_get_current_pid_tgid();
	__u64 *id = bpf_map_lookup_elem(&writers, &tid);
	struct mark m = { .kind = KIND_FSYNC };

	if (!id)
		return;
	m.id = *id;
	m.t0 = bpf_ktime_get_ns();
	bpf_map_delete_elem(&writers, &tid);
	if (bpf_map_update_elem(&tasks, &tid, &m, BPF_ANY))
		count(CNT_MARK_FAIL);
}

/* A task's next sys_exit is its call's: system calls do not nest. */
static __always_inline void on_sys_exit(long ret)
{
	__u32 tid = bpf_get_current_pid_tgid();
	struct mark *m = bpf_map_lookup_elem(&tasks, &tid);
	struct event *e;

	if (!m)
		return;
	e = ev_new(m->kind == KIND_FSYNC ? HOP_FSYNC : HOP_SYSCALL, m);
	if (e) {
		e->ret = ret;
		ev_send(e);
	}
	bpf_map_delete_elem(&tasks, &tid);
}

/*
 * The page cache: inside its call the sampled task makes a clean folio
 * dirty (a write) or adds a missing one (a read, readahead included):
 * the folio takes the task's mark.
 */
static __always_inline void on_folio(struct folio *folio, struct address_space *mapping,
				     __u32 kind)
{
	__u32 tid = bpf_get_current_pid_tgid();
	struct mark *m = bpf_map_lookup_elem(&tasks, &tid);
	__u64 key = (__u64)folio;
	struct gates *g;
	struct event *e;

	if (!m || m->kind != kind || !mapping)
		return;
	if (targ_dev && mapping_dev(mapping) != targ_dev)
		return;
	g = gates_get();
	if (!g)
		return;
	/* a folio marked already (by an earlier sample) is counted once */
	if (!bpf_map_update_elem(&folios, &key, m, BPF_NOEXIST)) {
		count(CNT_FOLIOS);
		__sync_fetch_and_add(&g->folios, 1);
	} else if (bpf_map_update_elem(&folios, &key, m, BPF_EXIST)) {
		count(CNT_MARK_FAIL);
		return;
	}
	if (kind == KIND_WRITE && bpf_map_update_elem(&writers, &tid, &m->id, BPF_ANY))
		count(CNT_MARK_FAIL);
	e = ev_new(HOP_FOLIO, m);
	if (!e)
		return;
	e->folio = key;
	e->ino = BPF_CORE_READ(mapping, host, i_ino);
	e->index = BPF_CORE_READ(folio, index);
	e->pages = folio_pages(folio);
	ev_send(e);
}

/* A folio leaves the page cache (truncated, or reclaimed once clean). */
static __always_inline void on_folio_gone(struct folio *folio)
{
	struct gates *g = gates_get();
	__u64 key = (__u64)folio;

	if (!g || g->folios <= 0)
		return;
	if (!bpf_map_delete_elem(&folios, &key)) {
		count(CNT_FOLIO_DEL);
		__sync_fetch_and_add(&g->folios, -1);
	}
}

/*
 * folio -> bio. Writeback (a kworker, or fsync() in the writer) builds
 * a bio of dirty pages; a read, of the folios it added. Walk its pages
 * from its iterator, a page or the rest of a large folio a step; a
 * page's folio is its head page (page_folio_addr()). A marked folio
 * hands its mark to the bio, and the page's sector is the bio's plus the
 * bytes before it.
 */
struct walk {
	struct bio *bio;
	struct bio_vec *vecs;
	__u64 sector;		/* the bio's first */
	__u32 bytes;		/* its size: the callback reads nothing through
				   w->bio, a plain number to 6.12's verifier */
	__u64 off;		/* bytes of the bio walked */
	__u64 left;		/* bytes still to walk */
	__u64 last;		/* the folio of the last page */
	__u32 idx;		/* bio_vec index */
	__u32 bvec_done;	/* bytes of that bio_vec walked, as bi_bvec_done */
	bool marked;		/* the bio has its mark */
	__u64 owner;		/* the sample whose mark it has */
};

static long walk_page(__u64 i, struct walk *w)
{
	__u64 page_size = 1ULL << page_shift, page, folio;
	__u64 psz = bpf_core_type_size(struct page);
	struct gates *g = gates_get();
	struct bio_vec bv;
	__u32 pos, in_page, chunk;
	struct mark *m;
	struct event *e;

	if (!g || !w->left)
		return 1;
	if (bpf_probe_read_kernel(&bv, sizeof(bv), &w->vecs[w->idx]) || !bv.bv_len)
		return 1;
	/* a bio_vec may span pages: their struct pages lie one after another */
	pos = bv.bv_offset + w->bvec_done;
	page = (__u64)bv.bv_page + (pos >> page_shift) * psz;
	folio = page_folio_addr(page);
	chunk = bv.bv_len - w->bvec_done;
	if (chunk > w->left)
		chunk = w->left;
	/*
	 * One step to the chunk's end when its last page is of this folio
	 * (a large folio's pages lie between its first and last), else to
	 * the page's end.
	 */
	in_page = page_size - (pos & (page_size - 1));
	if (chunk > in_page &&
	    page_folio_addr((__u64)bv.bv_page + ((pos + chunk - 1) >> page_shift) * psz) != folio)
		chunk = in_page;
	/* a large folio split over bio_vecs: looked up once */
	if (folio != w->last && (m = bpf_map_lookup_elem(&folios, &folio))) {
		if (!w->marked) {
			w->marked = true;
			w->owner = m->id;
			/* an address marked already: a bio whose end was missed */
			if (!bpf_map_update_elem(&bios, &w->bio, m, BPF_NOEXIST)) {
				count(CNT_BIOS);
				__sync_fetch_and_add(&g->bios, 1);
			} else if (bpf_map_update_elem(&bios, &w->bio, m, BPF_EXIST)) {
				count(CNT_MARK_FAIL);
				w->owner = 0;
			}
		}
		e = ev_new(HOP_BIO, m);
		if (e) {
			e->folio = folio;
			e->bio = (__u64)w->bio;
			e->sector = w->sector + (w->off >> 9);
			e->ino = BPF_CORE_READ((struct folio *)folio, mapping, host, i_ino);
			e->index = BPF_CORE_READ((struct folio *)folio, index) +
				   (page - folio) / bpf_core_type_size(struct page);
			e->bytes = w->bytes;
			e->owner = w->owner;
			ev_send(e);
		}
		if (!bpf_map_delete_elem(&folios, &folio)) {
			count(CNT_FOLIO_DEL);
			__sync_fetch_and_add(&g->folios, -1);
		}
	}
	w->last = folio;
	w->off += chunk;
	w->left -= chunk;
	w->bvec_done += chunk;
	if (w->bvec_done >= bv.bv_len) {
		w->idx++;
		w->bvec_done = 0;
	}
	return 0;
}

/*
 * Steps a bio walk takes at most (256 MiB of 4 KiB folios). A bio_vec
 * holds as many pages as lie one after another in memory: writeback of
 * small folios (mkfs -d writing an image) makes bios of thousands.
 */
#define WALK_MAX (1 << 16)

static __always_inline void on_bio_queue(struct bio *bio)
{
	struct gates *g = gates_get();
	struct walk w = {};

	if (!g || g->folios <= 0)
		return;
	/* folios go out in a write, come in by a read (a discard has a size, no pages) */
	if ((bio->bi_opf & 0xff) > REQ_OP_WRITE)
		return;
	w.bio = bio;
	w.vecs = bio->bi_io_vec;
	w.sector = bio->bi_iter.bi_sector;
	w.left = w.bytes = bio->bi_iter.bi_size;
	w.idx = bio->bi_iter.bi_idx;
	w.bvec_done = bio->bi_iter.bi_bvec_done;
	bpf_loop(WALK_MAX, walk_page, &w, 0);
	if (w.left)
		count(CNT_WALK_CUT);
}

/*
 * A bio larger than the disk takes is split (block/blk-merge.c): its
 * front part goes on as a new bio, chained to the rest (bi_private), and
 * the rest is queued again. The part of a marked bio takes its mark.
 */
static __always_inline void on_split(struct bio *part)
{
	__u64 parent = (__u64)part->bi_private, key = (__u64)part;
	struct gates *g = gates_get();
	struct mark *m;
	struct event *e;

	if (!g || g->bios <= 0)
		return;
	m = bpf_map_lookup_elem(&bios, &parent);
	if (!m)
		return;
	/* an address marked already (a bio whose end was missed): counted once */
	if (!bpf_map_update_elem(&bios, &key, m, BPF_NOEXIST)) {
		count(CNT_BIOS);
		__sync_fetch_and_add(&g->bios, 1);
	} else if (bpf_map_update_elem(&bios, &key, m, BPF_EXIST)) {
		count(CNT_MARK_FAIL);
		return;
	}
	e = ev_new(HOP_SPLIT, m);
	if (!e)
		return;
	e->bio = key;
	e->parent = parent;
	e->sector = part->bi_iter.bi_sector;
	e->bytes = part->bi_iter.bi_size;
	ev_send(e);
}

/* How a marked bio met its request: a new one (getrq), or a merge. */
static __always_inline void on_join(struct bio *bio, long how)
{
	struct gates *g = gates_get();
	__u64 key = (__u64)bio;
	struct mark *m;
	struct event *e;

	if (!g || g->bios <= 0)
		return;
	m = bpf_map_lookup_elem(&bios, &key);
	if (!m)
		return;
	e = ev_new(how ? HOP_MERGE : HOP_GETRQ, m);
	if (!e)
		return;
	e->bio = key;
	e->ret = how;
	ev_send(e);
}

/* A request's bios walked at most: a loop request can merge hundreds. */
#define RQ_BIOS_MAX 512

/* What a request's hop says, for rq_bio_hop(). */
struct rq_hop {
	__u64 rq, sector;
	__u32 bytes, hop;
	__s64 ret;
};

/*
 * One bio of a request: a hop if it is marked, and at completion its
 * mark goes. A global function, checked once by the verifier, not once
 * a round of on_rq()'s loop: it takes numbers and plain memory.
 */
__noinline int rq_bio_hop(__u64 bio, const struct rq_hop *h)
{
	struct gates *g = gates_get();
	struct mark *m = bpf_map_lookup_elem(&bios, &bio);
	struct event *e;

	if (!m || !g || !h)
		return 0;
	e = ev_new(h->hop, m);
	if (e) {
		e->bio = bio;
		e->rq = h->rq;
		e->sector = h->sector;
		e->bytes = h->bytes;
		e->ret = h->ret;
		ev_send(e);
	}
	if (h->hop == HOP_DONE && !bpf_map_delete_elem(&bios, &bio)) {
		count(CNT_BIO_DEL);
		__sync_fetch_and_add(&g->bios, -1);
	}
	return 0;
}

/*
 * bio -> request. A bio starts a request or merges into one
 * already there; either way the request names its bios (rq->bio, then
 * bi_next): at issue each marked one is a hop. At completion the bios
 * that nr_bytes cover end right after the tracepoint
 * (blk_update_request()): each marked one is a hop, and its mark goes.
 * A write's flush data step (a loop device's fsync) is not its end.
 */
static __always_inline void on_rq(struct request *rq, __u32 hop, int error,
				  unsigned int nr_bytes)
{
	struct gates *g = gates_get();
	struct rq_hop h;
	__u64 bio, done = 0;
	int i;

	if (!g || g->bios <= 0)
		return;
	if (hop == HOP_DONE && rq_flush_data_step(rq))
		return;
	h = (struct rq_hop){ .rq = (__u64)rq, .sector = rq->__sector,
			     .bytes = rq->__data_len, .hop = hop, .ret = error };
	bio = (__u64)BPF_CORE_READ(rq, bio);	/* a number, for rq_bio_hop() */
	for (i = 0; i < RQ_BIOS_MAX && bio; i++) {
		done += BPF_CORE_READ((struct bio *)bio, bi_iter.bi_size);
		if (hop == HOP_DONE && done > nr_bytes)
			return;	/* that bio ends in a later completion */
		rq_bio_hop(bio, &h);
		bio = (__u64)BPF_CORE_READ((struct bio *)bio, bi_next);
	}
	if (bio)
		count(CNT_WALK_CUT);
}

/* block_bio_complete: a marked bio of a bio-based disk ended. */
static __always_inline void on_bio_end(struct bio *bio)
{
	struct gates *g = gates_get();
	__u64 key = (__u64)bio;
	struct mark *m;
	struct event *e;

	if (!g || g->bios <= 0)
		return;
	m = bpf_map_lookup_elem(&bios, &key);
	if (!m)
		return;
	e = ev_new(HOP_DONE, m);
	if (e) {
		e->bio = key;
		e->ret = BPF_CORE_READ(bio, bi_status);
		ev_send(e);
	}
	if (!bpf_map_delete_elem(&bios, &key)) {
		count(CNT_BIO_DEL);
		__sync_fetch_and_add(&g->bios, -1);
	}
}

/*
 * The tracepoint door, one program per tracepoint. sys_enter and
 * sys_exit fire for every system call of every task: sys_enter compares
 * the number first, sys_exit does one lookup in tasks.
 */
SEC("tp_btf/sys_enter")
int BPF_PROG(sys_enter_btf, struct pt_regs *regs, long id)
{
	if (id == nr_call || id == nr_pcall)
		on_call_enter();
	else if (follow == KIND_WRITE && (id == nr_fsync || id == nr_fdatasync))
		on_fsync_enter();
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(sys_exit_btf, struct pt_regs *regs, long ret)
{
	on_sys_exit(ret);
	return 0;
}

/* In folio_account_dirtied(): a clean folio became dirty. */
SEC("tp_btf/writeback_dirty_folio")
int BPF_PROG(writeback_dirty_folio_btf, struct folio *folio, struct address_space *mapping)
{
	on_folio(folio, mapping, KIND_WRITE);
	return 0;
}

/* In filemap_add_folio(): a folio joined the cache (a read, readahead). */
SEC("tp_btf/mm_filemap_add_to_page_cache")
int BPF_PROG(mm_filemap_add_to_page_cache_btf, struct folio *folio)
{
	on_folio(folio, BPF_CORE_READ(folio, mapping), KIND_READ);
	return 0;
}

SEC("tp_btf/mm_filemap_delete_from_page_cache")
int BPF_PROG(mm_filemap_delete_from_page_cache_btf, struct folio *folio)
{
	on_folio_gone(folio);
	return 0;
}

SEC("tp_btf/block_bio_queue")
int BPF_PROG(block_bio_queue_btf, struct bio *bio)
{
	on_bio_queue(bio);
	return 0;
}

/* In bio_submit_split(), the part chained to the rest. */
SEC("tp_btf/block_split")
int BPF_PROG(block_split_btf, struct bio *part, unsigned int new_sector)
{
	on_split(part);
	return 0;
}

/* In blk_mq_submit_bio(): the bio starts a new request. */
SEC("tp_btf/block_getrq")
int BPF_PROG(block_getrq_btf, struct bio *bio)
{
	on_join(bio, 0);
	return 0;
}

/* In the merge code (block/blk-merge.c): the bio joins a request there. */
SEC("tp_btf/block_bio_backmerge")
int BPF_PROG(block_bio_backmerge_btf, struct bio *bio)
{
	on_join(bio, 1);
	return 0;
}

SEC("tp_btf/block_bio_frontmerge")
int BPF_PROG(block_bio_frontmerge_btf, struct bio *bio)
{
	on_join(bio, 2);
	return 0;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(block_rq_issue_btf, struct request *rq)
{
	on_rq(rq, HOP_ISSUE, 0, 0);
	return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(block_rq_complete_btf, struct request *rq, blk_status_t error,
	     unsigned int nr_bytes)
{
	on_rq(rq, HOP_DONE, error, nr_bytes);
	return 0;
}

/*
 * A bio-based disk (dm, md) ends its bios without a request: the end of
 * a marked bio there is its completion, and its mark goes.
 */
SEC("tp_btf/block_bio_complete")
int BPF_PROG(block_bio_complete_btf, struct request_queue *q, struct bio *bio)
{
	on_bio_end(bio);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
