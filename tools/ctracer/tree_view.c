// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* ctracer's views of a tree: see tree_view.h. */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "page.h"
#include "tree_page.h"
#include "tree_view.h"

static double view_us(const struct tree_view *p, __u64 ts)
{
	return ts >= p->base ? (ts - p->base) / 1000.0 : 0;
}

int tree_view_open(struct tree_view *p, const char *prog)
{
	if (p->json_path && !(p->json = fopen(p->json_path, "w"))) {
		fprintf(stderr, "%s: cannot write %s: %s\n", prog, p->json_path, strerror(errno));
		return -1;
	}
	if (p->html_path && !(p->html = fopen(p->html_path, "w"))) {
		fprintf(stderr, "%s: cannot write %s: %s\n", prog, p->html_path, strerror(errno));
		return -1;
	}
	return 0;
}

/* "bio 0x…: 4 events in 61.592 us, no end seen" */
static void header(const struct tree_bio *b, char *buf, size_t len)
{
	size_t n;

	n = snprintf(buf, len, "bio 0x%llx: %d events in %llu.%03llu us",
		     (unsigned long long)b->addr, b->events,
		     (unsigned long long)(b->last - b->first) / 1000,
		     (unsigned long long)(b->last - b->first) % 1000);
	if (b->stacked && n < len)
		n += snprintf(buf + n, len - n, ", on %s, sent for bio 0x%llx above",
			      b->disk, (unsigned long long)b->parent);
	else if (b->parent && n < len)
		n += snprintf(buf + n, len - n, ", chained to bio 0x%llx",
			      (unsigned long long)b->parent);
	if (!b->submitted && n < len)
		n += snprintf(buf + n, len - n, ", no submit seen");
	if (!b->ended && n < len)
		snprintf(buf + n, len - n, ", no end seen");
}

/*
 * The bio's fields where they changed since the last row (all on the
 * first), and its end: "  sector=2048  size=4096  READ  (end)".
 */
static void fields(struct tree_view *p, const struct tree_row *r, char *buf, size_t len)
{
	bool first = !p->rows;
	char ops[128];
	size_t n = 0;

	buf[0] = '\0';
#define ADD(...) (n += snprintf(buf + n, n < len ? len - n : 0, __VA_ARGS__))
	if (first || p->sector != r->sector)
		ADD("  sector=%llu", (unsigned long long)r->sector);
	if (first || p->size != r->size)
		ADD("  size=%u", r->size);
	if (first || p->opf != r->opf)
		ADD("  %s", req_opf_str(p->names, r->opf, ops, sizeof(ops)));
	if (r->status)
		ADD("  status=%u", r->status);
	if (r->end)
		ADD("  (end)");
#undef ADD
	p->sector = r->sector;
	p->size = r->size;
	p->opf = r->opf;
}

/* A row's function as the tree shows it: "submit_bio() {", "} submit_bio". */
static void row_fn(const struct tree_view *p, const struct tree_row *r, char *buf, size_t len)
{
	if (r->close)
		snprintf(buf, len, "} %s", r->point);
	else if (!p->nest)
		snprintf(buf, len, "%s", r->point);
	else
		snprintf(buf, len, r->leaf ? "%s()" : "%s() {", r->point);
}

/* The phases seen, as a JSON object of microseconds: {"Q2G":3.1,…}. */
static void btt_json(FILE *f, const struct btt_marks *m)
{
	const char *sep = "";
	__u64 ns;

	fputc('{', f);
	for (int i = 0; i < BTT_PHASES; i++) {
		if (!btt_phase(m, i, &ns))
			continue;
		fprintf(f, "%s\"%s\":%.3f", sep, btt_phase_name(i), ns / 1000.0);
		sep = ",";
	}
	fputc('}', f);
}

/* The marks seen, as us since the bio's first event: {"Q":0,"G":23.502,…}. */
static void marks_json(FILE *f, const struct btt_marks *m, __u64 first)
{
	static const char names[BTT_MARKS] = { 'Q', 'G', 'I', 'D', 'C' };
	const char *sep = "";

	fputc('{', f);
	for (int i = 0; i < BTT_MARKS; i++) {
		if (!m->ts[i] || m->ts[i] < first)
			continue;
		fprintf(f, "%s\"%c\":%.3f", sep, names[i], (m->ts[i] - first) / 1000.0);
		sep = ",";
	}
	fputc('}', f);
}

/*
 * One writer per view, each told the same things in the same order: a
 * run's beginning (title: the door and how it attached), each bio (its
 * header line; name: its address and first fields), each of its rows
 * (fn: as the tree shows the function; data: the fields that changed),
 * the bio's end (where its time went), the run's end. tree_view_*()
 * hand each call to every view asked for.
 */
