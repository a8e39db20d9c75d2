// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The summary and its losses: see summary.h. */
#include <stdlib.h>
#include <bpf/bpf.h>
#include "options.h"
#include "stats.h"
#include "summary.h"

/*
 * The start of struct bpf_link_info for a kprobe perf link as of 6.7,
 * which added "missed": hits the kprobe itself dropped (it fired while
 * another kprobe ran on that CPU). Written out here because the UAPI
 * headers of older distributions lack it; older kernels leave it zero.
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

/* The same for a kprobe.multi link (stage 10), "missed" also since 6.7. */
struct kprobe_multi_link_info {
	__u32 type;		/* BPF_LINK_TYPE_KPROBE_MULTI */
	__u32 id;
	__u32 prog_id;
	__u32 :32;
	__u64 addrs;		/* NULL: the addresses are not wanted */
	__u32 count;
	__u32 flags;
	__u64 missed;
};

#define LINK_TYPE_PERF_EVENT	7
#define LINK_TYPE_KPROBE_MULTI	8
#define PERF_EVENT_KPROBE	3
#define PERF_EVENT_KRETPROBE	4

__u64 link_kprobe_missed(struct bpf_link *link)
{
	struct kprobe_link_info info = {};
	struct kprobe_multi_link_info *multi = (void *)&info;
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(bpf_link__fd(link), &info, &len))
		return 0;
	if (info.type == LINK_TYPE_KPROBE_MULTI)
		return multi->missed;
	if (info.type != LINK_TYPE_PERF_EVENT ||
	    (info.perf_type != PERF_EVENT_KPROBE && info.perf_type != PERF_EVENT_KRETPROBE))
		return 0;
	return info.missed;
}


