// SPDX-License-Identifier: GPL-2.0
/*
 * full_stack, the BPF side: one sampled write() followed down the
 * layers. The choice is made once, at the system call; each layer hands
 * it on in a map keyed by what it passes to the next: task -> folio ->
 * bio, and the request names its bios. Everything else costs one map
 * lookup and returns.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "ringbuf.bpf.h"
#include "pagecache.bpf.h"
#include "flush_step.bpf.h"
#include "rq_batch.bpf.h"
#include "full_stack.h"

/* Set by the user side before load. */
const volatile bool quiet = false;	/* -q: no events, counts only */
const volatile __u32 targ_dev = 0;	/* -d: the disk's dev_t, 0 = every disk */
const volatile __u32 self_tgid = 0;	/* this tracer: its own writes are not sampled */
const volatile bool filter_comm = false;	/* -c: the task's name */
const volatile char targ_comm[16] = {};
const volatile __u64 sample_n = 100;	/* -s N: 1 write() in N */
const volatile __u32 page_shift = 12;
/* This architecture's numbers of write() and pwrite64(), from <sys/syscall.h>. */
const volatile long nr_write = -1, nr_pwrite = -1;

/* The stage's counters (full_stack.h: enum count), per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CNT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

/*
 * Lesson#1: the marks. What a layer hands on, one LRU hash each. A folio
 * that leaves the page cache unwritten (its file truncated) takes its
 * mark with it; anything else nobody hands on is dropped by the LRU when
 * the map is full, and counted (user side: the gate less the marks left).
 *   tasks:  thread ID -> the sample, inside the sampled write()
 *   folios: folio -> the sample, from the write() that dirtied it
 *   bios:   bio -> the sample, from a marked folio in its pages (and
 *           a split bio's front part, from the bio)
 */
struct mark {
	__u64 id;	/* the sample: the write()'s number */
	__u64 t0;	/* when it was entered */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct mark);
} tasks SEC(".maps");

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
 * Lesson#2: the gates, in one entry: how many folio and bio marks are
 * out. While none is, block_bio_queue and the request tracepoints
 * return after this one lookup, without walking any pages or bios. (A
 * mark the LRU evicts is not taken off: the gate stays open, which costs
 * walks, never a hop; at exit, the gate less the marks left is what the
 * LRU evicted.)
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct gates);
} gates SEC(".maps");

/* The write() calls -c lets in, numbered for 1 in N: one count for all CPUs. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} calls SEC(".maps");

/* Every hop of a sampled write(), to this run's reader only. */
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

/*
 * A mark stored, its gate counting it once: an address marked already
 * (a folio or bio freed with its mark, its address in use again) gets
 * the new mark in place.
 */
static __always_inline int mark_add(void *map, __u64 key, const struct mark *m, __s64 *gate)
{
	if (!bpf_map_update_elem(map, &key, m, BPF_NOEXIST)) {
		__sync_fetch_and_add(gate, 1);
		return 0;
	}
	if (bpf_map_update_elem(map, &key, m, BPF_EXIST)) {
		count(CNT_MARK_FAIL);
		return -1;
	}
	return 0;
}

/* A mark taken off, and off its gate. */
static __always_inline void mark_del(void *map, __u64 key, __s64 *gate)
{
	if (!bpf_map_delete_elem(map, &key))
		__sync_fetch_and_add(gate, -1);
}

/* Reserve an event and fill what every hop has: time, CPU, task, sample. */
static __always_inline struct event *ev_new(__u32 hop, const struct mark *m)
{
	struct event *e;

	if (quiet)
		return NULL;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		count(CNT_RB_FULL);
		return NULL;
	}
	__builtin_memset(e, 0, sizeof(*e));
	e->hop = hop;
	e->ts = bpf_ktime_get_ns();
	e->cpu = bpf_get_smp_processor_id();
	e->pid = bpf_get_current_pid_tgid();
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	e->id = m->id;
	e->t0 = m->t0;
	return e;
}

static __always_inline void ev_send(struct event *e)
{
	bpf_ringbuf_submit(e, ringbuf_wakeup(&events));
}

/* -c: is the current task one to sample? Never the tracer itself. */
static __always_inline bool task_wanted(void)
{
	char comm[16];

	if (bpf_get_current_pid_tgid() >> 32 == self_tgid)
		return false;
	if (!filter_comm)
		return true;
	bpf_get_current_comm(comm, sizeof(comm));
	for (int i = 0; i < 16; i++) {
		if (comm[i] != targ_comm[i])
			return false;
		if (!comm[i])
			break;
	}
	return true;
}

/*
 * Lesson#3: the decision, once per call: 1 in N with a modulo, which the
 * RFC's programs could not use (its first complaint). The sampled task
 * gets a mark until its write() returns.
 */