struct writer {
	void (*begin)(struct tree_view *p, const char *title);
	void (*bio)(struct tree_view *p, const struct tree_bio *b, const char *hdr,
		    const char *name);
	void (*row)(struct tree_view *p, const struct tree_row *r, const char *fn,
		    const char *data);
	void (*bio_end)(struct tree_view *p, const struct btt_marks *m);
	void (*end)(struct tree_view *p);
};

/* --- the terminal: a header line, a line per row, a "btt:" line */

static void term_bio(struct tree_view *p, const struct tree_bio *b, const char *hdr,
		     const char *name)
{
	printf("%s\n", hdr);
}

/*
 * Time since the bio's first event, CPU, context, task, the function
 * (nested, with its duration, when returns are seen), the bio's fields
 * where they changed.
 */
static void term_row(struct tree_view *p, const struct tree_row *r, const char *fn,
		     const char *data)
{
	printf("%8llu.%03llu us  cpu%-2u %-7s %-22s %*s%s", (unsigned long long)r->at / 1000,
	       (unsigned long long)r->at % 1000, r->cpu, r->ctx, r->task, 2 * r->depth, "", fn);
	if (r->close || r->leaf)
		printf("  %llu.%03llu us", (unsigned long long)r->dur / 1000,
		       (unsigned long long)r->dur % 1000);
	printf("%s%s\n", data[0] ? "  " : "", data);
}

static void term_bio_end(struct tree_view *p, const struct btt_marks *m)
{
	char line[160];

	btt_line(line, sizeof(line), m);
	if (line[0])
		printf("  btt: %s\n", line);
}

/*
 * --- --trace-json: Chrome's trace-event format, each bio a thread of
 * its own (tid), named after the bio
 */

static void trace_begin(struct tree_view *p, const char *title)
{
	fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"program\":\"ctracer\",\"title\":",
	      p->json);
	page_json_str(p->json, title);
	fputs("},\n\"traceEvents\":[\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,"
	      "\"tid\":0,\"args\":{\"name\":\"ctracer: one thread per bio\"}}", p->json);
}

static void trace_bio(struct tree_view *p, const struct tree_bio *b, const char *hdr,
		      const char *name)
{
	fprintf(p->json, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%d,"
		"\"args\":{\"name\":", p->bios);
	page_json_str(p->json, name);
	fprintf(p->json, "}},\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":1,"
		"\"tid\":%d,\"args\":{\"sort_index\":%d}}", p->bios, p->bios);
}

/*
 * A call whose return was seen is a complete event ("ph":"X", with its
 * "dur"), the rest instants ("ph":"i"); times in microseconds. The
 * trace has no "}" lines: an X event spans its call.
 */
static void trace_row(struct tree_view *p, const struct tree_row *r, const char *fn,
		      const char *data)
{
	FILE *f = p->json;

	if (r->close)
		return;
	fputs(",\n{\"name\":", f);
	page_json_str(f, r->point);
	if (r->dur >= 0)
		fprintf(f, ",\"ph\":\"X\",\"dur\":%.3f", r->dur / 1000.0);
	else
		fputs(",\"ph\":\"i\",\"s\":\"t\"", f);
	fprintf(f, ",\"ts\":%.3f,\"pid\":1,\"tid\":%d,\"cat\":\"bio\","
		"\"args\":{\"cpu\":%u,\"context\":\"%s\",\"task\":", view_us(p, r->ts), p->bios,
		r->cpu, r->ctx);
	page_json_str(f, r->task);
	fprintf(f, ",\"sector\":%llu,\"size\":%u,\"data\":", (unsigned long long)r->sector,
		r->size);
	page_json_str(f, data);
	fputs("}}", f);
}

static void trace_bio_end(struct tree_view *p, const struct btt_marks *m)
{
	fprintf(p->json, ",\n{\"name\":\"btt\",\"ph\":\"i\",\"s\":\"t\",\"pid\":1,"
		"\"tid\":%d,\"ts\":%.3f,\"args\":", p->bios, view_us(p, p->last));
	btt_json(p->json, m);
	fputc('}', p->json);
}

static void trace_end(struct tree_view *p)
{
	fputs("\n]}\n", p->json);
}

/* --- --html: the page (tree_page.h), its data an object per bio */

static void html_begin(struct tree_view *p, const char *title)
{
	tree_page_begin(p->html, title);
	fputc('[', p->html);
}

