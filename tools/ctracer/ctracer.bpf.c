// SPDX-License-Identifier: GPL-2.0
/*
 * ctracer, the BPF side: one event for every function (or tracepoint) a
 * bio goes through, sent to user space through a ring buffer.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "disk.bpf.h"
#include "bio_end.bpf.h"
#include "loop_worker.bpf.h"
#include "dm_clone.bpf.h"
#include "ctracer.h"

/* Set by the user side before load. */
const volatile bool quiet = false;	/* -q: count, send nothing */
const volatile __u32 targ_dev = 0;	/* -d: the disk's dev_t, 0 = every disk */
const volatile __u32 targ_pid = 0;	/* -p: the process, 0 = every one */
const volatile bool targ_sectors = false;	/* -s: a sector range */
const volatile __u64 targ_first = 0, targ_last = 0;	/* -s: its first, last sector */
const volatile bool returns = false;	/* -r: the returns are attached too */

/*
 * Lesson#1: a ring buffer carries the events to user space, in order, as
 * records of any size; one buffer shared by every CPU. When it is full,
 * bpf_ringbuf_reserve() fails: the event is counted, not waited for.
 */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);	/* bytes: about 90,000 events */
} events SEC(".maps");

/* ctracer's counters (enum ct_stat), per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, CT_STAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} ctstats SEC(".maps");

/*
 * -p, -s: the bios the process submitted (or submitted inside the
 * range), followed to their end whatever task or interrupt then handles
 * them. An ended bio's entry stays until its address begins again (the
 * function doors), and an address may never come back: LRU, so that a
 * full map forgets the entries used least lately, ended bios' first. One
 * forgotten before its bio ended is counted at exit (CT_FOLLOW_IN, _OUT).
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, u64);	/* struct bio * */
	__type(value, u8);	/* FOLLOWED, FOLLOWED_ENDED (followed_bio()) */
} followed SEC(".maps");

/*
 * -r: the calls entered and not yet returned, so that a return (which
 * cannot read the arguments: a kretprobe's registers are the callee's)
 * knows its bio, and only a call that passed the filters sends one. A
 * return may never come (a kretprobe out of instances, a thread gone):
 * LRU, and a call forgotten before its return is counted at exit
 * (CT_CALLS_IN, _OUT).
 */
struct call_key {
	u64 who;	/* the thread; in an interrupt, its CPU and context */
	u32 idx;	/* the function */
	u32 ctx;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct call_key);
	__type(value, u64);	/* struct bio * */
} calls SEC(".maps");

/*
 * The function doors: the addresses bio_init() began again since their
 * last event sent. The first event sent after it says so (CT_BEGIN),
 * bio_init()'s own or, where that is not sent (-d: the disk is not set
 * yet; -p, -s: not decided yet; dropped: the ring buffer full), the
 * next: the new life's events do not join the last life's tree. Most
 * under -d are other disks' bios, never sent: LRU, they are forgotten.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, u64);	/* struct bio * */
	__type(value, u8);
} begun SEC(".maps");

/*
 * Stacked devices (Lesson#8): what each loop worker thread's list of
 * requests held when last read (loop_worker.bpf.h), and under -d the
 * bios sent below the disk for the disk's own. Not under -q: it counts
 * the disk's own events only.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, u32);	/* the worker's thread */
	__type(value, struct loop_seen);
} serving SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, u64);	/* struct bio * */
	__type(value, u8);
} stacked SEC(".maps");

bool stacking;	/* a bio was sent below the -d disk: look in stacked */
__u64 loop_queued;	/* loop works queued: a request added to a worker's list */

/*
 * Lesson#2: task, softirq or hardirq? The CPU's preempt count says
 * (include/linux/preempt.h). x86 keeps it per CPU: __preempt_count to
 * 6.1 and again from 6.15, pcpu_hot.preempt_count in between (6.2).
 * These are plain addresses from /proc/kallsyms, not BTF-typed ksyms: a
 * kernel without CONFIG_KALLSYMS_ALL (this project's host) lists no data
 * symbols and would refuse to load a program naming a typed one. Weak:
 * a symbol missing there is 0, and the stack tells what it can. arm64
 * keeps it in the task instead (below).
 */
extern const void __preempt_count __ksym __weak;
extern const void pcpu_hot __ksym __weak;
extern const void __per_cpu_offset __ksym __weak;

struct pcpu_hot___6_2 {
	int preempt_count;
} __attribute__((preserve_access_index));