__u64 recursion_misses(struct bpf_object *obj)
{
	struct bpf_program *prog;
	__u64 sum = 0;

	bpf_object__for_each_program(prog, obj) {
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
 * The entries in the stage's hash map of starts (bio or request -> start
 * record). The overhead lab's stage 03 keeps its starts in an array
 * instead (bench/stage03_array_map): there a slot whose first 8 bytes,
 * its key, are not 0 is taken.
 */
__u64 starts_in_flight(struct bpf_map *map)
{
	char key[2][64];
	__u64 n = 0;
	int fd, cur = 0;

	fd = map ? bpf_map__fd(map) : -1;
	if (fd < 0)
		return 0;
	if (bpf_map__type(map) == BPF_MAP_TYPE_ARRAY) {
		__u64 *val = calloc(1, bpf_map__value_size(map) + sizeof(__u64));

		for (__u32 i = 0; val && i < bpf_map__max_entries(map); i++)
			if (!bpf_map_lookup_elem(fd, &i, val) && val[0])
				n++;
		free(val);
		return n;
	}
	if (bpf_map__key_size(map) > sizeof(key[0]) ||
	    bpf_map_get_next_key(fd, NULL, key[cur]))
		return 0;
	do {
		n++;
		cur = !cur;
	} while (!bpf_map_get_next_key(fd, key[!cur], key[cur]));
	return n;
}

void read_counters(struct bpf_map *map, __u64 *total, int n)
{
	int ncpu = libbpf_num_possible_cpus();
	__u64 *vals = calloc(ncpu > 0 ? ncpu : 1, sizeof(*vals));

	for (__u32 k = 0; map && vals && k < (__u32)n; k++) {
		if (bpf_map_lookup_elem(bpf_map__fd(map), &k, vals))
			continue;
		for (int c = 0; c < ncpu; c++)
			total[k] += vals[c];
	}
	free(vals);
}

void lost_lines(FILE *out, const struct loss *l, int n)
{
	bool lost = false;

	for (int i = 0; i < n; i++) {
		if (l[i].n)
			fprintf(out, "Lost: %llu %s\n", (unsigned long long)l[i].n, l[i].what);
		lost |= l[i].n != 0;
	}
	if (!lost)
		fprintf(out, "Lost: none\n");
}

void lost_json(FILE *out, const struct loss *l, int n)
{
	const char *sep = "";

	fprintf(out, ",\"lost\":{");
	for (int i = 0; i < n; i++) {
		if (!l[i].n)
			continue;
		fprintf(out, "%s\"%s\":%llu", sep, l[i].key, (unsigned long long)l[i].n);
		sep = ",";
	}
	fprintf(out, "}");
}

void summary_mark_stop(struct doors *d, struct bpf_map *stats)
{
	__u64 total[STAT_MAX] = {};

	read_counters(stats, total, STAT_MAX);
	d->no_start_at_stop = total[STAT_NO_START];
}

/* The stats counters that count a loss (stats.h), n filled at exit. */
static const struct loss drops[STAT_MAX] = {
	[STAT_MAP_FULL] = { "map_full", "start records not stored (map full)" },
	[STAT_RB_FULL] = { "ring_buffer_full", "events not sent (ring buffer full)" },
	[STAT_STALE] = { "stale_start",
		"starts replaced before their end was seen (end not traced, or requeued)" },
	[STAT_WALK_CUT] = { "walk_cut", "rq->bio walks cut short" },
	[STAT_STACK_ERR] = { "stack_error", "stacks not captured" },
	[STAT_TASK_STORE] = { "task_storage",
		"events without per-task storage (out of memory)" },
};

static void summary_json(FILE *out, struct doors *d, const __u64 *total, __u64 at_start,
			 __u64 at_exit, const struct loss *l, int n)
{
	const char *sep = "";

	fprintf(out, "{\"type\":\"summary\",\"events\":{");
	for (int i = 0; i < d->n; i++) {
		if (d->points[i]->stat < 0)
			continue;
		fprintf(out, "%s\"%s\":%llu", sep, d->points[i]->name,
		       (unsigned long long)total[d->points[i]->stat]);
		sep = ",";
	}
	fprintf(out, "},\"split_parts\":%llu,\"in_flight\":{\"at_start\":%llu,\"at_exit\":%llu}",
		(unsigned long long)total[STAT_SPLIT_PART],
		(unsigned long long)at_start, (unsigned long long)at_exit);
	lost_json(out, l, n);
	fprintf(out, "}\n");
}

void summary_print(struct doors *d, struct bpf_map *stats, struct bpf_map *start,
		   FILE *out, unsigned long long trace_lost)
{
	__u64 total[STAT_MAX] = {}, at_start, at_exit, missed;
	struct loss l[STAT_MAX + 7];
	const char *sep = "";
	int n = 0;

	read_counters(stats, total, STAT_MAX);
	/*
	 * Ends of I/O submitted after the start point shut (tracer_run()):
	 * not this run's, in no count. The end point is the stage's last.
	 */
	if (d->n > 1 && total[STAT_NO_START] > d->no_start_at_stop) {
		__u64 after = total[STAT_NO_START] - d->no_start_at_stop;

		total[STAT_NO_START] -= after;
		if (d->points[d->n - 1]->stat >= 0)
			total[d->points[d->n - 1]->stat] -= after;
	}
	missed = d->kprobe_missed + recursion_misses(d->obj);
	/*
	 * A completion without a start began before tracing did (the start
	 * point is attached last, doors.c), or in the function doors was a
	 * stacked driver's bio sent below submit_bio(); a start left in the
	 * map is I/O not finished when tracing ended. Unless a start or an
	 * end was itself lost (a full map, a missed run): then
	 * they may be its other half, and are counted as lost too.
	 */
	at_start = total[STAT_NO_START];
	at_exit = starts_in_flight(start);
	if (total[STAT_MAP_FULL] || missed) {
		l[n++] = (struct loss){ "no_start",
			"completions without a recorded start (in flight at start, or its start lost)",
			at_start };
		l[n++] = (struct loss){ "starts_left",
			"starts never seen to complete (in flight at exit, or its end lost)", at_exit };
		at_start = at_exit = 0;
	}
	for (int k = STAT_FIRST_DROP; k < STAT_MAX; k++)
		l[n++] = (struct loss){ drops[k].key, drops[k].what, total[k] };
	l[n++] = (struct loss){ "kprobe_missed",
		"events missed by the kprobe (another kprobe was running)", d->kprobe_missed };
	l[n++] = (struct loss){ "recursion_missed",
		"events missed by recursion", missed - d->kprobe_missed };
	l[n++] = (struct loss){ "trace_lines_lost",
		"trace lines overwritten before they were read", trace_lost };
	if (env.json) {
		summary_json(out, d, total, at_start, at_exit, l, n);
		return;
	}

	fprintf(out, "Events:");
	for (int i = 0; i < d->n; i++) {
		if (d->points[i]->stat < 0)	/* a point that keeps no count */
			continue;
		fprintf(out, "%s %s %llu", sep, d->points[i]->name,
			(unsigned long long)total[d->points[i]->stat]);
		sep = ",";
	}
	fprintf(out, "\n");
	if (total[STAT_SPLIT_PART])
		fprintf(out, "Split: %llu parts of split bios, each ended with its bio\n",
			(unsigned long long)total[STAT_SPLIT_PART]);
	/* Not lost: begun before the run, or not ended when it stopped. */
	if (at_start || at_exit)
		fprintf(out, "In flight at start: %llu completions not timed (begun before tracing); "
			"at exit: %llu not finished\n",
			(unsigned long long)at_start, (unsigned long long)at_exit);
	lost_lines(out, l, n);
}
