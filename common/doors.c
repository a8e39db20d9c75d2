// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Door choice and attachment. Order for -a auto, per probe point:
 * fentry (cheapest, the seed's function), kprobe (the seed's own door),
 * then the tracepoint door (tp_btf, else raw_tp). Every test is a runtime
 * probe of this kernel, never a version number; if the stage's programs
 * still fail to load where the test passed, doors_next() moves on.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "doors.h"
#include "stats.h"
#include "tracefs.h"

static const char *const door_names[] = {
	[DOOR_AUTO] = "auto",
	[DOOR_KPROBE] = "kprobe",
	[DOOR_FENTRY] = "fentry",
	[DOOR_TRACEPOINT] = "tracepoint",
	[DOOR_RAW_TP] = "raw_tp",
};

int door_from_name(const char *name, enum door *door)
{
	for (int i = 0; i < (int)(sizeof(door_names) / sizeof(door_names[0])); i++) {
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

static struct bpf_program *find_prog(struct bpf_object *obj, const char *door,
				     const char *point)
{
	char name[128];

	snprintf(name, sizeof(name), "%s__%s", door, point);
	return bpf_object__find_program_by_name(obj, name);
}

/* Every door program comes from the DOORS macros; a missing one is a stage bug. */
static struct bpf_program *need_prog(struct bpf_object *obj, const char *door,
				     const char *point)
{
	struct bpf_program *prog = find_prog(obj, door, point);

	if (!prog)
		fprintf(stderr, "BPF object has no program %s__%s\n", door, point);
	return prog;
}

static bool kprobes_supported(void)
{
	char path[256];

	/* libbpf uses the kprobe PMU, or legacy kprobe_events in tracefs */
	if (access("/sys/bus/event_source/devices/kprobe/type", F_OK) == 0)
		return true;
	snprintf(path, sizeof(path), "%s/kprobe_events", tracefs_root());
	return access(path, F_OK) == 0;
}

/* Load a two-instruction fentry program on func: EPERM, ENOTSUPP … mean no. */
static int fentry_probe(struct btf *vmlinux, const char *func)
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
	link = bpf_raw_tracepoint_open(NULL, fd);
	err = link < 0 ? -errno : 0;
	if (link >= 0)
		close(link);
	close(fd);
	return err;
}

/* Open (and close) a kprobe perf event on func: refused if notrace. */
static int kprobe_probe(const char *func)
{
	struct perf_event_attr attr = { .size = sizeof(attr) };
	FILE *f = fopen("/sys/bus/event_source/devices/kprobe/type", "r");
	int type, fd;

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

static bool tp_exists(const char *tp)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/events/block/%s", tracefs_root(), tp);
	if (access(path, F_OK) == 0)
		return true;
	snprintf(path, sizeof(path), "%s/events/filemap/%s", tracefs_root(), tp);
	return access(path, F_OK) == 0;
}

static void add_why(struct door_choice *c, const char *fmt, const char *a, const char *b)
{
	size_t len = strlen(c->why);

	snprintf(c->why + len, sizeof(c->why) - len, fmt, len ? "; " : "", a, b);
}

static int try_fentry(struct btf *btf, const struct probe_point *p, struct door_choice *c)
{
	const char *err = "no such function";
	int ret;

	for (int i = 0; i < POINT_MAX_FUNCS && p->funcs[i]; i++) {
		ret = fentry_probe(btf, p->funcs[i]);
		if (!ret) {
			c->door = DOOR_FENTRY;
			c->func = p->funcs[i];
			return 0;
		}
		if (ret == -EPERM)
			err = "refused by this kernel (EPERM)";
		else if (ret != -ENOENT)
			err = "function cannot be traced";
	}
	add_why(c, "%sfentry: %s%s", err, "");
	return -1;
}

static int try_kprobe(struct btf *btf, const struct probe_point *p, struct door_choice *c)
{
	if (!kprobes_supported()) {
		add_why(c, "%skprobe: %s%s", "this kernel has no kprobes", "");
		return -1;
	}
	const char *err = "no such function";

	for (int i = 0; i < POINT_MAX_FUNCS && p->funcs[i]; i++) {
		if (btf__find_by_name_kind(btf, p->funcs[i], BTF_KIND_FUNC) < 0)
			continue;
		if (kprobe_probe(p->funcs[i])) {
			err = "function cannot be probed";
			continue;
		}
		c->door = DOOR_KPROBE;
		c->func = p->funcs[i];
		return 0;
	}
	add_why(c, "%skprobe: %s%s", err, "");
	return -1;
}

static int try_tracepoint(struct btf *btf, const struct probe_point *p, struct door_choice *c)
{
	char name[128];
	bool btf_ok = true;

	if (!p->tps[0].tp) {
		add_why(c, "%stracepoint: %s%s", "none for this point", "");
		return -1;
	}
	for (int i = 0; i < POINT_MAX_TPS && p->tps[i].tp; i++) {
		snprintf(name, sizeof(name), "btf_trace_%s", p->tps[i].tp);
		if (btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF) < 0)
			btf_ok = false;
		if (!tp_exists(p->tps[i].tp)) {
			add_why(c, "%stracepoint: %s missing%s", p->tps[i].tp, "");
			return -1;
		}
	}
	c->door = DOOR_TRACEPOINT;
	c->raw = !btf_ok;
	return 0;
}