#define PC_SOFTIRQ_OFFSET	0x100
#define PC_HARDIRQ_MASK		0xf0000
#define PC_NMI_MASK		0xf00000
#define TASK_STACK_SIZE		(16 << 10)	/* THREAD_SIZE: x86-64; arm64 with 4K pages. No KASAN */

#ifdef __TARGET_ARCH_arm64
/*
 * arm64: thread_info.preempt_count, first in the task_struct; a 64-bit
 * union whose low half (little-endian: the int read here) is the count.
 * Only arm64 objects carry this, so x86's program stays as it was.
 */
struct thread_info___arm64 {
	int preempt_count;
} __attribute__((preserve_access_index));

struct task_struct___arm64 {
	struct thread_info___arm64 thread_info;
} __attribute__((preserve_access_index));

static __always_inline int read_preempt_count(int *pc)
{
	struct task_struct___arm64 *task = (void *)bpf_get_current_task();

	if (!bpf_core_field_exists(task->thread_info.preempt_count))
		return -1;
	return bpf_core_read(pc, sizeof(*pc), &task->thread_info.preempt_count);
}
#else
/* This CPU's copy of a per-CPU variable: its address plus the CPU's offset. */
static __always_inline int read_preempt_count(int *pc)
{
	u64 base, var;

	if (!&__per_cpu_offset)
		return -1;
	if (&__preempt_count)
		var = (u64)&__preempt_count;
	else if (&pcpu_hot && bpf_core_field_exists(struct pcpu_hot___6_2, preempt_count))
		var = (u64)&pcpu_hot + bpf_core_field_offset(struct pcpu_hot___6_2, preempt_count);
	else
		return -1;
	if (bpf_probe_read_kernel(&base, sizeof(base),
				  (u64 *)&__per_cpu_offset + bpf_get_smp_processor_id()))
		return -1;
	return bpf_probe_read_kernel(pc, sizeof(*pc), (void *)(base + var));
}
#endif

static __always_inline u8 context(void *ctx)
{
	struct task_struct *task;
	u64 lo, here;
	int pc;

	if (!read_preempt_count(&pc)) {
		if (pc & PC_NMI_MASK)
			return CT_CTX_NMI;
		if (pc & PC_HARDIRQ_MASK)
			return CT_CTX_HARDIRQ;
		/* serving a softirq; a count above it is bottom halves disabled */
		if (pc & PC_SOFTIRQ_OFFSET)
			return CT_CTX_SOFTIRQ;
		return CT_CTX_TASK;
	}
	/*
	 * No count: the program's context (a tracepoint's arguments, a
	 * kprobe's registers, a trampoline's frame) lies on the kernel stack
	 * of whatever BPF interrupted, so on the current task's stack means
	 * task context; elsewhere it is an interrupt's stack (x86 runs
	 * hardirqs and softirqs on one). Not a local variable's address: a
	 * frame over 64 bytes runs on a per-CPU private stack (x86, 6.14+).
	 * ksoftirqd's softirqs look like a task here.
	 */
	task = bpf_get_current_task_btf();	/* BTF-typed: a plain load, no probe read */
	lo = (u64)task->stack;
	here = (u64)ctx;
	if (here >= lo && here < lo + TASK_STACK_SIZE)
		return CT_CTX_TASK;
	return CT_CTX_IRQ;
}

/*
 * The context an event carries. -q sends nothing, so it is not read (a
 * helper call and a probe read less per event), unless -r keys its calls
 * by it: on_return() reads it to find its call.
 */
static __always_inline u8 event_context(void *ctx)
{
	if (quiet && !returns)
		return CT_CTX_TASK;
	return context(ctx);
}

/* Who makes the call: an interrupt runs on one CPU, a task may move. */
static __always_inline void call_key(struct call_key *k, u32 idx, u8 ctx)
{
	u64 task = bpf_get_current_pid_tgid();

	k->idx = idx;
	k->ctx = ctx;
	if (ctx == CT_CTX_TASK && (u32)task)
		k->who = task;
	else
		k->who = 1ULL << 63 | bpf_get_smp_processor_id();
}

static __always_inline void ct_add(enum ct_stat s, __u64 n)
{
	__u32 key = s;
	__u64 *v = bpf_map_lookup_elem(&ctstats, &key);

	if (v)
		*v += n;
}

static __always_inline void ct_inc(enum ct_stat s)
{
	ct_add(s, 1);
}

