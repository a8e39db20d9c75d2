// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Stage 03, solved: bio latency as a linear histogram, 1 ms a bucket,
 * printed at the end or, with -i, every interval (what it gained since).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include "tracer.h"
#include "bio_trace.h"
#include "bio_trace.skel.h"

#define BAR_WIDTH 40

static const struct probe_point *const points[] = {
	&point_submit_bio,
	&point_bio_endio,
};

static int interval_s;	/* -i: print every so many seconds, 0 = at the end */

static const struct argp_option options[] = {
	{ "interval", 'i', "SECONDS", 0, "Print the histogram of each SECONDS", 0 },
	{},
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	if (key != 'i')
		return ARGP_ERR_UNKNOWN;
	interval_s = parse_positive(arg, 3600);
	if (interval_s < 0)
		argp_error(state, "invalid interval '%s' (whole seconds, 1 to 3600)", arg);
	return 0;
}

static const struct argp_child children[] = {
	{ &common_argp, 0, NULL, 0 },
	{},
};

static const struct argp argp = {
	.options = options,
	.parser = parse_opt,
	.children = children,
	.doc = "Print bio latency as a linear histogram, 0 to 100 ms in 1 ms steps.\v"
	       "Examples:\n"
	       "  bio_trace                    # every disk, histogram on Ctrl-C\n"
	       "  bio_trace -d sda -i 1        # one disk, every second",
};

/*
 * -i: the counts already printed. Each interval shows what the slots
 * gained since: clearing them instead would lose the completions that
 * come between the read and the clear (stage 00's Pitfalls).
 */
static __u64 shown[HIST_SLOTS];

/* Buckets from the first to the last one used; the last slot is 100 ms and up. */
static int print_hist(void *arg)
{
	int fd = bpf_map__fd(((struct bio_trace_bpf *)arg)->maps.hist);
	__u64 count[HIST_SLOTS] = {}, most = 0, total;
	int first = -1, last = -1;
	char when[16];
	time_t now;

	for (__u32 i = 0; i < HIST_SLOTS; i++) {
		if (bpf_map_lookup_elem(fd, &i, &count[i])) {
			fprintf(stderr, "bio_trace: cannot read the histogram: %s\n",
				strerror(errno));
			return -1;
		}
		total = count[i];
		count[i] -= shown[i];
		shown[i] = total;
		if (!count[i])
			continue;
		if (first < 0)
			first = i;
		last = i;
		if (count[i] > most)
			most = count[i];
	}
	if (interval_s) {
		now = time(NULL);
		strftime(when, sizeof(when), "%H:%M:%S", localtime(&now));
		printf("%s\n", when);
	}
	printf("%-12s : %-8s distribution\n", "msecs", "count");
	for (int i = first; i >= 0 && i <= last; i++) {
		int len = (int)(count[i] * BAR_WIDTH / most);
		char range[32];

		if (i == HIST_SLOTS - 1)
			snprintf(range, sizeof(range), "%d+", i * HIST_STEP_MS);
		else
			snprintf(range, sizeof(range), "%d -> %d", i * HIST_STEP_MS,
				 (i + 1) * HIST_STEP_MS);
		printf("%-12s : %-8llu |%.*s%*s|\n", range, (unsigned long long)count[i],
		       len, "****************************************", BAR_WIDTH - len, "");
	}
	printf("\n");
	return 0;
}

int main(int argc, char **argv)
{
	struct tracer t = TRACER_INIT("bio_trace");
	struct bio_trace_bpf *skel;
	int err;

	parse_args(&argp, argc, argv, NULL);
	if (tracer_preflight(t.name))
		return 1;

	/*
	 * Open the skeleton, set read-only data and choose the doors before
	 * load. If the programs fail to load, -a auto tries the next door:
	 * libbpf loads an object once, so that takes a new one.
	 */
	for (;;) {
		skel = bio_trace_bpf__open();
		if (!skel) {
			fprintf(stderr, "%s: cannot open BPF object\n", t.name);
			return 1;
		}
		skel->rodata->quiet = env.quiet;
		skel->rodata->targ_dev = env.dev;

		err = tracer_select(&t, skel->obj, points, ARRAY_SIZE(points));
		if (err)
			goto cleanup;
		/* BIO_CLONED's bit on this kernel, from its BTF (bio_end.bpf.h) */
		skel->rodata->bio_cloned_flag = t.doors.bio_cloned;
		err = bio_trace_bpf__load(skel);
		if (!tracer_next_door(&t, err))
			break;
		bio_trace_bpf__destroy(skel);
	}
	if (err)
		goto cleanup;
	/* Solution: no events; the run loop calls print_hist every interval. */
	t.interval_ms = interval_s * 1000;
	t.tick = print_hist;
	t.arg = skel;
	err = tracer_attach(&t);
	if (err)
		goto cleanup;

	err = tracer_run(&t);
	if (!err)
		err = print_hist(skel);
	if (!err)
		err = tracer_summary(&t);
cleanup:
	tracer_close(&t);
	bio_trace_bpf__destroy(skel);
	return err ? 1 : 0;
}