/* The door point c went in by, tp_btf and raw_tp told apart. */
static enum door door_used(const struct door_choice *c)
{
	return c->door == DOOR_TRACEPOINT && c->raw ? DOOR_RAW_TP : c->door;
}

/* Names for the doors a load tried: the tracepoint door's flavours apart. */
static const char *load_name(enum door door)
{
	return door == DOOR_TRACEPOINT ? "tp_btf" : door_name(door);
}

/* May -a want let point c in by door? Auto skips the doors that failed. */
static bool door_allowed(enum door want, const struct door_choice *c, enum door door)
{
	if (want != DOOR_AUTO)
		return want == door || (want == DOOR_RAW_TP && door == DOOR_TRACEPOINT);
	/* raw_tp is the tracepoint door's second flavour */
	return door >= c->first || (door == DOOR_TRACEPOINT && c->first == DOOR_RAW_TP);
}

/*
 * Test hook for tests/cli.t, not a feature: BWB_TEST_BREAK_LOAD lists
 * doors ("tp_btf raw_tp") whose programs the kernel is to refuse at load,
 * as a verifier would: an unknown program flag gets EINVAL. It lets the
 * tests take -a auto's fallback on a kernel where every door loads.
 */
static void test_break_load(struct bpf_program *prog, const struct door_choice *c)
{
	const char *doors = getenv("BWB_TEST_BREAK_LOAD");

	if (doors && strstr(doors, load_name(door_used(c))))
		bpf_program__set_flags(prog, bpf_program__flags(prog) | 1U << 31);
}

/*
 * BIO_CLONED, a bit of bio->bi_flags, is in an enum without a name, which
 * CO-RE cannot relocate: bit 1 on 6.1, 6.12 and 6.18, bit 2 on 6.4. Its
 * value comes from the kernel's BTF, written before load into the
 * object's read-only bio_cloned_flag (trace.bpf.h), if the object has it.
 */