/* -s: does the bio [sector, sector + size) meet the range? */
static __always_inline bool in_range(u64 sector, u32 size)
{
	u64 n = size >> 9;

	return sector <= targ_last && sector + (n ? n : 1) > targ_first;
}

/*
 * -p, -s: is this bio one of those followed? Its submit decides. In the
 * function doors it stays followed after its end (its bi_end_io and the
 * returns come after bio_endio()) until its address begins a new life:
 * in bio_init(), or where that is inlined (bio_alloc_bioset()) at the
 * next submit, which decides again; the tracepoint door sees no
 * bio_init(): there its end ends it. A part bio_split() cut off a
 * followed bio (parent: the bio it is chained to) is followed too,
 * wherever its sectors lie: -s and -p choose the bio a program
 * submitted, and its parts belong to it. Its first event followed is a
 * new life (FOLLOW_NEW): the part's address may be a part's before it,
 * already ended (a slow disk, an emulated CPU).
 */
enum { FOLLOW_NO, FOLLOW_YES, FOLLOW_NEW };
#define FOLLOWED	CT_FOLLOWED
#define FOLLOWED_ENDED	CT_FOLLOWED_ENDED	/* function doors: after its end */

/* Follow bio from here: FOLLOWED, or FOLLOWED_ENDED (first seen at its end). */
static __always_inline void follow_from_here(u64 bio, u8 how)
{
	if (bpf_map_update_elem(&followed, &bio, &how, BPF_ANY))
		ct_inc(CT_PID_FULL);
	else if (how == FOLLOWED)
		ct_inc(CT_FOLLOW_IN);
}

/* The address begins a new bio: the last one is no longer followed. */
static __always_inline void unfollow(u64 bio)
{
	u8 *f = bpf_map_lookup_elem(&followed, &bio);

	if (!f)
		return;
	if (*f == FOLLOWED)	/* its end was not seen */
		ct_inc(CT_FOLLOW_OUT);
	bpf_map_delete_elem(&followed, &bio);
}

static __always_inline int followed_bio(u64 bio, u64 parent, u8 flags, u64 sector,
					u32 size, bool functions)
{
	u8 *f;

	if (flags & CT_BEGIN) {
		unfollow(bio);
		if (functions)	/* bio_init(): its fields are still the last life's */
			return FOLLOW_NO;
	} else if (flags & CT_SUBMIT) {
		/* submitted again before its end (a split's rest): still followed */
		f = bpf_map_lookup_elem(&followed, &bio);
		if (f && *f == FOLLOWED)
			return FOLLOW_YES;
		/* else a new life, bio_init() inlined or not seen: decided here */
		if ((!targ_pid || bpf_get_current_pid_tgid() >> 32 == targ_pid) &&
		    (!targ_sectors || in_range(sector, size))) {
			follow_from_here(bio, FOLLOWED);
			return FOLLOW_YES;
		}
		if (f)
			bpf_map_delete_elem(&followed, &bio);
	} else if (flags & CT_END) {
		if (!functions) {	/* its end ends it: nothing comes after */
			if (bpf_map_delete_elem(&followed, &bio))
				return FOLLOW_NO;
			ct_inc(CT_FOLLOW_OUT);
			return FOLLOW_YES;
		}
		f = bpf_map_lookup_elem(&followed, &bio);
		if (f) {
			if (*f == FOLLOWED)
				ct_inc(CT_FOLLOW_OUT);
			*f = FOLLOWED_ENDED;
			return FOLLOW_YES;
		}
	} else if (bpf_map_lookup_elem(&followed, &bio)) {
		return FOLLOW_YES;
	}
	if (!parent || !bpf_map_lookup_elem(&followed, &parent))
		return FOLLOW_NO;
	follow_from_here(bio, functions && (flags & CT_END) ? FOLLOWED_ENDED : FOLLOWED);
	return FOLLOW_NEW;
}

/* The bio a chained bio ends into (bio_chain(): a split's part), or 0. */
static __always_inline u64 chain_parent(struct bio *bio, bool core)
{
	void *end_io = core ? BPF_CORE_READ(bio, bi_end_io) : bio->bi_end_io;

	if (!&bio_chain_endio || end_io != (void *)&bio_chain_endio)
		return 0;
	return (u64)(core ? BPF_CORE_READ(bio, bi_private) : bio->bi_private);
}

