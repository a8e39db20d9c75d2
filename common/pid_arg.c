// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* -p PID: see pid_arg.h. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include "options.h"
#include "pid_arg.h"

/* A thread's process: the Tgid: line of /proc/PID/status (pid itself if unread). */
static long tgid_of(long pid)
{
	char path[64], line[128];
	long tgid = pid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/status", pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %ld", &tgid) == 1)
			break;
	if (f)
		fclose(f);
	return tgid;
}

unsigned int parse_pid_arg(struct argp_state *state, const char *arg)
{
	long pid = parse_positive(arg, 0x7fffffff), tgid;

	if (pid < 0)
		argp_error(state, "PID must be a positive number, not '%s'", arg);
	/* EPERM still means it exists; only ESRCH is no such process */
	if (kill(pid, 0) && errno == ESRCH)
		argp_error(state, "no process with PID %ld is running", pid);
	tgid = tgid_of(pid);
	if (tgid != pid)
		fprintf(stderr, "%s: PID %ld is a thread of process %ld: following the process\n",
			state->name, pid, tgid);
	return tgid;
}
