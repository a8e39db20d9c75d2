// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Door choice and attachment. Order for -a auto, per probe point: fentry
 * (cheapest, the seed's function), kprobe (the seed's own door), then the
 * tracepoint door (tp_btf). Every test is a runtime probe of this kernel,
 * never a version number; if the stage's programs still fail to load
 * where the test passed, doors_next() moves on.
 *
 * A stage's programs are found by their SEC() line: the door is its
 * prefix, the function or tracepoint after the slash names the point.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "doors.h"
#include "summary.h"
#include "tracefs.h"

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

/* The door of a program by its SEC(), and what it attaches to; or -1. */
static int prog_door(const struct bpf_program *prog, const char **target)
{
	static const struct {
		const char *prefix;
		enum door door;
	} kinds[] = {
		{ "fentry/", DOOR_FENTRY },
		{ "fexit/", DOOR_FENTRY },
		{ "kprobe/", DOOR_KPROBE },
		{ "kretprobe/", DOOR_KPROBE },
		{ "tp_btf/", DOOR_TRACEPOINT },
	};
	const char *sec = bpf_program__section_name(prog);

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		size_t len = strlen(kinds[i].prefix);

		if (!strncmp(sec, kinds[i].prefix, len)) {
			*target = sec + len;
			return kinds[i].door;
		}
	}
	return -1;
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

bool kprobes_supported(void)
{
	char path[256];

	/* libbpf uses the kprobe PMU, or legacy kprobe_events in tracefs */
	if (access("/sys/bus/event_source/devices/kprobe/type", F_OK) == 0)
		return true;
	snprintf(path, sizeof(path), "%s/kprobe_events", tracefs_root());
	return access(path, F_OK) == 0;
}

int fentry_probe(struct btf *vmlinux, const char *func, __u64 cookie)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int id = btf__find_by_name_kind(vmlinux, func, BTF_KIND_FUNC);
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = BPF_TRACE_FENTRY,
		    .attach_btf_id = id);
	int fd, link, err;

	if (id < 0)
		return -ENOENT;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "door_probe", "GPL", insns, 2, &opts);
	if (fd < 0)
		return -errno;
	/*
	 * A function in BTF may still be notrace (an inline one kept out of
	 * line, e.g. __blk_mq_end_request on 6.1): only an attach tells.
	 */
	if (cookie) {
		LIBBPF_OPTS(bpf_link_create_opts, lo, .tracing.cookie = cookie);

		link = bpf_link_create(fd, 0, BPF_TRACE_FENTRY, &lo);
	} else {
		link = bpf_raw_tracepoint_open(NULL, fd);
	}
	err = link < 0 ? -errno : 0;
	if (link >= 0)
		close(link);
	close(fd);
	return err;
}

