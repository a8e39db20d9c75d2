// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * iofollow's samples: the hops of each sampled call joined into one
 * story, a folio's path from the page cache to the disk and back,
 * printed once whole (or at exit, said how far it got) with a waterfall
 * of where its time went; with -j, as JSON lines.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jsonl.h"
#include "tracer.h"
#include "iofollow.h"
#include "samples.h"
#include "timeline_page.h"
#include "trace_json.h"

struct sample_stats st;
bool follow_read;
const char *const hop_names[HOP_MAX] = {
	"syscall", "folio", "bio_queue", "split", "getrq", "merge", "rq_issue", "rq_complete", "fsync",
};

#define SAMPLES_MAX	1024	/* samples not printed yet */


static struct sample samples[SAMPLES_MAX];
/*
 * Marked bios that carry no followed page: a split's part (or its rest)
 * whose followed pages are all in the other, a bio of a sample's folios
 * past PATHS_MAX. Their hops are counted, not followed.
 */
#define RESTS_MAX 64
static __u64 rests[RESTS_MAX];
static int rest_next;

static bool is_rest(__u64 bio)
{
	for (int i = 0; i < RESTS_MAX; i++)
		if (rests[i] == bio)
			return true;
	return false;
}

static void rest_add(__u64 bio)
{
	if (is_rest(bio))
		return;
	rests[rest_next] = bio;
	rest_next = (rest_next + 1) % RESTS_MAX;
}

static void at_set(struct at *a, const struct event *e)
{
	a->ts = e->ts;
	a->cpu = e->cpu;
	a->pid = e->pid;
	a->tid = e->tid;
	memcpy(a->comm, e->comm, sizeof(a->comm));
}

static struct sample *sample_get(__u64 id, bool create)
{
	struct sample *free_slot = NULL;

	for (int i = 0; i < SAMPLES_MAX; i++) {
		if (samples[i].id == id)
			return &samples[i];
		if (!samples[i].id && !free_slot)
			free_slot = &samples[i];
	}
	if (!create)
		return NULL;
	if (!free_slot) {
		st.table_full++;
		return NULL;
	}
	memset(free_slot, 0, sizeof(*free_slot));
	free_slot->id = id;
	return free_slot;
}

/* Every folio of a returned call has reached its end. */
static bool whole(const struct sample *s)
{
	if (!s->returned || !s->n)
		return false;
	for (int i = 0; i < s->n; i++)
		if (!s->p[i].done.ts)
			return false;
	return true;
}

/* A sample's hop lines, put in time order before they are printed. */
struct line {
	__u64 ts;
	int seq;
	char text[320];
};

#define LINES_MAX (4 + 6 * PATHS_MAX)
static struct line lines[LINES_MAX];
static int nlines;