/*
 * Lesson#3: the bio's fields, as tp_btf programs read them (plain loads,
 * checked by the verifier) and as kprobe programs must (BPF_CORE_READ()).
 * A bio chained to another (bio_chain(): a split's front part, pieces of
 * a large discard) ends into it: bi_private is that parent.
 */
static __always_inline void fill(struct ct_event *e, struct bio *bio)
{
	e->sector = bio->bi_iter.bi_sector;
	e->size = bio->bi_iter.bi_size;
	e->opf = bio->bi_opf;
	e->status = bio->bi_status;
	e->parent = chain_parent(bio, false);
}

static __always_inline void fill_core(struct ct_event *e, struct bio *bio)
{
	e->sector = BPF_CORE_READ(bio, bi_iter.bi_sector);
	e->size = BPF_CORE_READ(bio, bi_iter.bi_size);
	e->opf = BPF_CORE_READ(bio, bi_opf);
	e->status = BPF_CORE_READ(bio, bi_status);
	e->parent = chain_parent(bio, true);
}

/* An event's common part: when, where, who. */
static __always_inline struct ct_event *event(u64 bio, u32 id, u8 flags, u8 ctx)
{
	struct ct_event *e;

	ct_inc(CT_EVENTS);
	if (quiet)
		return NULL;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		ct_inc(CT_RB_DROP);
		return NULL;
	}
	e->bio = bio;
	e->parent = 0;
	e->ts = bpf_ktime_get_ns();
	e->id = id;
	e->flags = flags;
	e->ctx = ctx;
	e->pid = (u32)bpf_get_current_pid_tgid();
	e->cpu = bpf_get_smp_processor_id();
	e->sector = 0;
	e->dev = 0;
	e->size = 0;
	e->opf = 0;
	e->status = 0;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	return e;
}

/*
 * Lesson#8: stacked devices. A bio a loop worker submits is for the
 * request the worker serves (loop_worker.bpf.h): the first bio of that
 * request (it may carry more, merged) is its parent, above it. 0: not a
 * loop worker, or which of its requests is not known (counted). A
 * device-mapper clone needs no such search: it names the bio it was made
 * for (dm_clone.bpf.h, in emit()). Not linked: a loop or dm_mod module
 * loaded after ctracer started (its BTF and symbols are read at load).
 */
#define PF_WQ_WORKER	0x20	/* include/linux/sched.h: a workqueue's kworker */

static __always_inline u64 stacked_above(bool *unknown)
{
	struct task_struct *task;
	struct loop_seen *s;
	u32 tid;
	u64 upper;

	if (quiet)
		return 0;
	task = bpf_get_current_task_btf();
	if (!(task->flags & PF_WQ_WORKER))	/* a task's bio: no lookup */
		return 0;
	tid = (u32)bpf_get_current_pid_tgid();
	s = bpf_map_lookup_elem(&serving, &tid);
	if (!s)
		return 0;
	upper = loop_serving(s, s->queued != loop_queued);
	if (!upper) {
		ct_inc(CT_STACK_UNLINKED);
		*unknown = true;
	}
	return upper;
}

/*
 * -d, early: a bio of another disk is wanted only when a stacked device
 * sent it for one of the disk's (emit() decides): its submit, or any
 * event once one was. bio_init() goes on too: its disk is not set yet.
 */
static __always_inline bool other_disk(u32 dev, u8 flags)
{
	return targ_dev && dev != targ_dev && !stacking && !(flags & (CT_SUBMIT | CT_NO_DISK));
}

/*
 * The one handler: an event for bio at function or tracepoint id. core
 * says how to read it (a constant: the compiler keeps one branch).
 * status < 0: the bio's own bi_status, else the request's error. call:
 * a function door's event, whose return -r follows (calls remembers it).
 * ctx: where it runs, context() of the program's context.
 */