/* Open (and close) a kprobe perf event on func: refused if notrace. */
static int kprobe_probe(struct btf *vmlinux, const char *func)
{
	struct perf_event_attr attr = { .size = sizeof(attr) };
	FILE *f;
	int type, fd;

	if (btf__find_by_name_kind(vmlinux, func, BTF_KIND_FUNC) < 0)
		return -ENOENT;
	f = fopen("/sys/bus/event_source/devices/kprobe/type", "r");
	if (!f)
		return 0;	/* legacy kprobe_events only: trust BTF */
	if (fscanf(f, "%d", &type) != 1)
		type = -1;
	fclose(f);
	if (type < 0)
		return 0;
	attr.type = type;
	attr.config1 = (__u64)(unsigned long)func;
	fd = syscall(__NR_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/*
 * Before 5.11 the block tracepoints passed the request queue first
 * (btf_trace_<tp>: void *, struct request_queue *, ...): a program
 * written for today's arguments would read the queue as its bio or
 * request. Refused: the function doors serve those kernels.
 */
static bool queue_first(const struct btf *btf, int id)
{
	const struct btf_type *t = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);

	if (!btf_is_ptr(t))
		return false;
	t = btf__type_by_id(btf, t->type);
	if (!btf_is_func_proto(t) || btf_vlen(t) < 2)
		return false;
	t = btf__type_by_id(btf, btf_params(t)[1].type);
	if (!btf_is_ptr(t))
		return false;
	t = btf__type_by_id(btf, t->type);
	return btf_is_struct(t) && !strcmp(btf__name_by_offset(btf, t->name_off), "request_queue");
}

const char *tp_missing(struct btf *vmlinux, const char *tp)
{
	static const char *const systems[] = { "block", "filemap", "workqueue" };
	char path[512];
	int id;

	snprintf(path, sizeof(path), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(vmlinux, path, BTF_KIND_TYPEDEF);
	if (id < 0)
		return "has no BTF type";
	/* block_bio_complete kept its queue (and the programs take it) */
	if (strcmp(tp, "block_bio_complete") && queue_first(vmlinux, id))
		return "passes the request queue first (before 5.11)";
	if (!tracefs_root()[0])
		return NULL;	/* tracefs not mounted: the BTF type must do */
	for (size_t i = 0; i < sizeof(systems) / sizeof(systems[0]); i++) {
		snprintf(path, sizeof(path), "%s/events/%s/%s", tracefs_root(), systems[i], tp);
		if (access(path, F_OK) == 0)
			return NULL;
	}
	return "missing";
}

static void add_why(struct door_choice *c, const char *fmt, const char *a, const char *b)
{
	size_t len = strlen(c->why);

	snprintf(c->why + len, sizeof(c->why) - len, fmt, len ? "; " : "", a, b);
}

const char *fentry_why(struct btf *vmlinux, int err)
{
	static char why[80];
	static int any = 1;	/* bpf_fentry_test1's probe; 1: not yet made */

	if (err == -ENOENT)
		return "no such function";
	if (err == -EPERM)
		return "refused by this kernel (EPERM)";
	/*
	 * One function refused, or all of them? bpf_fentry_test1() is kept
	 * out of line for BPF's own tests of fentry: where it cannot be
	 * traced either, the kernel attaches no trampoline at all (arm64
	 * before 6.4: no ftrace direct calls).
	 */
	if (any == 1)
		any = fentry_probe(vmlinux, "bpf_fentry_test1", 0);
	if (!any || any == -ENOENT)
		return "function cannot be traced";
	snprintf(why, sizeof(why), "this kernel cannot attach fentry programs (%s)",
		 err == -524 ? "ENOTSUPP" : strerror(-err));
	return why;
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
 * Test hook for tests/cli.t, not a feature: BWB_TEST_BREAK_LOAD lists
 * doors ("fentry tp_btf") whose programs the kernel is to refuse at load,
 * as a verifier would: an unknown program flag gets EINVAL. It lets the
 * tests take -a auto's fallback on a kernel where every door loads.
 */
static void test_break_load(struct bpf_program *prog, enum door door)
{
	const char *doors = getenv("BWB_TEST_BREAK_LOAD");

	if (doors && strstr(doors, load_name(door)))
		bpf_program__set_flags(prog, bpf_program__flags(prog) | 1U << 31);
}

/* The value of enumerator name in the kernel's BTF, or -1. */
static long btf_enum_value(const struct btf *vmlinux, const char *name)
{
	for (__u32 id = 1; id < btf__type_cnt(vmlinux); id++) {
		const struct btf_type *t = btf__type_by_id(vmlinux, id);
		const struct btf_enum *e = btf_enum(t);

		if (!btf_is_enum(t))
			continue;
		for (int i = 0; i < btf_vlen(t); i++, e++)
			if (!strcmp(btf__name_by_offset(vmlinux, e->name_off), name))
				return e->val;
	}
	return -1;
}

__u32 bio_cloned_flag(const struct btf *vmlinux)
{
	long bit = vmlinux ? btf_enum_value(vmlinux, "BIO_CLONED") : -1;

	/* bit 1 on 6.1, 6.12 and 6.18: the default if BTF does not say */
	return bit < 0 || bit > 31 ? 1U << 1 : 1U << bit;
}

/* Choose point i's door, as -a asks; 0, or -1 with one line said. */
static int choose(struct doors *d, struct btf *btf, int i)
{
	const struct probe_point *p = d->points[i];
	struct door_choice *c = &d->choice[i];
	int found = -1;

	if (door_allowed(d->want, c, DOOR_FENTRY))
		found = try_fentry(btf, p, c);
	if (found && door_allowed(d->want, c, DOOR_KPROBE))
		found = try_kprobe(btf, p, c);
	if (found && door_allowed(d->want, c, DOOR_TRACEPOINT))
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
			test_break_load(prog, door);
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
