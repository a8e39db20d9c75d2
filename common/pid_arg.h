/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * -p PID: the process to follow. The BPF side compares the process ID
 * (the TGID, bpf_get_current_pid_tgid() >> 32), so a thread's ID is
 * taken for its process, and said so in one line on stderr.
 */
#ifndef __PID_ARG_H
#define __PID_ARG_H

#include <argp.h>

/* The process arg names; not a number, or no such process: a usage error (exit 2). */
unsigned int parse_pid_arg(struct argp_state *state, const char *arg);

#endif /* __PID_ARG_H */