static void set_bio_cloned_flag(struct bpf_object *obj, const struct btf *vmlinux)
{
	const struct btf *btf = bpf_object__btf(obj);
	struct bpf_map *map;
	int bit = -1;

	for (__u32 id = 1; id < btf__type_cnt(vmlinux) && bit < 0; id++) {
		const struct btf_type *t = btf__type_by_id(vmlinux, id);
		const struct btf_enum *e = btf_enum(t);

		if (!btf_is_enum(t))
			continue;
		for (int i = 0; i < btf_vlen(t); i++, e++)
			if (!strcmp(btf__name_by_offset(vmlinux, e->name_off), "BIO_CLONED"))
				bit = e->val;
	}
	if (bit < 0 || bit > 31 || !btf)
		return;
	bpf_object__for_each_map(map, obj) {
		const struct btf_type *sec;
		const struct btf_var_secinfo *v;
		size_t size;
		char *data;
		int id;

		if (!bpf_map__is_internal(map) || !strstr(bpf_map__name(map), ".rodata"))
			continue;
		id = btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC);
		/* writable before load (libbpf 1.1 says const; the skeleton writes it) */
		data = (char *)bpf_map__initial_value(map, &size);
		if (id < 0 || !data)
			return;
		sec = btf__type_by_id(btf, id);
		v = btf_var_secinfos(sec);
		for (int i = 0; i < btf_vlen(sec); i++, v++) {
			const struct btf_type *var = btf__type_by_id(btf, v->type);

			if (!strcmp(btf__name_by_offset(btf, var->name_off), "bio_cloned_flag") &&
			    v->offset + sizeof(__u32) <= size)
				*(__u32 *)(data + v->offset) = 1U << bit;
		}
	}
}

int doors_select(struct doors *d, struct bpf_object *obj,
		 const struct probe_point *const *points, int n, enum door want)
{
	struct door_choice kept[DOORS_MAX_POINTS];
	unsigned int failed = d->failed;
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
	btf = btf__load_vmlinux_btf();
	if (!btf) {
		fprintf(stderr, "cannot read kernel BTF: %s\n", strerror(errno));
		return -1;
	}
	bpf_object__for_each_program(prog, obj)
		bpf_program__set_autoload(prog, false);
	set_bio_cloned_flag(obj, btf);

	for (int i = 0; i < n && !err; i++) {
		const struct probe_point *p = points[i];
		struct door_choice *c = &d->choice[i];
		int found = -1;

		/* the doors before c->first and why they failed, from before */
		c->first = kept[i].first;
		if (c->first)
			memcpy(c->why, kept[i].why, sizeof(c->why));
		if (door_allowed(want, c, DOOR_FENTRY))
			found = try_fentry(btf, p, c);
		if (found && door_allowed(want, c, DOOR_KPROBE))
			found = try_kprobe(btf, p, c);
		if (found && door_allowed(want, c, DOOR_TRACEPOINT))
			found = try_tracepoint(btf, p, c);
		if (!found && (want == DOOR_RAW_TP || c->first == DOOR_RAW_TP))
			c->raw = true;
		if (found) {
			fprintf(stderr, "%s: no %s door on this kernel (%s)\n", p->name,
				want == DOOR_AUTO ? "working" : door_name(want), c->why);
			err = -1;
			break;
		}

		switch (c->door) {
		case DOOR_FENTRY:
			prog = need_prog(obj, "fentry", p->name);
			if (!prog)
				goto missing;
			err = bpf_program__set_attach_target(prog, 0, c->func);
			bpf_program__set_autoload(prog, true);
			test_break_load(prog, c);
			prog = p->also.tp ? need_prog(obj, "fentry", p->also.prog) : NULL;
			if (prog && !fentry_probe(btf, p->also.tp)) {
				err = err ?: bpf_program__set_attach_target(prog, 0, p->also.tp);
				bpf_program__set_autoload(prog, true);
			}
			break;
		case DOOR_KPROBE:
			prog = need_prog(obj, "kprobe", p->name);
			if (!prog)
				goto missing;
			bpf_program__set_autoload(prog, true);
			test_break_load(prog, c);
			prog = p->also.tp ? need_prog(obj, "kprobe", p->also.prog) : NULL;
			if (prog && btf__find_by_name_kind(btf, p->also.tp, BTF_KIND_FUNC) >= 0 &&
			    !kprobe_probe(p->also.tp))
				bpf_program__set_autoload(prog, true);
			/* A kretprobe that needs the arguments has an entry half. */
			prog = find_prog(obj, "kentry", p->name);
			if (prog)
				bpf_program__set_autoload(prog, true);
			break;
		default:
			for (int t = 0; t < POINT_MAX_TPS && p->tps[t].tp; t++) {
				prog = need_prog(obj, c->raw ? "raw_tp" : "tp_btf", p->tps[t].prog);
				if (!prog)
					goto missing;
				if (!c->raw)
					err = err ?: bpf_program__set_attach_target(prog, 0, p->tps[t].tp);
				bpf_program__set_autoload(prog, true);
				test_break_load(prog, c);
			}
		}
	}
	btf__free(btf);
	return err;
missing:
	btf__free(btf);
	return -1;
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
		enum door used = door_used(c);

		d->failed |= 1U << used;
		if (d->want != DOOR_AUTO || used == DOOR_RAW_TP)
			continue;
		add_why(c, "%s%s: failed to load (%s)", load_name(used), strerror(-err));
		c->first = used + 1;
		moved = 1;
	}
	return moved ? 0 : -1;
}

