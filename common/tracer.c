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
static int out_err;	/* the first error writing stdout, -errno */

static void on_signal(int sig)
{
	(void)sig;
	exiting = 1;	/* the main loop detaches, drains and prints */
}

int tracer_preflight(const char *name)
{
	struct sigaction sa = { .sa_handler = on_signal };

	if (geteuid() != 0) {
		fprintf(stderr, "%s: must be run as root (try sudo)\n", name);
		return -1;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		fprintf(stderr, "%s: no kernel BTF at /sys/kernel/btf/vmlinux "
			"(needs CONFIG_DEBUG_INFO_BTF=y)\n", name);
		return -1;
	}
	/* A killed stage 01-02 run leaves a trace instance collecting lines. */
	trace_remove_stale();
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);	/* a closed terminal ends a run like Ctrl-C */
	signal(SIGPIPE, SIG_IGN);	/* a closed pipe shows as EPIPE instead */
	/*
	 * A file or a pipe: a buffer the loop's fflush() writes out, not a
	 * printf() in a flood of events. A write that fails inside printf()
	 * drops the buffer and, by the next check, its errno: a full disk
	 * would be said as EIO, not ENOSPC.
	 */
	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, NULL, _IOFBF, 1 << 20);
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
	int err;

	if (t->printk && !env.quiet) {
		err = tracefs_mount();
		if (err) {
			fprintf(stderr, "%s: tracefs is not mounted and cannot be mounted "
				"at /sys/kernel/tracing: %s\n", t->name, strerror(-err));
			return -1;
		}
		if (trace_open(&t->tr, t->name))
			return -1;
	}
	if (doors_attach(&t->doors))
		return -1;
	fprintf(stderr, "Tracing%s%s... Hit Ctrl-C to end.\n",
		env.disk ? " " : "", env.disk ? env.disk : "");
	return 0;
}

/*
 * Why stdout failed: errno of the failed flush, or, where the write that
 * failed came earlier (errno since overwritten), a pipe without a reader
 * (POLLERR), else EIO.
 */
static int stdout_error(int flush_failed)
{
	struct pollfd pfd = { .fd = STDOUT_FILENO, .events = POLLOUT };

	if (flush_failed && errno)
		return -errno;
	if (poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLERR))
		return -EPIPE;
	return -EIO;
}

/* The first failure is kept and said once; 0 for EPIPE, else -1. */
static int output_failed(struct tracer *t, int err)
{
	if (!out_err) {
		out_err = err;
		if (err != -EPIPE)	/* | head: the reader has what it wanted */
			fprintf(stderr, "%s: cannot write the output: %s\n",
				t->name, strerror(-err));
	}
	return out_err == -EPIPE ? 0 : -1;
}

int tracer_output_ok(struct tracer *t)
{
	int failed;

	if (out_err)
		return out_err == -EPIPE ? 0 : -1;
	errno = 0;
	failed = fflush(stdout) != 0;
	if (!failed && !ferror(stdout))
		return 0;
	return output_failed(t, stdout_error(failed));
}

double tracer_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Events or trace lines waiting, for up to ms milliseconds; printed. */
static void read_events(struct tracer *t, int ms)
{
	struct pollfd pfd = { .fd = t->tr.fd, .events = POLLIN };

	if (t->rb) {
		/*
		 * Wait for a wakeup (ringbuf.bpf.h: once a batch is waiting)
		 * or the timeout, then take whatever is there: poll alone
		 * reads only a ring that woke it. -EINTR on a signal: fine.
		 */
		ring_buffer__poll(t->rb, ms);
		ring_buffer__consume(t->rb);
	} else {
		if (ms > 0)
			poll(&pfd, pfd.fd >= 0, ms);
		errno = 0;
		if (trace_drain(&t->tr, stdout))
			output_failed(t, stdout_error(1));
	}
}

int tracer_run(struct tracer *t)
{
	double end = env.duration ? tracer_now() + env.duration : 0;
	double next_tick = t->interval_ms ? tracer_now() + t->interval_ms / 1000.0 : 0;

	while (!exiting && !out_err) {
		double wait = 0.2, left;

		if (end && (left = end - tracer_now()) < wait)
			wait = left;
		if (next_tick && (left = next_tick - tracer_now()) < wait)
			wait = left;
		read_events(t, wait > 0 ? (int)(wait * 1000) + 1 : 0);
		if (tracer_output_ok(t))
			break;
		if (next_tick && tracer_now() >= next_tick) {
			next_tick += t->interval_ms / 1000.0;
			if (t->tick && t->tick(t->arg))
				break;
			if (tracer_output_ok(t))
				break;
		}
		if (end && tracer_now() >= end)
			break;
	}
	/* The starts first: I/O in flight still ends while the rest detach. */
	doors_detach_first(&t->doors);
	summary_mark_stop(&t->doors, t->stats);
	doors_detach(&t->doors);
	/* What is in the buffer still belongs to this run. */
	if (t->rb)
		ring_buffer__consume(t->rb);
	else
		read_events(t, 0);
	return tracer_output_ok(t);
}

int tracer_summary(struct tracer *t)
{
	if (out_err == -EPIPE)
		return 0;	/* nobody is reading */
	summary_print(&t->doors, t->stats, t->start, stdout, trace_lost(&t->tr));
	return tracer_output_ok(t);
}

void tracer_close(struct tracer *t)
{
	doors_detach(&t->doors);
	trace_close(&t->tr);
	ring_buffer__free(t->rb);
	t->rb = NULL;
}