static __always_inline int emit(struct bio *bio, u32 dev, u32 id, u8 flags, int status,
				bool core, bool call, u8 ctx)
{
	struct ct_event *e;
	struct call_key k;
	u64 sector, upper = 0, above, b = (u64)bio;
	u32 size;
	bool unknown = false;
	int follow, err;	/* not long: 6.1 returns a 32-bit -EEXIST */
	u8 one = 1;

	/*
	 * A device-mapper clone names the bio it was made for (but not at
	 * bio_init(): its fields are still the last life's); else a bio a
	 * loop worker submits is for the request it serves.
	 */
	if (!quiet && !(flags & CT_BEGIN))
		upper = dm_origin(bio, core ? BPF_CORE_READ(bio, bi_end_io) : bio->bi_end_io);
	if (!upper && (flags & CT_SUBMIT))
		upper = stacked_above(&unknown);
	/*
	 * A new life for the address: bio_init() (inlined in some kernels),
	 * or a submit not sent for a bio above. A loop worker's bio whose
	 * request is not known may be one linked before, submitted again
	 * (after a split): it stays.
	 */
	if ((flags & (CT_BEGIN | CT_SUBMIT)) && !upper && !unknown && stacking)
		bpf_map_delete_elem(&stacked, &b);
	/*
	 * bio_init(): the new life is marked in begun, for the first event
	 * sent. -d: its disk is still the last life's (a recycled bio, one
	 * on the stack), so it is not shown (for -p and -s, marked here too):
	 * the tree begins at the bio's next function.
	 */
	if (!quiet && (flags & CT_NO_DISK))
		bpf_map_update_elem(&begun, &b, &one, BPF_ANY);
	if (targ_dev && (flags & CT_NO_DISK)) {
		if (targ_pid || targ_sectors)
			unfollow(b);
		return 0;
	}
	/* -d: the disk's bios, those sent below it for them, and their parts */
	if (targ_dev && dev != targ_dev) {
		above = upper ?: (stacking ? chain_parent(bio, core) : 0);
		if (above && ((upper && bio_dev_core((struct bio *)upper) == targ_dev) ||
			      bpf_map_lookup_elem(&stacked, &above))) {
			if (bpf_map_update_elem(&stacked, &b, &one, BPF_ANY))
				ct_inc(CT_STACK_FULL);
			stacking = true;
		} else if (!stacking || !bpf_map_lookup_elem(&stacked, &b)) {
			return 0;
		}
	}
	if (upper)
		flags |= CT_STACKED;
	if (targ_pid || targ_sectors) {
		sector = core ? BPF_CORE_READ(bio, bi_iter.bi_sector) : bio->bi_iter.bi_sector;
		size = core ? BPF_CORE_READ(bio, bi_iter.bi_size) : bio->bi_iter.bi_size;
		follow = followed_bio((u64)bio, upper ?: chain_parent(bio, core), flags, sector,
				      size, call);
		if (follow == FOLLOW_NO)
			return 0;
		if (follow == FOLLOW_NEW)	/* the user side starts a new tree */
			flags |= CT_BEGIN;
	}
	if (call && returns) {
		call_key(&k, id, ctx);
		/* the same function again in the same thread: it replaces the outer call */
		err = bpf_map_update_elem(&calls, &k, &b, BPF_NOEXIST);
		if (!err)
			ct_inc(CT_CALLS_IN);
		else if (err != -EEXIST || bpf_map_update_elem(&calls, &k, &b, BPF_EXIST))
			ct_inc(CT_CALLS_FULL);
	}
	e = event((u64)bio, id, flags, ctx);
	if (!e)
		return 0;
	if (core)
		fill_core(e, bio);
	else
		fill(e, bio);
	if (status >= 0)
		e->status = status;
	if (upper)
		e->parent = upper;
	e->dev = dev;
	/* the first event sent since bio_init() begins the tree: taken once sent */
	if (call && bpf_map_lookup_elem(&begun, &b)) {
		bpf_map_delete_elem(&begun, &b);
		e->flags = (flags | CT_BEGIN) & ~CT_CHAIN;
	}
	/*
	 * No wakeup: the user side reads the buffer on its 50 ms tick
	 * (ring_buffer__consume()) and never sleeps on it, so waking it (an
	 * irq_work, whenever it had caught up) is paid for nothing.
	 */
	bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
	return 0;
}

/*
 * -r: a function returned. Its call, if it passed the filters, is in
 * calls; the event carries no fields: the bio may be gone by now.
 */
static __always_inline int on_return(void *ctx, u32 idx)
{
	struct ct_event *e;
	struct call_key k;
	u64 *bio, b;

	call_key(&k, idx, context(ctx));
	bio = bpf_map_lookup_elem(&calls, &k);
	if (!bio)
		return 0;
	b = *bio;
	bpf_map_delete_elem(&calls, &k);
	ct_inc(CT_CALLS_OUT);
	e = event(b, idx, CT_RET, k.ctx);
	if (e)
		bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);	/* as in emit() */
	return 0;
}

/*
 * One event for a bio merged behind a request's first. A global function
 * (not inlined): the verifier checks it once, not once per turn of the
 * loop below, which older kernels (6.1) would find too long to walk.
 */