const char *doors_failed(const struct doors *d, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (enum door door = DOOR_FENTRY; door <= DOOR_RAW_TP; door++)
		if (d->failed & 1U << door && len < size)
			len += snprintf(buf + len, size - len, "%s%s", len ? ", " : "",
					load_name(door));
	return buf;
}

static int add_link(struct doors *d, struct bpf_link *link, const char *what)
{
	if (!link) {
		fprintf(stderr, "cannot attach %s: %s\n", what, strerror(errno));
		return -1;
	}
	d->link_point[d->nlinks] = d->attaching;
	d->links[d->nlinks++] = link;
	return 0;
}

int doors_attach(struct doors *d)
{
	for (int i = 0; i < d->n; i++) {
		const struct probe_point *p = d->points[i];
		struct door_choice *c = &d->choice[i];
		struct bpf_program *prog;
		char line[256];
		int len;

		d->attaching = i;
		len = snprintf(line, sizeof(line), "%s: %s door, ", p->name, door_name(c->door));
		switch (c->door) {
		case DOOR_FENTRY:
			prog = find_prog(d->obj, "fentry", p->name);
			if (add_link(d, bpf_program__attach(prog), c->func))
				return -1;
			/* fentry, or fexit for a point that wants the return */
			len += snprintf(line + len, sizeof(line) - len, "%s/%s",
					bpf_program__section_name(prog), c->func);
			prog = p->also.tp ? find_prog(d->obj, "fentry", p->also.prog) : NULL;
			if (!prog || !bpf_program__autoload(prog))
				break;
			if (add_link(d, bpf_program__attach(prog), p->also.tp))
				return -1;
			snprintf(line + len, sizeof(line) - len, " + fentry/%s", p->also.tp);
			break;
		case DOOR_KPROBE:
			/* The entry half first, so every return finds its arguments. */
			prog = find_prog(d->obj, "kentry", p->name);
			if (prog && add_link(d, bpf_program__attach_kprobe(prog, false, c->func),
					     c->func))
				return -1;
			if (prog)
				len += snprintf(line + len, sizeof(line) - len, "kprobe/%s + ",
						c->func);
			prog = find_prog(d->obj, "kprobe", p->name);
			if (add_link(d, bpf_program__attach_kprobe(prog,
				!strncmp(bpf_program__section_name(prog), "kretprobe", 9),
				c->func), c->func))
				return -1;
			len += snprintf(line + len, sizeof(line) - len, "%s/%s",
					bpf_program__section_name(prog), c->func);
			prog = p->also.tp ? find_prog(d->obj, "kprobe", p->also.prog) : NULL;
			if (!prog || !bpf_program__autoload(prog))
				break;
			if (add_link(d, bpf_program__attach_kprobe(prog, false, p->also.tp),
				     p->also.tp))
				return -1;
			snprintf(line + len, sizeof(line) - len, " + kprobe/%s", p->also.tp);
			break;
		default:
			for (int t = 0; t < POINT_MAX_TPS && p->tps[t].tp; t++) {
				const char *tp = p->tps[t].tp;

				if (c->raw) {
					prog = find_prog(d->obj, "raw_tp", p->tps[t].prog);
					if (add_link(d, bpf_program__attach_raw_tracepoint(prog, tp), tp))
						return -1;
				} else {
					prog = find_prog(d->obj, "tp_btf", p->tps[t].prog);
					if (add_link(d, bpf_program__attach(prog), tp))
						return -1;
				}
				len += snprintf(line + len, sizeof(line) - len, "%s%s/%s",
						t ? " + " : "", c->raw ? "raw_tp" : "tp_btf", tp);
			}
		}
		fprintf(stderr, "%s%s%s%s\n", line, c->why[0] ? " (passed over: " : "",
			c->why, c->why[0] ? ")" : "");
	}
	return 0;
}

