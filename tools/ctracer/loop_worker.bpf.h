/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Which request is a loop device's worker serving? (drivers/block/loop.c)
 *
 * A loop device over a file queues each request (its struct loop_cmd, the
 * request's driver data) on a worker's list; a kworker takes them one by
 * one, first in first out, and reads or writes the file, and the file's
 * filesystem sends bios of its own to the disk below. No field of those
 * bios names the request: only the worker's list does. So the worker's
 * list is read when it starts (workqueue_execute_start) and again at each
 * bio the worker submits: the request taken last is the one just before
 * the list's new head, if it was seen in the list before. It is trusted
 * only while that request still carries the bio seen then (a request is
 * reused once it ends: the time it was made tells its lives apart);
 * otherwise the answer is "not known", never a guess.
 */
#ifndef __LOOP_WORKER_BPF_H
#define __LOOP_WORKER_BPF_H

#define LOOP_SEEN_MAX	4	/* requests remembered per worker */

/* What a worker's list held when last read, oldest first. */
struct loop_seen {
	u64 head;			/* the list's head: in the worker or the device */
	u64 rq[LOOP_SEEN_MAX];		/* each request */
	u64 bio[LOOP_SEEN_MAX];		/* its first bio then */
	u64 born[LOOP_SEEN_MAX];	/* and its start_time_ns: this life's */
	u32 n;
	bool cut;			/* more requests than LOOP_SEEN_MAX */
	u64 queued;			/* loop works queued before the worker started */
};

/* loop.c's own types: in the kernel's BTF, or in the loop module's. */
struct loop_cmd___lw {
	struct list_head list_entry;
} __attribute__((preserve_access_index));

/* A cgroup's worker (5.13+), and the device's own for the root cgroup. */
struct loop_worker___lw {
	struct work_struct work;
	struct list_head cmd_list;
} __attribute__((preserve_access_index));

struct loop_device___lw {
	struct work_struct rootcg_work;
	struct list_head rootcg_cmd_list;
} __attribute__((preserve_access_index));

extern const void loop_workfn __ksym __weak;
extern const void loop_rootcg_workfn __ksym __weak;

/*
 * The list of requests a work item serves, or 0: not a loop worker's.
 * work: a tp_btf argument, BTF-typed, so func is a plain load (this runs
 * for every work item the machine queues and runs, loop's or not).
 */
static __always_inline u64 loop_list_head(struct work_struct *work)
{
	void *fn = work->func;

	if (!bpf_core_field_exists(struct loop_worker___lw, cmd_list))
		return 0;
	if (&loop_workfn && fn == &loop_workfn)
		return (u64)work + bpf_core_field_offset(struct loop_worker___lw, cmd_list) -
		       bpf_core_field_offset(struct loop_worker___lw, work);
	if (&loop_rootcg_workfn && fn == &loop_rootcg_workfn)
		return (u64)work + bpf_core_field_offset(struct loop_device___lw, rootcg_cmd_list) -
		       bpf_core_field_offset(struct loop_device___lw, rootcg_work);
	return 0;
}

/* The request a list entry is, and its first bio. */
static __always_inline void loop_entry(struct loop_seen *s, u32 i, u64 entry)
{
	u64 cmd = entry - bpf_core_field_offset(struct loop_cmd___lw, list_entry);
	/* blk_mq_rq_from_pdu(): the driver's data follows its request */
	struct request *rq = (void *)(cmd - bpf_core_type_size(struct request));

	s->rq[i] = (u64)rq;
	s->bio[i] = (u64)BPF_CORE_READ(rq, bio);
	s->born[i] = BPF_CORE_READ(rq, start_time_ns);
}

/* Read the list from first (an entry, or head: empty) into s. */
static __always_inline void loop_read(struct loop_seen *s, u64 first)
{
	u64 entry = first;
	u32 i;

	s->n = 0;
	s->cut = false;
#pragma unroll
	for (i = 0; i < LOOP_SEEN_MAX; i++) {
		if (entry == s->head)
			return;
		loop_entry(s, i, entry);
		s->n = i + 1;
		entry = (u64)BPF_CORE_READ((struct list_head *)entry, next);
	}
	s->cut = entry != s->head;
}

/*
 * At a bio the worker submits: the first bio of the request it serves,
 * or 0 when that is not known; s is then read again from the list's new
 * head. The list is first in, first out, and s holds a stretch of it with
 * no gap: when the new head was seen, the worker took the one before it
 * last. When it was not (the list empty, or holding only requests added
 * since), the last one seen was taken last only if no request came and
 * went unseen: sure when the worker serves a request to its end before
 * it takes the next (use_aio off), or when nothing was added since it
 * started (requeued: a loop work was queued since; any loop device's,
 * so with several busy it is "not known" more often). Either way the
 * request must still be under way (MQ_RQ_IN_FLIGHT: its completion, which
 * may run later in a softirq, marks it first) in the life seen (its bio
 * and start_time_ns): once ended, it may serve another.
 */
struct loop_cmd___aio {
	bool use_aio;
} __attribute__((preserve_access_index));

static __always_inline u64 loop_serving(struct loop_seen *s, bool requeued)
{
	struct list_head *head = (void *)s->head;	/* not in BPF_CORE_READ(): our own type */
	u64 next = (u64)BPF_CORE_READ(head, next);
	u64 off = bpf_core_type_size(struct request) +
		  bpf_core_field_offset(struct loop_cmd___lw, list_entry);
	struct loop_cmd___aio *cmd;
	u64 rq = 0, bio = 0, born = 0;
	u32 i, k = LOOP_SEEN_MAX + 1;
	bool aio = true;

#pragma unroll
	for (i = 0; i < LOOP_SEEN_MAX; i++) {
		if (k > LOOP_SEEN_MAX && i < s->n && s->rq[i] + off == next)
			k = i;
	}
	if (k > LOOP_SEEN_MAX && s->n && !s->cut) {	/* not seen: the last one seen? */
		k = s->n;
		rq = s->rq[(k - 1) & (LOOP_SEEN_MAX - 1)];
		cmd = (void *)(rq + bpf_core_type_size(struct request));
		if (bpf_core_field_exists(struct loop_cmd___aio, use_aio))
			aio = BPF_CORE_READ(cmd, use_aio);
		if (aio && requeued)
			k = 0;
	}
	if (k >= 1 && k <= LOOP_SEEN_MAX) {	/* the masks: for the verifier */
		rq = s->rq[(k - 1) & (LOOP_SEEN_MAX - 1)];
		bio = s->bio[(k - 1) & (LOOP_SEEN_MAX - 1)];
		born = s->born[(k - 1) & (LOOP_SEEN_MAX - 1)];
		/* the same life, under way: its end may wait in a softirq, bio still set */
		if ((u64)BPF_CORE_READ((struct request *)rq, bio) != bio ||
		    BPF_CORE_READ((struct request *)rq, start_time_ns) != born ||
		    BPF_CORE_READ((struct request *)rq, state) != MQ_RQ_IN_FLIGHT)
			bio = 0;
	}
	loop_read(s, next);
	if (!bio)
		return 0;
	/* it stays in front: the worker may submit more for it */
	s->cut = s->cut || s->n == LOOP_SEEN_MAX;
#pragma unroll
	for (i = LOOP_SEEN_MAX - 1; i > 0; i--) {
		s->rq[i] = s->rq[i - 1];
		s->bio[i] = s->bio[i - 1];
		s->born[i] = s->born[i - 1];
	}
	s->rq[0] = rq;
	s->bio[0] = bio;
	s->born[0] = born;
	if (s->n < LOOP_SEEN_MAX)
		s->n++;
	return bio;
}

#endif /* __LOOP_WORKER_BPF_H */