static void hop_line(const struct sample *s, const struct at *a, const char *hop,
		     const char *what, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/*
 * One hop: time since the call began, CPU, task, what, identity. With
 * -j, one "hop" object at once (in the chain's order), its fields the
 * identity's key=value pairs.
 */
static void hop_line(const struct sample *s, const struct at *a, const char *hop,
		     const char *what, const char *fmt, ...)
{
	struct line *l = &lines[nlines];
	char task[40], kv[160], *tok, *save;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(kv, sizeof(kv), fmt, ap);
	va_end(ap);
	if (env.json) {
		json_begin("hop");
		json_u64("sample", s->id);
		json_str("hop", hop);
		json_u64("ts_ns", a->ts);
		json_u64("cpu", a->cpu);
		json_u64("pid", a->pid);
		json_str("comm", a->comm);
		for (tok = strtok_r(kv, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
			char *v = strchr(tok, '=');

			if (!v)
				continue;
			*v++ = '\0';
			if (*v >= '0' && *v <= '9' && strncmp(v, "0x", 2))
				json_u64(tok, strtoull(v, NULL, 10));
			else
				json_str(tok, v);
		}
		json_end();
		return;
	}
	if (nlines == LINES_MAX)
		return;
	snprintf(task, sizeof(task), "%s-%u", a->comm, a->pid);
	snprintf(l->text, sizeof(l->text), "  %12.3f us cpu%-2u %-20s %-15s %s",
		 (double)(a->ts - s->t0) / 1000, a->cpu, task, what, kv);
	l->ts = a->ts;
	l->seq = nlines++;
}

static int line_cmp(const void *a, const void *b)
{
	const struct line *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq - y->seq;
}

static void lines_flush(void)
{
	qsort(lines, nlines, sizeof(lines[0]), line_cmp);
	for (int i = 0; i < nlines; i++)
		printf("%s\n", lines[i].text);
	nlines = 0;
}

/* The path whose end came last: the one the call waited longest for. */
static const struct path *last_path(const struct sample *s)
{
	const struct path *last = NULL;

	for (int i = 0; i < s->n; i++)
		if (s->p[i].done.ts && (!last || s->p[i].done.ts > last->done.ts))
			last = &s->p[i];
	return last;
}

/*
 * Where the time went, on the last path: in the page cache (dirtied or
 * added -> bio queued), queued (-> issue), at the device (-> complete),
 * completing (-> the fsync() or the read() that waited for it returns).
 */
static void waterfall(const struct sample *s)
{
	const struct path *p = last_path(s);
	__u64 end, pc, q, dev, fin;

	if (!p || !p->queue.ts || !p->issue.ts)
		return;
	end = follow_read ? s->call.ts : s->fsync_t1;
	pc = p->queue.ts - p->dirty.ts;
	q = p->issue.ts - p->queue.ts;
	dev = p->done.ts - p->issue.ts;
	fin = end > p->done.ts ? end - p->done.ts : 0;
	if (env.json) {
		json_begin("waterfall");
		json_u64("sample", s->id);
		json_u64("page_cache_ns", pc);
		json_u64("queued_ns", q);
		json_u64("device_ns", dev);
		json_u64("completing_ns", fin);
		json_end();
		return;
	}
	printf("  waterfall: page cache %.3f us | queued %.3f us | device %.3f us | "
	       "completing %.3f us%s\n", pc / 1e3, q / 1e3, dev / 1e3, fin / 1e3,
	       end ? "" : " (no fsync() waited)");
}

/* A folio's hops: page cache, bio, request, issue, completion. */
static void print_path(const struct sample *s, const struct path *p, bool same_bio)
{
	static const char *const joins[] = { "request new", "back merge", "front merge" };

	hop_line(s, &p->dirty, "folio", follow_read ? "folio added" : "folio dirtied",
		 "folio=0x%llx ino=%llu index=%llu pages=%u", (unsigned long long)p->folio,
		 (unsigned long long)p->ino, (unsigned long long)p->index, p->pages);
	if (!p->queue.ts)
		return;
	hop_line(s, &p->queue, "bio_queue", "bio queued",
		 "bio=0x%llx sector=%llu ino=%llu index=%llu bio_bytes=%u",
		 (unsigned long long)(p->split.ts ? p->whole_bio : p->bio),
		 (unsigned long long)p->sector,
		 (unsigned long long)p->ino, (unsigned long long)p->page, p->bio_bytes);
	if (p->split.ts)
		hop_line(s, &p->split, "split", "bio split", "part=0x%llx of=0x%llx",
			 (unsigned long long)p->bio, (unsigned long long)p->whole_bio);
	if (same_bio && !env.json)	/* its request's hops are the next folio's */
		return;
	if (p->join.ts)
		hop_line(s, &p->join, p->how ? "merge" : "getrq", joins[p->how > 2 ? 0 : p->how],
			 "bio=0x%llx", (unsigned long long)p->bio);
	if (p->issue.ts)
		hop_line(s, &p->issue, "rq_issue", "request issued",
			 "rq=0x%llx bio=0x%llx sector=%llu bytes=%u", (unsigned long long)p->rq,
			 (unsigned long long)p->bio, (unsigned long long)p->rq_sector, p->rq_bytes);
	if (p->done.ts)
		hop_line(s, &p->done, "rq_complete", "request done",
			 "rq=0x%llx bio=0x%llx status=%ld", (unsigned long long)p->rq,
			 (unsigned long long)p->bio, p->status);
}

/* A sample's story; state says how far it got when it was printed. */
static void print_sample(struct sample *s, const char *state)
{
	const char *call = follow_read ? "read()" : "write()";
	struct at enter = s->call;

	/* a call still running at exit: its task is its first folio's */
	if (!s->returned && s->n) {
		enter = s->p[0].dirty;
		s->tid = enter.tid;
	}
	enter.ts = s->t0;
	if (env.json) {
		json_begin("sample");
		json_u64("sample", s->id);
		json_str("call", follow_read ? "read" : "write");
		json_u64("pid", enter.pid);
		json_u64("tid", s->tid);
		json_str("comm", enter.comm);
		json_u64("enter_ns", s->t0);
		if (s->returned) {
			json_u64("return_ns", s->call.ts);
			if (s->ret < 0)
				json_u64("errno", -s->ret);
			else
				json_u64("ret", s->ret);
		}
		json_u64("folios", s->n + s->more);
		json_str("state", *state ? state : "done");
		if (s->fsync_t1) {
			json_u64("fsync_enter_ns", s->fsync_t0);
			json_u64("fsync_return_ns", s->fsync_t1);
		}
		json_end();
	} else {
		printf("%s #%llu by %s-%u (tid %u): %ld bytes, %d folio%s followed%s%s\n", call,
		       (unsigned long long)s->id, enter.comm, enter.pid, s->tid, s->ret,
		       s->n, s->n == 1 ? "" : "s", *state ? ", " : "", state);
		hop_line(s, &enter, "enter", call, "entered");
		if (s->returned)
			hop_line(s, &s->call, "return", call, "returned %ld", s->ret);
	}
	for (int i = 0; i < s->n; i++)
		print_path(s, &s->p[i], i + 1 < s->n && s->p[i + 1].bio == s->p[i].bio &&
			   s->p[i + 1].done.ts == s->p[i].done.ts);
	if (!env.json) {
		if (s->fsync_t1) {
			struct at f = s->call;

			f.ts = s->fsync_t1;
			hop_line(s, &f, "fsync", "fsync()", "returned, waited since %.3f us",
				 (double)(s->fsync_t0 - s->t0) / 1000);
		}
		lines_flush();
		if (s->more)
			printf("  ... and %llu more folios, not followed (%d per sample)\n",
			       (unsigned long long)s->more, PATHS_MAX);
	}
	waterfall(s);
	trace_json_sample(s);
	timeline_add(s);
	st.printed++;
	s->id = 0;
}

/* bio -> its paths not ended yet: the hops below the bio name only it. */
static int bio_hop(const struct event *e)
{
	int found = 0, moved = 0;

	for (int i = 0; i < SAMPLES_MAX; i++) {
		struct sample *s = &samples[i];

		for (int k = 0; s->id && k < s->n; k++) {
			struct path *p = &s->p[k];

			if (p->bio != (e->hop == HOP_SPLIT ? e->parent : e->bio) ||
			    p->owner != e->id || p->done.ts)
				continue;
			found++;
			if (e->hop == HOP_SPLIT) {
				/* the page is in the part, or stays in the rest */
				if (p->sector < e->sector || p->sector >= e->sector + e->bytes / 512)
					continue;
				at_set(&p->split, e);
				p->whole_bio = p->bio;
				p->bio = e->bio;
				moved++;
			} else if (e->hop == HOP_GETRQ || e->hop == HOP_MERGE) {
				at_set(&p->join, e);
				p->how = e->ret;
			} else if (e->hop == HOP_ISSUE && !p->issue.ts) {
				at_set(&p->issue, e);
				p->rq = e->rq;
				p->rq_sector = e->sector;
				p->rq_bytes = e->bytes;
			} else if (e->hop == HOP_DONE) {
				at_set(&p->done, e);
				p->status = e->ret;
				if (whole(s))
					s->ready = tracer_now();
			}
		}
	}
	if (e->hop == HOP_SPLIT && found && moved == found)
		rest_add(e->parent);
	else if (e->hop == HOP_SPLIT && found && !moved)
		rest_add(e->bio);
	return found;
}

/* An fsync() returned: the samples of its task that ended inside it waited for it. */
static void fsync_hop(const struct event *e)
{
	for (int i = 0; i < SAMPLES_MAX; i++) {
		struct sample *s = &samples[i];
		const struct path *p;

		if (!s->id || s->tid != e->tid || !whole(s))
			continue;
		p = last_path(s);
		if (p->done.ts < e->t0 || p->done.ts > e->ts)
			continue;
		s->fsync_t0 = e->t0;
		s->fsync_t1 = e->ts;
		print_sample(s, "");
	}
}

int samples_event(void *ctx, void *data, size_t size)
{
	const struct event *e = data;
	struct sample *s;
	struct path *p;

	if (e->hop >= HOP_MAX)
		return 0;
	st.hops_seen[e->hop]++;
	switch (e->hop) {
	case HOP_SYSCALL:
		s = sample_get(e->id, true);
		if (!s)
			break;
		at_set(&s->call, e);
		s->tid = e->tid;
		s->t0 = e->t0;
		s->ret = e->ret;
		s->returned = true;
		if (!s->n) {	/* no new folio: its pages were dirty (or cached) already */
			st.no_folio++;
			print_sample(s, follow_read ? "no folio added (cached, or not a file)" :
				     "no folio dirtied (dirty already, or not a file)");
		} else if (whole(s)) {
			s->ready = tracer_now();
		}
		break;
	case HOP_FOLIO:
		s = sample_get(e->id, true);
		if (!s)
			break;
		s->t0 = e->t0;	/* the call's entry, before its return is seen */
		if (s->n == PATHS_MAX) {
			s->more++;
			break;
		}
		p = &s->p[s->n++];
		p->folio = e->folio;
		p->ino = e->ino;
		p->index = e->index;
		p->pages = e->pages;
		at_set(&p->dirty, e);
		break;
	case HOP_BIO:
		s = sample_get(e->id, false);
		p = NULL;
		for (int k = 0; s && k < s->n && !p; k++)
			if (s->p[k].folio == e->folio && !s->p[k].bio)
				p = &s->p[k];
		if (!p) {
			/*
			 * a folio past PATHS_MAX, or a folio seen in a bio
			 * already: counted, not followed
			 */
			for (int k = 0; s && k < s->n && !p; k++)
				if (s->p[k].folio == e->folio)
					p = &s->p[k];
			if (p || (s && s->more))
				rest_add(e->bio);
			else
				st.unlinked[e->hop]++;
			break;
		}
		p->bio = e->bio;
		p->owner = e->owner;
		p->sector = e->sector;
		p->page = e->index;
		p->bio_bytes = e->bytes;
		at_set(&p->queue, e);
		break;
	case HOP_FSYNC:
		fsync_hop(e);
		break;
	default:
		if (bio_hop(e))
			break;
		if (is_rest(e->hop == HOP_SPLIT ? e->parent : e->bio)) {
			st.rest_hops++;
			if (e->hop == HOP_SPLIT)	/* both parts of a rest are */
				rest_add(e->bio);
		} else {
			st.unlinked[e->hop]++;
		}
	}
	return 0;
}

/* Every tick: print the samples whole for a second with no fsync() to wait for. */
int samples_tick(void *arg)
{
	double now = tracer_now();

	for (int i = 0; i < SAMPLES_MAX; i++)
		if (samples[i].id && samples[i].ready && now - samples[i].ready > 1.0)
			print_sample(&samples[i], "");
	return 0;
}

/* At exit: what is left is said apart, as still dirty or still in flight. */
void samples_left(void)
{
	for (int i = 0; i < SAMPLES_MAX; i++) {
		struct sample *s = &samples[i];
		bool dirty = false;

		if (!s->id)
			continue;
		for (int k = 0; k < s->n; k++)
			dirty |= !s->p[k].bio;
		if (whole(s))
			print_sample(s, "");
		else if (dirty)
			st.dirty_left++, print_sample(s, follow_read ? "not read at exit" :
						   "not written back at exit");
		else if (!s->returned)
			st.flight_left++, print_sample(s, "call still running at exit");
		else
			st.flight_left++, print_sample(s, "in flight at exit");
	}
}