/*
 * The start of struct bpf_link_info for a kprobe perf link as of 6.7,
 * which added "missed": hits the kprobe itself dropped (it fired while
 * another kprobe ran on that CPU). Defined here because the UAPI headers
 * of older distributions lack it; older kernels leave it zero.
 */
struct kprobe_link_info {
	__u32 type;		/* BPF_LINK_TYPE_PERF_EVENT */
	__u32 id;
	__u32 prog_id;
	__u32 :32;
	__u32 perf_type;	/* BPF_PERF_EVENT_KPROBE or _KRETPROBE */
	__u32 :32;
	__u64 func_name;	/* NULL: the name is not wanted */
	__u32 name_len;
	__u32 offset;
	__u64 addr;
	__u64 missed;
};

#define LINK_TYPE_PERF_EVENT	7
#define PERF_EVENT_KPROBE	3
#define PERF_EVENT_KRETPROBE	4

static __u64 kprobe_missed(struct bpf_link *link)
{
	struct kprobe_link_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(bpf_link__fd(link), &info, &len) ||
	    info.type != LINK_TYPE_PERF_EVENT ||
	    (info.perf_type != PERF_EVENT_KPROBE && info.perf_type != PERF_EVENT_KRETPROBE))
		return 0;
	return info.missed;
}

/*
 * Points in the order they were given, start before end: no start is
 * recorded once the end's door is shut (it would be counted as left in
 * the start map). Within a point, last attached first (a kretprobe before
 * its entry half).
 */
void doors_detach(struct doors *d)
{
	for (int i = 0; i < d->n; i++) {
		for (int l = d->nlinks - 1; l >= 0; l--) {
			if (d->link_point[l] != i || !d->links[l])
				continue;
			/* read before the link goes: the count lives in the kprobe */
			d->kprobe_missed += kprobe_missed(d->links[l]);
			bpf_link__destroy(d->links[l]);
			d->links[l] = NULL;
		}
	}
	d->nlinks = 0;
}

static const char *const drop_names[STAT_MAX] = {
	[STAT_MAP_FULL] = "start records not stored (map full)",
	[STAT_NO_START] = "completions without a recorded start",
	[STAT_STALE] = "starts replaced before their end was seen (end not traced, or requeued)",
	[STAT_WALK_CUT] = "rq->bio walks cut short",
	[STAT_STACK_ERR] = "stacks not captured",
	[STAT_TASK_STORE] = "events without per-task storage (out of memory)",
};