static __always_inline void on_write_enter(void)
{
	__u32 key = 0, tid = bpf_get_current_pid_tgid();
	struct mark m;
	struct event *e;
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
	if (bpf_map_update_elem(&tasks, &tid, &m, BPF_ANY)) {
		count(CNT_MARK_FAIL);
		return;
	}
	e = ev_new(HOP_ENTER, &m);
	if (e) {
		e->ts = m.t0;
		ev_send(e);
	}
}

/*
 * The sampled task's write() returns: at vfs_write()'s return, or at its
 * next sys_exit (system calls do not nest).
 */
static __always_inline void on_write_return(long ret)
{
	__u32 tid = bpf_get_current_pid_tgid();
	struct mark *m = bpf_map_lookup_elem(&tasks, &tid);
	struct event *e;

	if (!m)
		return;
	e = ev_new(HOP_RETURN, m);
	if (e) {
		e->ret = ret;
		ev_send(e);
	}
	bpf_map_delete_elem(&tasks, &tid);
}

/*
 * Lesson#4: the page cache. Inside its write() the sampled task makes a
 * clean folio dirty: the folio takes the task's mark.
 */
static __always_inline void on_folio_dirty(struct folio *folio, struct address_space *mapping)
{
	__u32 tid = bpf_get_current_pid_tgid();
	struct mark *m = bpf_map_lookup_elem(&tasks, &tid);
	__u64 key = (__u64)folio;
	struct gates *g = gates_get();
	struct event *e;

	if (!m || !g || !mapping)
		return;
	if (targ_dev && mapping_dev(mapping) != targ_dev)
		return;
	if (mark_add(&folios, key, m, &g->folios))
		return;
	e = ev_new(HOP_FOLIO, m);
	if (!e)
		return;
	e->folio = key;
	e->ino = BPF_CORE_READ(mapping, host, i_ino);
	e->index = BPF_CORE_READ(folio, index);
	ev_send(e);
}

/* A folio leaves the page cache (truncated, or reclaimed once clean). */
static __always_inline void on_folio_gone(struct folio *folio)
{
	struct gates *g = gates_get();
	__u64 key = (__u64)folio;

	if (g && g->folios > 0)
		mark_del(&folios, key, &g->folios);
}

/* A truncation's batch of folios (the function doors; 15 or 31 a batch). */
#define FBATCH_MAX 64

static __always_inline void on_folios_gone(struct folio_batch *fbatch)
{
	struct gates *g = gates_get();
	unsigned int n = BPF_CORE_READ(fbatch, nr);
	struct folio *folio;

	if (!g || g->folios <= 0)
		return;
	for (int i = 0; i < FBATCH_MAX && i < n; i++) {
		if (bpf_core_read(&folio, sizeof(folio), &fbatch->folios[i]))
			break;
		on_folio_gone(folio);
	}
}

/*
 * Lesson#5: folio -> bio. Writeback (a kworker, or fsync() in the
 * writer) builds a bio of dirty pages. Walk its pages from its iterator,
 * a page or the rest of a large folio a step; a page's folio is its head
 * page (page_folio_addr()). A marked folio hands its mark to the bio, and
 * the page's sector is the bio's plus the bytes before it.
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
			mark_add(&bios, (__u64)w->bio, m, &g->bios);
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
			ev_send(e);
		}
		mark_del(&folios, folio, &g->folios);
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
	/* a dirty folio goes out in a write (a discard has a size, no pages) */
	if ((bio->bi_opf & 0xff) != REQ_OP_WRITE)
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
 * front part goes on as a new bio, chained to the rest (its parent), and
 * the rest is queued again. The part of a marked bio takes its mark.
 */
static __always_inline void on_split(struct bio *part, __u64 parent)
{
	__u64 key = (__u64)part;
	struct gates *g = gates_get();
	struct mark *m;
	struct event *e;

	if (!g || g->bios <= 0)
		return;
	m = bpf_map_lookup_elem(&bios, &parent);
	if (!m)
		return;
	if (mark_add(&bios, key, m, &g->bios))
		return;
	e = ev_new(HOP_SPLIT, m);
	if (!e)
		return;
	e->bio = key;
	e->parent = parent;
	e->sector = part->bi_iter.bi_sector;
	e->bytes = part->bi_iter.bi_size;
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
 * mark goes. A global function: the verifier checks it once, not once a
 * round of on_rq()'s loop; it takes numbers and plain memory, not BTF
 * pointers.
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
	if (h->hop == HOP_DONE)
		mark_del(&bios, bio, &g->bios);
	return 0;
}

/*
 * Lesson#6: bio -> request. A bio starts a request or merges into one
 * already there; either way the request names its bios (rq->bio, then
 * bi_next): at issue each marked one is a hop. At completion the bios
 * that nr_bytes cover end right after the tracepoint
 * (blk_update_request()): each marked one is a hop, and its mark goes.
 * rq may be a plain number (a batch's, below): fields are read with
 * BPF_CORE_READ().
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
	if (hop == HOP_DONE && rq_flush_data_step_core(rq))
		return;	/* a data step: its bios end later */
	h = (struct rq_hop){ .rq = (__u64)rq, .sector = BPF_CORE_READ(rq, __sector),
			     .bytes = BPF_CORE_READ(rq, __data_len), .hop = hop, .ret = error };
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

