// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Door choice and attachment. Order for -a auto, per probe point: fentry
 * (cheapest, the seed's function), kprobe (the seed's own door), then the
 * tracepoint door (tp_btf). What this kernel has is asked of kernel_has.c
 * at run time, never read off a version number; if the stage's programs
 * still fail to load where the test passed, doors_next() moves on.
 *
 * A stage's programs are known by what libbpf made of their SEC(): the
 * program type says the door, the name after the section's last slash
 * the function or tracepoint, so the point.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include "doors.h"
#include "summary.h"

static const char *const door_names[DOOR_COUNT] = {
	[DOOR_AUTO] = "auto",
	[DOOR_FENTRY] = "fentry",
	[DOOR_KPROBE] = "kprobe",
	[DOOR_TRACEPOINT] = "tracepoint",
};

int door_from_name(const char *name, enum door *door)
{
	for (int i = 0; i < DOOR_COUNT; i++) {
		if (!strcmp(name, door_names[i])) {
			*door = i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *door_name(enum door door)
{
	return door_names[door];
}

/*
 * The door of a program by its type, and what it attaches to (after the
 * section's last slash: "tracepoint/block/block_bio_queue"); or -1.
 */
static int prog_door(const struct bpf_program *prog, const char **target)
{
	const char *sec = bpf_program__section_name(prog);
	enum bpf_attach_type at = bpf_program__expected_attach_type(prog);

	if (!strchr(sec, '/'))
		return -1;
	*target = strrchr(sec, '/') + 1;
	switch (bpf_program__type(prog)) {
	case BPF_PROG_TYPE_TRACING:	/* fentry, fexit; tp_btf */
		if (at == BPF_TRACE_FENTRY || at == BPF_TRACE_FEXIT)
			return DOOR_FENTRY;
		return at == BPF_TRACE_RAW_TP ? DOOR_TRACEPOINT : -1;
	case BPF_PROG_TYPE_KPROBE:
		/* uprobes and kprobe.multi share the type: the section tells */
		return !strncmp(sec, "kprobe/", 7) || !strncmp(sec, "kretprobe/", 10) ?
		       DOOR_KPROBE : -1;
	case BPF_PROG_TYPE_TRACEPOINT:	/* a classic one: the record it fills */
		return DOOR_TRACEPOINT;
	default:
		return -1;
	}
}

/*
 * The point a program serves: the one whose function (function doors) or
 * tracepoint (tracepoint door) it attaches to; -1 for none. *also says it
 * is the point's second function.
 */
static int prog_point(const struct doors *d, const struct bpf_program *prog,
		      enum door *door, bool *also)
{
	const char *target;
	int kind = prog_door(prog, &target);

	*also = false;
	if (kind < 0)
		return -1;
	*door = kind;
	for (int i = 0; i < d->n; i++) {
		const struct probe_point *p = d->points[i];

		if (kind != DOOR_TRACEPOINT) {
			if (p->func && !strcmp(target, p->func))
				return i;
			if (p->also && !strcmp(target, p->also)) {
				*also = true;
				return i;
			}
			continue;
		}
		for (int t = 0; t < POINT_MAX_TPS && p->tps[t]; t++)
			if (!strcmp(target, p->tps[t]))
				return i;
	}
	return -1;
}

static void add_why(struct door_choice *c, const char *fmt, const char *a, const char *b)
{
	size_t len = strlen(c->why);

	snprintf(c->why + len, sizeof(c->why) - len, fmt, len ? "; " : "", a, b);
}

static int try_fentry(struct btf *btf, const struct probe_point *p, struct door_choice *c)
{
	int ret = p->func ? fentry_probe(btf, p->func, 0) : -ENOENT;

	if (!ret) {
		c->door = DOOR_FENTRY;
		c->also = p->also && !fentry_probe(btf, p->also, 0);
		return 0;
	}
	add_why(c, "%sfentry: %s%s", fentry_why(btf, ret), "");
	return -1;
}

static int try_kprobe(struct btf *btf, const struct probe_point *p, struct door_choice *c)
{
	int ret;

	if (!kprobes_supported()) {
		add_why(c, "%skprobe: %s%s", "this kernel has no kprobes", "");
		return -1;
	}
	ret = p->func ? kprobe_probe(btf, p->func) : -ENOENT;
	if (!ret) {
		c->door = DOOR_KPROBE;
		c->also = p->also && !kprobe_probe(btf, p->also);
		return 0;
	}
	add_why(c, "%skprobe: %s%s", ret == -ENOENT ? "no such function" :
		"function cannot be probed", "");
	return -1;
}

static int try_tracepoint(struct btf *btf, const struct probe_point *p, struct door_choice *c)
{
	const char *missing;

	if (!p->tps[0]) {
		add_why(c, "%stracepoint: %s%s", "none for this point", "");
		return -1;
	}
	for (int i = 0; i < POINT_MAX_TPS && p->tps[i]; i++) {
		missing = tp_missing(btf, p->tps[i]);
		if (missing) {
			add_why(c, "%stracepoint: %s %s", p->tps[i], missing);
			return -1;
		}
	}
	c->door = DOOR_TRACEPOINT;
	return 0;
}

/* The name a load failure gives a door: the tracepoint door loads tp_btf. */
static const char *load_name(enum door door)
{
	return door == DOOR_TRACEPOINT ? "tp_btf" : door_name(door);
}

/* May -a want let point c in by door? Auto skips the doors that failed. */
static bool door_allowed(enum door want, const struct door_choice *c, enum door door)
{
	if (want != DOOR_AUTO)
		return want == door;
	return door >= c->first;
}

/*
 * Has the stage a program for point i in this door? One may leave a door
 * out (stage 11 has no kprobe door); -a auto passes it over.
 */
static bool offered(struct doors *d, int i, enum door door)
{
	struct bpf_program *prog;
	enum door pd;
	bool also;

	bpf_object__for_each_program(prog, d->obj)
		if (prog_point(d, prog, &pd, &also) == i && pd == door && !also)
			return true;
	add_why(&d->choice[i], "%s%s: none in this program%s", door_name(door), "");
	return false;
}

/* Choose point i's door, as -a asks; 0, or -1 with one line said. */
static int choose(struct doors *d, struct btf *btf, int i)
{
	const struct probe_point *p = d->points[i];
	struct door_choice *c = &d->choice[i];
	int found = -1;

	if (door_allowed(d->want, c, DOOR_FENTRY) && offered(d, i, DOOR_FENTRY))
		found = try_fentry(btf, p, c);
	if (found && door_allowed(d->want, c, DOOR_KPROBE) && offered(d, i, DOOR_KPROBE))
		found = try_kprobe(btf, p, c);
	if (found && door_allowed(d->want, c, DOOR_TRACEPOINT) &&
	    offered(d, i, DOOR_TRACEPOINT))
		found = try_tracepoint(btf, p, c);
	if (found)
		fprintf(stderr, "%s: no %s door on this kernel (%s)\n", p->name,
			d->want == DOOR_AUTO ? "working" : door_name(d->want), c->why);
	return found;
}

int doors_select(struct doors *d, struct bpf_object *obj,
		 const struct probe_point *const *points, int n, enum door want)
{
	struct door_choice kept[DOORS_MAX_POINTS];
	unsigned int failed = d->failed;
	int progs[DOORS_MAX_POINTS] = {};
	struct bpf_program *prog;
	struct btf *btf;
	int err = 0;

	/* A new object; what failed loads taught (doors_next()) stays. */
	memcpy(kept, d->choice, sizeof(kept));
	memset(d, 0, sizeof(*d));
	d->obj = obj;
	d->points = points;
	d->n = n;
	d->want = want;
	d->failed = failed;
	for (int i = 0; i < n; i++) {
		d->choice[i].first = kept[i].first;
		memcpy(d->choice[i].why, kept[i].why, sizeof(kept[i].why));
	}
	btf = btf__load_vmlinux_btf();
	if (!btf) {
		fprintf(stderr, "cannot read kernel BTF: %s\n", strerror(errno));
		return -1;
	}
	d->bio_cloned = bio_cloned_flag(btf);
	for (int i = 0; i < n && !err; i++)
		err = choose(d, btf, i);
	btf__free(btf);
	if (err)
		return err;

	/* Keep each point's programs of its door, switch the rest off. */
	bpf_object__for_each_program(prog, obj) {
		bool also, keep;
		enum door door;
		int i = prog_point(d, prog, &door, &also);

		if (i < 0) {
			fprintf(stderr, "BPF program %s (SEC \"%s\") serves no probe point "
				"of this stage\n", bpf_program__name(prog),
				bpf_program__section_name(prog));
			return -1;
		}
		keep = door == d->choice[i].door && (!also || d->choice[i].also);
		bpf_program__set_autoload(prog, keep);
		if (keep) {
			if (doors_test_hook)	/* a test build's only */
				doors_test_hook(prog, load_name(door));
			progs[i]++;
		}
	}
	for (int i = 0; i < n; i++) {
		if (progs[i])
			continue;
		/* the stage has no program for the door this kernel offers */
		fprintf(stderr, "BPF object has no %s program for %s\n",
			door_name(d->choice[i].door), points[i]->name);
		return -1;
	}
	return 0;
}

/*
 * The small test loads of doors_select() passed, but the stage's own
 * programs did not load: a helper or a verifier check this kernel lacks
 * (fexit's bpf_get_func_ret() before 5.17, say). libbpf cannot tell
 * which point's program it was, so every point moves on one door.
 */
int doors_next(struct doors *d, int err)
{
	int moved = 0;

	for (int i = 0; i < d->n; i++) {
		struct door_choice *c = &d->choice[i];

		d->failed |= 1U << c->door;
		if (d->want != DOOR_AUTO || c->door == DOOR_TRACEPOINT)
			continue;
		add_why(c, "%s%s: failed to load (%s)", load_name(c->door), strerror(-err));
		c->first = c->door + 1;
		moved = 1;
	}
	return moved ? 0 : -1;
}

const char *doors_failed(const struct doors *d, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int door = DOOR_FENTRY; door < DOOR_COUNT; door++)
		if (d->failed & 1U << door && len < size)
			len += snprintf(buf + len, size - len, "%s%s", len ? ", " : "",
					load_name(door));
	return buf;
}

static int point_index(const struct doors *d, const struct probe_point *p)
{
	for (int i = 0; i < d->n; i++)
		if (d->points[i] == p)
			return i;
	return -1;
}

const char *doors_target(const struct doors *d, const struct probe_point *p)
{
	int i = point_index(d, p);

	if (i < 0)
		return "?";
	return d->choice[i].door == DOOR_TRACEPOINT ? p->tps[0] : p->func;
}

enum door doors_door(const struct doors *d, const struct probe_point *p)
{
	int i = point_index(d, p);

	return i < 0 ? DOOR_AUTO : d->choice[i].door;
}

/*
 * The last point first, the start point (first) last: a completion seen
 * before its start's door opened is one of I/O begun before tracing.
 */
int doors_attach(struct doors *d)
{
	char lines[DOORS_MAX_POINTS][256];

	for (int i = d->n - 1; i >= 0; i--) {
		struct door_choice *c = &d->choice[i];
		struct bpf_program *prog;
		char *line = lines[i];
		int len, nprogs = 0;

		len = snprintf(line, sizeof(lines[i]), "%s: %s door, ", d->points[i]->name,
			       door_name(c->door));
		/* In the order the stage wrote them: a kretprobe's entry half first. */
		bpf_object__for_each_program(prog, d->obj) {
			struct bpf_link *link;
			enum door door;
			bool also;

			if (!bpf_program__autoload(prog) || prog_point(d, prog, &door, &also) != i)
				continue;
			if (d->nlinks == DOORS_MAX_LINKS) {
				fprintf(stderr, "too many programs to attach\n");
				return -1;
			}
			link = bpf_program__attach(prog);
			if (!link) {
				fprintf(stderr, "cannot attach %s: %s\n",
					bpf_program__section_name(prog), strerror(errno));
				return -1;
			}
			d->link_point[d->nlinks] = i;
			d->links[d->nlinks++] = link;
			len += snprintf(line + len, sizeof(lines[i]) - len, "%s%s",
					nprogs++ ? " + " : "", bpf_program__section_name(prog));
		}
	}
	/* Then the door lines, in the stage's order. */
	for (int i = 0; i < d->n; i++) {
		const struct door_choice *c = &d->choice[i];

		fprintf(stderr, "%s%s%s%s\n", lines[i], c->why[0] ? " (passed over: " : "",
			c->why, c->why[0] ? ")" : "");
	}
	return 0;
}

/*
 * Within a point, last attached first (a kretprobe before its entry
 * half).
 */
static void detach_point(struct doors *d, int i)
{
	for (int l = d->nlinks - 1; l >= 0; l--) {
		if (d->link_point[l] != i || !d->links[l])
			continue;
		/* read before the link goes: the count lives in the kprobe */
		d->kprobe_missed += link_kprobe_missed(d->links[l]);
		bpf_link__destroy(d->links[l]);
		d->links[l] = NULL;
	}
}

void doors_detach_first(struct doors *d)
{
	detach_point(d, 0);
}

void doors_detach(struct doors *d)
{
	for (int i = 0; i < d->n; i++)
		detach_point(d, i);
	d->nlinks = 0;
}