static __u64 recursion_misses(struct doors *d)
{
	struct bpf_program *prog;
	__u64 sum = 0;

	bpf_object__for_each_program(prog, d->obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		if (bpf_program__fd(prog) < 0)
			continue;
		if (!bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
			sum += info.recursion_misses;
	}
	return sum;
}

/*
 * Starts never seen to complete: what is left in the stage's "start" map
 * (bio or request -> start record) once the doors are shut. I/O still in
 * flight at exit lands here too; anything more is a completion we missed.
 * Stages 00 and 03-07 keep it in a hash map: one entry per start. The
 * overhead lab's stage 03 keeps it in an array
 * (bench/stage03_array_map/start.bpf.h): a slot whose first 8 bytes, its
 * key, are not 0 is taken.
 */
static __u64 unfinished(struct doors *d)
{
	struct bpf_map *map = bpf_object__find_map_by_name(d->obj, "start");
	char key[2][64];
	__u64 n = 0;
	int fd, cur = 0;

	if (!map)
		return 0;
	fd = bpf_map__fd(map);
	if (fd < 0)
		return 0;
	if (bpf_map__type(map) == BPF_MAP_TYPE_ARRAY &&
	    bpf_map__value_size(map) >= sizeof(__u64)) {
		__u64 *val = calloc(1, bpf_map__value_size(map));

		for (__u32 i = 0; val && i < bpf_map__max_entries(map); i++)
			if (!bpf_map_lookup_elem(fd, &i, val) && val[0])
				n++;
		free(val);
		return n;
	}
	if (bpf_map__type(map) != BPF_MAP_TYPE_HASH ||
	    bpf_map__key_size(map) > sizeof(key[0]) ||
	    bpf_map_get_next_key(fd, NULL, key[cur]))
		return 0;
	do {
		n++;
		cur = !cur;
	} while (!bpf_map_get_next_key(fd, key[!cur], key[cur]));
	return n;
}

void doors_print_summary(struct doors *d, FILE *out, unsigned long long trace_lost)
{
	int ncpu = libbpf_num_possible_cpus();
	struct bpf_map *map = bpf_object__find_map_by_name(d->obj, "stats");
	__u64 total[STAT_MAX] = {}, *vals;
	const char *sep = "";
	bool lost = false;

	vals = calloc(ncpu > 0 ? ncpu : 1, sizeof(*vals));
	for (__u32 k = 0; map && vals && k < STAT_MAX; k++) {
		if (bpf_map_lookup_elem(bpf_map__fd(map), &k, vals))
			continue;
		for (int c = 0; c < ncpu; c++)
			total[k] += vals[c];
	}
	free(vals);

	fprintf(out, "Events:");
	for (int i = 0; i < d->n; i++) {
		if (d->points[i]->stat < 0)
			continue;
		fprintf(out, "%s %s %llu", sep, d->points[i]->name,
			(unsigned long long)total[d->points[i]->stat]);
		sep = ",";
	}
	fprintf(out, "\n");
	if (total[STAT_SPLIT_PART])
		fprintf(out, "Split: %llu parts of split bios, each ended with its bio\n",
			(unsigned long long)total[STAT_SPLIT_PART]);
	for (int k = STAT_FIRST_DROP; k < STAT_MAX; k++) {
		if (!total[k])
			continue;
		fprintf(out, "Lost: %llu %s\n", (unsigned long long)total[k], drop_names[k]);
		lost = true;
	}
	total[0] = unfinished(d);
	if (total[0]) {
		fprintf(out, "Lost: %llu starts never seen to complete (left in the start map)\n",
			(unsigned long long)total[0]);
		lost = true;
	}
	if (d->kprobe_missed) {
		fprintf(out, "Lost: %llu events missed by the kprobe (another kprobe was running)\n",
			(unsigned long long)d->kprobe_missed);
		lost = true;
	}
	total[0] = recursion_misses(d);
	if (total[0]) {
		fprintf(out, "Lost: %llu events missed by recursion\n",
			(unsigned long long)total[0]);
		lost = true;
	}
	if (trace_lost) {
		fprintf(out, "Lost: %llu trace lines overwritten before they were read\n",
			trace_lost);
		lost = true;
	}
	if (!lost)
		fprintf(out, "Lost: none\n");
}