/* Each request of a batch (NVMe) ends whole, without an error. */
__noinline int rq_done_batched(__u64 rq)
{
	on_rq((struct request *)rq, HOP_DONE, 0, ~0U);
	return 0;
}

/*
 * Lesson#7: the doors, a program per door and point; the user side keeps
 * one door per point and switches the rest off before load. No kprobe
 * door: a kprobe program cannot run while another runs on its CPU, and
 * a bio walk is long enough for an I/O's end, in an interrupt, to be
 * missed. fentry and tp_btf programs are kept apart per program.
 *
 * The write() itself: vfs_write() in the function doors. sys_enter and
 * sys_exit fire for every system call of every task: sys_enter compares
 * the number first, sys_exit does one lookup in tasks.
 */
SEC("fentry/vfs_write")
int BPF_PROG(vfs_write_fentry)
{
	on_write_enter();
	return 0;
}

SEC("fexit/vfs_write")
int BPF_PROG(vfs_write_fexit, struct file *file, const char *buf, size_t len, loff_t *pos,
	     long ret)
{
	on_write_return(ret);
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(sys_enter_btf, struct pt_regs *regs, long id)
{
	if (id == nr_write || id == nr_pwrite)
		on_write_enter();
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(sys_exit_btf, struct pt_regs *regs, long ret)
{
	on_write_return(ret);
	return 0;
}

/* A clean folio became dirty; the tracepoint is in folio_account_dirtied(). */
SEC("fentry/__folio_mark_dirty")
int BPF_PROG(folio_mark_dirty_fentry, struct folio *folio, struct address_space *mapping)
{
	on_folio_dirty(folio, mapping);
	return 0;
}

SEC("tp_btf/writeback_dirty_folio")
int BPF_PROG(writeback_dirty_folio_btf, struct folio *folio, struct address_space *mapping)
{
	on_folio_dirty(folio, mapping);
	return 0;
}

/* A folio leaves the page cache: one, or a truncation's batch. */
SEC("fentry/__filemap_remove_folio")
int BPF_PROG(filemap_remove_folio_fentry, struct folio *folio)
{
	on_folio_gone(folio);
	return 0;
}

SEC("fentry/delete_from_page_cache_batch")
int BPF_PROG(delete_batch_fentry, struct address_space *mapping, struct folio_batch *fbatch)
{
	on_folios_gone(fbatch);
	return 0;
}

SEC("tp_btf/mm_filemap_delete_from_page_cache")
int BPF_PROG(mm_filemap_delete_from_page_cache_btf, struct folio *folio)
{
	on_folio_gone(folio);
	return 0;
}

/*
 * A bio goes to its disk, its sector the disk's (a partition's start
 * added before); the tracepoint fires inside, once a bio.
 */
SEC("fentry/submit_bio_noacct_nocheck")
int BPF_PROG(submit_bio_noacct_nocheck_fentry, struct bio *bio)
{
	on_bio_queue(bio);
	return 0;
}

SEC("tp_btf/block_bio_queue")
int BPF_PROG(block_bio_queue_btf, struct bio *bio)
{
	on_bio_queue(bio);
	return 0;
}

/* The part chained to the rest, then block_split fires (block/blk-merge.c). */
SEC("fentry/bio_chain")
int BPF_PROG(bio_chain_fentry, struct bio *part, struct bio *parent)
{
	on_split(part, (__u64)parent);
	return 0;
}

SEC("tp_btf/block_split")
int BPF_PROG(block_split_btf, struct bio *part, unsigned int new_sector)
{
	on_split(part, (__u64)part->bi_private);
	return 0;
}

/* The driver takes the request; block_rq_issue fires inside. */
SEC("fentry/blk_mq_start_request")
int BPF_PROG(blk_mq_start_request_fentry, struct request *rq)
{
	on_rq(rq, HOP_ISSUE, 0, 0);
	return 0;
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(block_rq_issue_btf, struct request *rq)
{
	on_rq(rq, HOP_ISSUE, 0, 0);
	return 0;
}

/* The tracepoint fires at its top, and for each request of a batch. */
SEC("fentry/blk_update_request")
int BPF_PROG(blk_update_request_fentry, struct request *rq, blk_status_t error,
	     unsigned int nr_bytes)
{
	on_rq(rq, HOP_DONE, error, nr_bytes);
	return 0;
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(block_rq_complete_btf, struct request *rq, blk_status_t error,
	     unsigned int nr_bytes)
{
	on_rq(rq, HOP_DONE, error, nr_bytes);
	return 0;
}

/* NVMe ends requests in batches, without blk_update_request() (5.16+). */
SEC("fentry/blk_mq_end_request_batch")
int BPF_PROG(blk_mq_end_request_batch_fentry, struct io_comp_batch *iob)
{
	if (rq_batch_walk(iob, rq_done_batched))
		count(CNT_WALK_CUT);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