static void html_bio(struct tree_view *p, const struct tree_bio *b, const char *hdr,
		     const char *name)
{
	char ops[128];

	fprintf(p->html, "%s{\"bio\":\"0x%llx\",\"hdr\":", p->bios ? ",\n" : "",
		(unsigned long long)b->addr);
	page_json_str(p->html, hdr);
	fprintf(p->html, ",\"sector\":%llu,\"size\":%u,\"op\":",
		(unsigned long long)b->sector, b->size);
	page_json_str(p->html, req_opf_str(p->names, b->opf, ops, sizeof(ops)));
	/* signed: a bio printed later may have begun earlier */
	fprintf(p->html, ",\"ended\":%s,\"t0\":%.3f,\"span\":%.3f,\"rows\":[",
		b->ended ? "true" : "false", (long long)(b->first - p->base) / 1000.0,
		(b->last - b->first) / 1000.0);
}

/* The page's rows, as the tree prints them. */
static void html_row(struct tree_view *p, const struct tree_row *r, const char *fn,
		     const char *data)
{
	FILE *f = p->html;

	fprintf(f, "%s\n{\"t\":%.3f,\"d\":%.3f,\"depth\":%d,\"close\":%d,\"fn\":",
		p->rows ? "," : "", r->at / 1000.0, r->dur / 1000.0, r->depth, r->close);
	page_json_str(f, fn);
	fprintf(f, ",\"cpu\":%u,\"ctx\":\"%s\",\"task\":", r->cpu, r->ctx);
	page_json_str(f, r->task);
	fputs(",\"data\":", f);
	page_json_str(f, data);
	fputs("}", f);
}

static void html_bio_end(struct tree_view *p, const struct btt_marks *m)
{
	fputs("],\"btt\":", p->html);
	btt_json(p->html, m);
	fputs(",\"marks\":", p->html);
	marks_json(p->html, m, p->first);
	fputc('}', p->html);
}

static void html_end(struct tree_view *p)
{
	fputs("]", p->html);
	tree_page_end(p->html);
}

enum { W_TERM, W_TRACE, W_HTML, W_N };

static const struct writer writers[W_N] = {
	[W_TERM] = { .bio = term_bio, .row = term_row, .bio_end = term_bio_end },
	[W_TRACE] = { trace_begin, trace_bio, trace_row, trace_bio_end, trace_end },
	[W_HTML] = { html_begin, html_bio, html_row, html_bio_end, html_end },
};

/* Is view w asked for? */
static bool writing(const struct tree_view *p, int w)
{
	if (w == W_TERM)
		return !p->quiet;
	return w == W_TRACE ? p->json != NULL : p->html != NULL;
}

/* Each view asked for that has that step: writers[w].step(p, ...) */
#define EACH(p, step, ...)						\
	for (int w = 0; w < W_N; w++)					\
		if (writing(p, w) && writers[w].step)			\
			writers[w].step(p, ##__VA_ARGS__)

void tree_view_begin(struct tree_view *p, const char *door, const char *how)
{
	char title[200];

	snprintf(title, sizeof(title), "ctracer: each bio's path (%s door, %s)", door, how);
	p->begun = true;
	EACH(p, begin, title);
}

void tree_view_bio(struct tree_view *p, const struct tree_bio *b)
{
	char hdr[160], name[300], f[256];

	header(b, hdr, sizeof(hdr));
	p->rows = 0;
	fields(p, &(struct tree_row){ .sector = b->sector, .size = b->size, .opf = b->opf },
	       f, sizeof(f));
	snprintf(name, sizeof(name), "bio 0x%llx%s", (unsigned long long)b->addr, f);
	if (!p->base)
		p->base = b->first;
	p->first = b->first;
	p->last = b->last;
	EACH(p, bio, b, hdr, name);
}

void tree_view_row(struct tree_view *p, const struct tree_row *r)
{
	char fn[160], f[256] = "";
	const char *data;

	row_fn(p, r, fn, sizeof(fn));
	if (!r->close)
		fields(p, r, f, sizeof(f));
	data = f + (f[0] ? 2 : 0);
	EACH(p, row, r, fn, data);
	p->rows++;
}

void tree_view_bio_end(struct tree_view *p, const struct btt_marks *m)
{
	EACH(p, bio_end, m);
	p->bios++;
}

static int close_file(FILE **f, const char *path, const char *prog)
{
	int err = fclose(*f);

	*f = NULL;
	if (err)
		fprintf(stderr, "%s: cannot write %s: %s\n", prog, path, strerror(errno));
	return err ? -1 : 0;
}

int tree_view_close(struct tree_view *p, const char *prog)
{
	int err = 0;

	if (!p->begun) {
		if (p->json && !fclose(p->json))
			unlink(p->json_path);
		if (p->html && !fclose(p->html))
			unlink(p->html_path);
		p->json = p->html = NULL;
		return 0;
	}
	EACH(p, end);
	if (p->json)
		err |= close_file(&p->json, p->json_path, prog);
	if (p->html)
		err |= close_file(&p->html, p->html_path, prog);
	return err;
}