__noinline int rq_bio_event(u64 bio, u32 id, u32 flags, int status, u64 where)
{
	return emit((struct bio *)bio, where >> 8, id, flags, status, true, false, (u8)where);
}

/* where: the request's disk and the context, in one number (five arguments at most) */
#define RQ_WHERE(dev, ctx)	((u64)(dev) << 8 | (ctx))

/*
 * The bios merged behind a request's first, from bio along bi_next (loop
 * merges up to 320). A global function: the verifier checks its loop
 * once, but it takes plain numbers, not BTF pointers, so it reads with
 * BPF_CORE_READ().
 */
__noinline int rq_bios(u64 bio, u32 id, __s64 left, int status, u64 where)
{
	int i;

	for (i = 1; i < BIO_WALK_MAX && bio; i++) {
		if (bio_covered(BPF_CORE_READ((struct bio *)bio, bi_iter.bi_size), &left))
			rq_bio_event(bio, id, CT_END, status, where);
		else
			rq_bio_event(bio, id, 0, -1, where);
		bio = (u64)BPF_CORE_READ((struct bio *)bio, bi_next);
	}
	if (bio)
		ct_inc(CT_WALK_CUT);
	return 0;
}

/*
 * Lesson#4: the request-level tracepoints name a request, not a bio: one
 * event for each bio it carries, from the first (rq->bio) along bi_next.
 * At a completion of left bytes the bios at the head it covers are ended
 * (bio_covered(), bio_end.bpf.h); a bio only partly done, and every bio
 * after it, ends later; left -1: none ends. Most requests carry one bio:
 * it is read here, with plain loads (rq is BTF-typed); those merged
 * behind it go to rq_bios().
 */
static __always_inline int rq_event(void *ctx, struct request *rq, u32 id, __s64 left,
				    int status)
{
	u32 dev = rq_dev(rq);
	struct bio *bio = rq->bio;
	bool end;
	u8 c;
	int i;

	if (targ_dev && !stacking && dev != targ_dev)
		return 0;
	/* -q with nothing to decide per bio: an event each, counted, no more */
	if (quiet && !targ_pid && !targ_sectors) {
		for (i = 0; i < BIO_WALK_MAX && bio; i++)
			bio = bio->bi_next;
		ct_add(CT_EVENTS, i);
		if (bio)
			ct_inc(CT_WALK_CUT);
		return 0;
	}
	if (!bio)
		return 0;
	c = event_context(ctx);
	end = bio_covered(bio->bi_iter.bi_size, &left);
	emit(bio, dev, id, end ? CT_END : 0, end ? status : -1, false, false, c);
	/* read as a number: a global function takes no BTF pointer */
	if (bio->bi_next)
		rq_bios((u64)BPF_CORE_READ(bio, bi_next), id, left, status, RQ_WHERE(dev, c));
	return 0;
}

/*
 * Lesson#5: the function doors. One program serves every function: the
 * attach cookie (bpf_get_attach_cookie()) says which function fired and
 * which of its arguments is the bio. A kprobe sees the registers, so
 * the argument is picked by number: PT_REGS_PARM1 … PARM5. Their _CORE
 * forms read the register with bpf_probe_read_kernel(): the compiler
 * turns this switch into one load at a computed offset, and the
 * verifier refuses a load from the context at an offset it cannot see.
 */
static __always_inline int on_function(struct pt_regs *ctx)
{
	u64 cookie = bpf_get_attach_cookie(ctx);
	struct bio *bio;
	u32 dev;

	switch (CT_COOKIE_ARG(cookie)) {
	case 0:
		bio = (struct bio *)PT_REGS_PARM1_CORE(ctx);
		break;
	case 1:
		bio = (struct bio *)PT_REGS_PARM2_CORE(ctx);
		break;
	case 2:
		bio = (struct bio *)PT_REGS_PARM3_CORE(ctx);
		break;
	case 3:
		bio = (struct bio *)PT_REGS_PARM4_CORE(ctx);
		break;
	default:
		bio = (struct bio *)PT_REGS_PARM5_CORE(ctx);
		break;
	}
	if (!bio)
		return 0;
	dev = bio_dev_core(bio);
	if (other_disk(dev, CT_COOKIE_FLAGS(cookie)))
		return 0;
	return emit(bio, dev, CT_COOKIE_IDX(cookie), CT_COOKIE_FLAGS(cookie), -1, true, true,
		    event_context(ctx));
}

