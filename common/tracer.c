// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The common run of every stage: see tracer.h. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "summary.h"
#include "tracer.h"

static volatile sig_atomic_t exiting;

static void on_signal(int sig)
{
	(void)sig;
	exiting = 1;	/* the main loop prints and cleans up */
}

int tracer_preflight(const char *name)
{
	struct sigaction sa = { .sa_handler = on_signal };
	int err;

	if (geteuid() != 0) {
		fprintf(stderr, "%s: must be run as root (try sudo)\n", name);
		return -1;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		fprintf(stderr, "%s: no kernel BTF at /sys/kernel/btf/vmlinux "
			"(needs CONFIG_DEBUG_INFO_BTF=y)\n", name);
		return -1;
	}
	err = tracefs_mount();
	if (err) {
		fprintf(stderr, "%s: tracefs is not mounted and cannot be mounted "
			"at /sys/kernel/tracing: %s\n", name, strerror(-err));
		return -1;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);	/* a closed pipe shows as EPIPE instead */
	return 0;
}

int tracer_select(struct tracer *t, struct bpf_object *obj,
		  const struct probe_point *const *points, int n)
{
	t->tr.fd = -1;
	return doors_select(&t->doors, obj, points, n, env.door);
}

bool tracer_next_door(struct tracer *t, int err)
{
	char tried[64];

	if (!err)
		return false;
	if (!doors_next(&t->doors, err))
		return true;	/* the door lines will say why */
	if (t->doors.want == DOOR_AUTO)
		fprintf(stderr, "%s: cannot load BPF object in any door (tried %s): %s (try -v)\n",
			t->name, doors_failed(&t->doors, tried, sizeof(tried)), strerror(-err));
	else
		fprintf(stderr, "%s: cannot load BPF object: %s (try -v)\n",
			t->name, strerror(-err));
	return false;
}

int tracer_attach(struct tracer *t)
{
	if (!env.quiet && trace_open(&t->tr, t->name))
		return -1;
	t->tr.json = env.json;
	if (doors_attach(&t->doors))
		return -1;
	fprintf(stderr, "Tracing%s%s... Hit Ctrl-C to end.\n",
		env.disk ? " " : "", env.disk ? env.disk : "");
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int tracer_run(struct tracer *t)
{
	double end = env.duration ? now() + env.duration : 0;
	double next_tick = t->interval_ms ? now() + t->interval_ms / 1000.0 : 0;
	struct pollfd pfd = { .fd = t->tr.fd, .events = POLLIN };
	int err = 0;

	while (!exiting) {
		double wait = 0.2, left;

		if (end && (left = end - now()) < wait)
			wait = left;
		if (next_tick && (left = next_tick - now()) < wait)
			wait = left;
		if (wait > 0)
			poll(&pfd, pfd.fd >= 0, (int)(wait * 1000) + 1);
		if (trace_drain(&t->tr, stdout)) {
			err = -EPIPE;	/* reader went away: stop quietly */
			break;
		}
		if (next_tick && now() >= next_tick) {
			next_tick += t->interval_ms / 1000.0;
			if (t->tick && t->tick(t->arg))
				break;
			/* A tick printed to a reader that went away (EPIPE). */
			if (ferror(stdout)) {
				err = -EPIPE;
				break;
			}
		}
		if (end && now() >= end)
			break;
	}
	doors_detach(&t->doors);
	/* Lines already in the buffer still belong to this run. */
	if (!err && trace_drain(&t->tr, stdout))
		err = -EPIPE;
	return err;
}

void tracer_summary(struct tracer *t)
{
	summary_print(&t->doors, stdout, trace_lost(&t->tr));
	fflush(stdout);
}

void tracer_close(struct tracer *t)
{
	doors_detach(&t->doors);
	trace_close(&t->tr);
}
