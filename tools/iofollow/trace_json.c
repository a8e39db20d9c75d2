// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * iofollow --trace-json: Chrome's trace-event format. Three processes
 * are the seed's three timelines: 1 the page cache (the call, its
 * folios, the fsync() that waited), 2 the bio (queued, split, joined to
 * a request), 3 the request (issued, completed); a thread in each is the
 * task that ran the hop. A hop is a slice of 1 ns ("ph":"X"); from each
 * hop of a folio's path to the next runs a flow arrow ("ph":"s" there,
 * "ph":"f" bound to the next slice), so Perfetto draws the chain across
 * tasks and timelines. Times are µs since boot (CLOCK_MONOTONIC).
 */
#include <errno.h>
#include <stdio.h>
#include "page.h"
#include "trace_json.h"

enum { TL_CACHE = 1, TL_BIO, TL_RQ };

static FILE *trace_f;
static __u64 flows;	/* flow ids given */

int trace_json_open(const char *path)
{
	static const char *const names[] = { NULL, "page cache", "bio", "request" };

	trace_f = fopen(path, "w");
	if (!trace_f)
		return -errno;
	fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", trace_f);
	for (int tl = TL_CACHE; tl <= TL_RQ; tl++)
		fprintf(trace_f, "%s{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":0,"
			"\"args\":{\"name\":\"%s\"}},\n{\"name\":\"process_sort_index\","
			"\"ph\":\"M\",\"pid\":%d,\"tid\":0,\"args\":{\"sort_index\":%d}}",
			tl == TL_CACHE ? "" : ",\n", tl, names[tl], tl, tl);
	return 0;
}

/* A slice: NAME on timeline TL, by the task of a, from a->ts for DUR ns. */
static void slice(int tl, const struct at *a, __u64 dur, const char *name, __u64 id,
		  const char *args)
{
	fprintf(trace_f, ",\n{\"name\":");
	page_json_str(trace_f, name);
	fprintf(trace_f, ",\"cat\":\"sample\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":%d,"
		"\"tid\":%u,\"args\":{\"sample\":%llu,\"cpu\":%u,\"task\":", a->ts / 1e3, dur / 1e3,
		tl, a->tid, (unsigned long long)id, a->cpu);
	page_json_str(trace_f, a->comm);
	fprintf(trace_f, "%s%s}}", *args ? "," : "", args);
}

/* An arrow from the slice at a (timeline tl) to the one at b (tl2). */
static void flow(int tl, const struct at *a, int tl2, const struct at *b, __u64 id)
{
	flows++;
	fprintf(trace_f, ",\n{\"name\":\"#%llu\",\"cat\":\"sample\",\"ph\":\"s\",\"id\":%llu,"
		"\"ts\":%.3f,\"pid\":%d,\"tid\":%u}", (unsigned long long)id,
		(unsigned long long)flows, a->ts / 1e3, tl, a->tid);
	fprintf(trace_f, ",\n{\"name\":\"#%llu\",\"cat\":\"sample\",\"ph\":\"f\",\"bp\":\"e\","
		"\"id\":%llu,\"ts\":%.3f,\"pid\":%d,\"tid\":%u}", (unsigned long long)id,
		(unsigned long long)flows, b->ts / 1e3, tl2, b->tid);
}

void trace_json_sample(const struct sample *s)
{
	const char *call = follow_read ? "read()" : "write()";
	struct at enter = s->call, fs = s->call;
	char name[64], args[160];

	if (!trace_f)
		return;
	if (s->returned && s->call.ts >= s->t0) {
		enter.ts = s->t0;
		snprintf(name, sizeof(name), "%s #%llu", call, (unsigned long long)s->id);
		snprintf(args, sizeof(args), "\"ret\":%ld", s->ret);
		slice(TL_CACHE, &enter, s->call.ts - s->t0, name, s->id, args);
	}
	if (s->fsync_t1) {
		fs.ts = s->fsync_t0;
		slice(TL_CACHE, &fs, s->fsync_t1 - s->fsync_t0, "fsync()", s->id, "");
	}
	for (int i = 0; i < s->n; i++) {
		const struct path *p = &s->p[i];
		/* the hops seen, in the order of the chain */
		const struct { int tl; const struct at *at; const char *name; } hops[] = {
			{ TL_CACHE, &p->dirty, follow_read ? "folio added" : "folio dirtied" },
			{ TL_BIO, &p->queue, "bio queued" },
			{ TL_BIO, &p->split, "bio split" },
			{ TL_BIO, &p->join, p->how ? "merged" : "request new" },
			{ TL_RQ, &p->issue, "request issued" },
			{ TL_RQ, &p->done, "request done" },
		};
		const struct at *prev = NULL;
		int prev_tl = 0;

		for (size_t h = 0; h < sizeof(hops) / sizeof(hops[0]); h++) {
			if (!hops[h].at->ts)
				continue;
			snprintf(args, sizeof(args), "\"folio\":\"0x%llx\",\"ino\":%llu,\"index\":%llu,"
				 "\"bio\":\"0x%llx\",\"sector\":%llu,\"rq\":\"0x%llx\"",
				 (unsigned long long)p->folio, (unsigned long long)p->ino,
				 (unsigned long long)p->page, (unsigned long long)p->bio,
				 (unsigned long long)p->sector, (unsigned long long)p->rq);
			slice(hops[h].tl, hops[h].at, 1, hops[h].name, s->id, args);
			if (prev)
				flow(prev_tl, prev, hops[h].tl, hops[h].at, s->id);
			prev = hops[h].at;
			prev_tl = hops[h].tl;
		}
	}
}

int trace_json_close(void)
{
	int err;

	if (!trace_f)
		return 0;
	fputs("\n]}\n", trace_f);
	err = ferror(trace_f) ? -EIO : 0;
	if (fclose(trace_f) && !err)
		err = -errno;
	trace_f = NULL;
	return err;
}