/* kprobe.multi (5.18, CONFIG_FPROBE): every function in one attachment. */
SEC("kprobe.multi")
int bio_func_multi(struct pt_regs *ctx)
{
	return on_function(ctx);
}

/* -r: their returns, in a second attachment. */
SEC("kretprobe.multi")
int bio_ret_multi(struct pt_regs *ctx)
{
	return on_return(ctx, CT_COOKIE_IDX(bpf_get_attach_cookie(ctx)));
}

/* Else one kprobe per function, each with its cookie (5.15). */
SEC("kprobe")
int bio_func_kprobe(struct pt_regs *ctx)
{
	return on_function(ctx);
}

SEC("kretprobe")
int bio_ret_kprobe(struct pt_regs *ctx)
{
	return on_return(ctx, CT_COOKIE_IDX(bpf_get_attach_cookie(ctx)));
}

/*
 * Lesson#6: the fentry door. An fentry program reads its arguments from
 * ctx[], an array the verifier types from the BTF of the one function
 * it is loaded for: the bio at ctx[1] is a struct bio * there, read with
 * plain loads. So one program per function: the user side loads these
 * templates (one per position of the bio, each for a function that has
 * it there), then for every function a copy of its template's
 * instructions with that function as the target, as retsnoop does. The
 * cookie of each attachment (5.19) says which function it is.
 */
static __always_inline int on_fentry(void *ctx, struct bio *bio)
{
	u64 cookie = bpf_get_attach_cookie(ctx);
	u32 dev;

	if (!bio)
		return 0;
	dev = bio_dev(bio);
	if (other_disk(dev, CT_COOKIE_FLAGS(cookie)))
		return 0;
	return emit(bio, dev, CT_COOKIE_IDX(cookie), CT_COOKIE_FLAGS(cookie), -1, false, true,
		    event_context(ctx));
}

SEC("fentry/submit_bio")
int BPF_PROG(bio_fentry_arg1, struct bio *bio)
{
	return on_fentry(ctx, bio);
}

SEC("fentry/blk_rq_append_bio")
int BPF_PROG(bio_fentry_arg2, void *a1, struct bio *bio)
{
	return on_fentry(ctx, bio);
}

SEC("fentry/__rq_qos_merge")
int BPF_PROG(bio_fentry_arg3, void *a1, void *a2, struct bio *bio)
{
	return on_fentry(ctx, bio);
}

/* No function of 6.1 to 6.18 has its bio there: a target only at run time. */
SEC("fentry")
int BPF_PROG(bio_fentry_arg4, void *a1, void *a2, void *a3, struct bio *bio)
{
	return on_fentry(ctx, bio);
}

SEC("fentry")
int BPF_PROG(bio_fentry_arg5, void *a1, void *a2, void *a3, void *a4, struct bio *bio)
{
	return on_fentry(ctx, bio);
}

/*
 * -r: fexit. It could read the arguments, but like a kretprobe it takes
 * the bio from its call: one template reads nothing of ctx, so it fits
 * every function.
 */
SEC("fexit/submit_bio")
int BPF_PROG(bio_fexit)
{
	return on_return(ctx, CT_COOKIE_IDX(bpf_get_attach_cookie(ctx)));
}

/*
 * Lesson#7: the tracepoint door, the block layer's own marks along the
 * path (include/trace/events/block.h). Fewer points than the functions,
 * but they need no kprobes.
 */
SEC("tp_btf/block_bio_queue")
int BPF_PROG(block_bio_queue_btf, struct bio *bio)
{
	if (other_disk(bio_dev(bio), CT_SUBMIT))
		return 0;
	return emit(bio, bio_dev(bio), TP_BIO_QUEUE, CT_SUBMIT, -1, false, false,
		    event_context(ctx));
}

/* Merged into a request already queued: behind its last bio, or before. */
SEC("tp_btf/block_bio_backmerge")
int BPF_PROG(block_bio_backmerge_btf, struct bio *bio)
{
	if (other_disk(bio_dev(bio), 0))
		return 0;
	return emit(bio, bio_dev(bio), TP_BIO_BACKMERGE, 0, -1, false, false, event_context(ctx));
}

SEC("tp_btf/block_bio_frontmerge")
int BPF_PROG(block_bio_frontmerge_btf, struct bio *bio)
{
	if (other_disk(bio_dev(bio), 0))
		return 0;
	return emit(bio, bio_dev(bio), TP_BIO_FRONTMERGE, 0, -1, false, false,
		    event_context(ctx));
}

/* Sent on to another device (a partition to its disk, dm, md): bi_bdev is the new one. */
SEC("tp_btf/block_bio_remap")
int BPF_PROG(block_bio_remap_btf, struct bio *bio, dev_t dev, sector_t from)
{
	if (other_disk(bio_dev(bio), 0))
		return 0;
	return emit(bio, bio_dev(bio), TP_BIO_REMAP, 0, -1, false, false, event_context(ctx));
}

/*
 * The front part bio_split() cut off, chained to the rest (parent): a new
 * bio, whose address may be that of a part already ended (CT_BEGIN).
 */
SEC("tp_btf/block_split")
int BPF_PROG(block_split_btf, struct bio *bio, unsigned int new_sector)
{
	if (other_disk(bio_dev(bio), CT_BEGIN))
		return 0;
	return emit(bio, bio_dev(bio), TP_SPLIT, CT_BEGIN, -1, false, false, event_context(ctx));
}

/* A new request for the bio. */
SEC("tp_btf/block_getrq")
int BPF_PROG(block_getrq_btf, struct bio *bio)
{
	if (other_disk(bio_dev(bio), 0))
		return 0;
	return emit(bio, bio_dev(bio), TP_GETRQ, 0, -1, false, false, event_context(ctx));
}

SEC("tp_btf/block_rq_insert")
int BPF_PROG(block_rq_insert_btf, struct request *rq)
{
	return rq_event(ctx, rq, TP_RQ_INSERT, -1, -1);
}

/* The driver takes the request. */
SEC("tp_btf/block_rq_issue")
int BPF_PROG(block_rq_issue_btf, struct request *rq)
{
	return rq_event(ctx, rq, TP_RQ_ISSUE, -1, -1);
}

/*
 * Request-based disks (loop, virtio, nvme) end their bios here, in
 * blk_update_request(); a write's flush data step ends none (bio_end.bpf.h).
 */
SEC("tp_btf/block_rq_complete")
int BPF_PROG(block_rq_complete_btf, struct request *rq, blk_status_t error,
	     unsigned int nr_bytes)
{
	/* a write's flush data step ends no bio: left -1 */
	return rq_event(ctx, rq, TP_RQ_COMPLETE, rq_flush_data_step(rq) ? -1 : (__s64)nr_bytes,
			error);
}

/* Bio-based disks (zram, dm, md) end each bio with this one. */
SEC("tp_btf/block_bio_complete")
int BPF_PROG(block_bio_complete_btf, struct request_queue *q, struct bio *bio)
{
	if (other_disk(bio_dev(bio), CT_END))
		return 0;
	return emit(bio, bio_dev(bio), TP_BIO_COMPLETE, CT_END, -1, false, false,
		    event_context(ctx));
}

/*
 * Lesson#8: a loop worker's work is queued (a request was added to its
 * list), ends, or starts on its list of requests. These three run in
 * every door (the workqueue's own tracepoints), but not under -q: it
 * counts the disk's own events. They attach in this order, the start
 * last: no list is read whose end, or a request added to it, goes unseen.
 */
SEC("tp_btf/workqueue_queue_work")
int BPF_PROG(loop_work_queued, int cpu, struct pool_workqueue *pwq, struct work_struct *work)
{
	if (loop_list_head(work))
		__sync_fetch_and_add(&loop_queued, 1);
	return 0;
}

SEC("tp_btf/workqueue_execute_end")
int BPF_PROG(loop_work_end, struct work_struct *work)
{
	u32 tid = (u32)bpf_get_current_pid_tgid();

	/* not work->func: the work may be freed by now (its own function may free it) */
	bpf_map_delete_elem(&serving, &tid);
	return 0;
}

SEC("tp_btf/workqueue_execute_start")
int BPF_PROG(loop_work_start, struct work_struct *work)
{
	u32 tid = (u32)bpf_get_current_pid_tgid();
	struct loop_seen s = {};
	struct list_head *head;

	s.head = loop_list_head(work);
	if (!s.head)
		return 0;
	s.queued = loop_queued;	/* before the list: a request added later counts */
	head = (void *)s.head;
	loop_read(&s, (u64)BPF_CORE_READ(head, next));
	if (bpf_map_update_elem(&serving, &tid, &s, BPF_ANY))
		ct_inc(CT_STACK_FULL);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
