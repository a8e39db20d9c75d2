// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Shared option parsing: -a, -d, --duration, -q, -v; -j. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <bpf/libbpf.h>
#include "options.h"

struct common_env env;

enum { OPT_DURATION = 0x100 };

static const struct argp_option common_options[] = {
	{ "attach", 'a', "DOOR", 0,
	  "Door into the kernel: auto (default), fentry, kprobe or tracepoint", 1 },
	{ "disk", 'd', "DISK", 0, "Trace this disk only (e.g. loop0, /dev/sda)", 1 },
	{ "duration", OPT_DURATION, "SECONDS", 0,
	  "Stop after SECONDS and print the summary", 1 },
	{ "quiet", 'q', NULL, 0, "No per-event lines, summary only", 1 },
	{ "verbose", 'v', NULL, 0, "Print libbpf debug messages", 1 },
	{ NULL, 'h', NULL, OPTION_HIDDEN, "Show this help", 1 },
	{},
};

unsigned int disk_to_dev(const char *name)
{
	char path[PATH_MAX], buf[32];
	unsigned int maj, min;
	struct stat st;
	size_t n;
	FILE *f;

	/*
	 * A path names a block device node: /dev/sda, a symlink to one
	 * (/dev/disk/by-id/...), a node elsewhere. stat() follows the links;
	 * its device number finds the sysfs folder. A /dev/ name with no node
	 * (a container's /dev) falls back to the name below.
	 */
	if (strchr(name, '/') && stat(name, &st) == 0) {
		if (!S_ISBLK(st.st_mode))
			return 0;
		n = snprintf(path, sizeof(path), "/sys/dev/block/%u:%u",
			     major(st.st_rdev), minor(st.st_rdev));
	} else {
		if (!strncmp(name, "/dev/", 5))
			name += 5;
		if (!*name || strchr(name, '/') || strlen(name) > 64)
			return 0;
		n = snprintf(path, sizeof(path), "/sys/class/block/%s", name);
	}
	/* A partition's sysfs folder sits inside its disk's: use the disk. */
	snprintf(path + n, sizeof(path) - n, "/partition");
	if (access(path, F_OK) == 0)
		snprintf(path + n, sizeof(path) - n, "/../dev");
	else
		snprintf(path + n, sizeof(path) - n, "/dev");
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f) || sscanf(buf, "%u:%u", &maj, &min) != 2) {
		fclose(f);
		return 0;
	}
	fclose(f);
	return (maj << 20) | min;
}

double parse_seconds(const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v > 0) || !isfinite(v) || v > 1e7)
		return -1;
	return v;
}

long parse_positive(const char *s, long max)
{
	char *end;
	long v;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v <= 0 || v > max)
		return -1;
	return v;
}

static error_t common_parse(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'a':
		if (door_from_name(arg, &env.door))
			argp_error(state, "unknown door '%s' (auto, fentry, kprobe, tracepoint)",
				   arg);
		break;
	case 'd':
		env.disk = arg;
		env.dev = disk_to_dev(arg);
		if (!env.dev)
			argp_error(state, "no such disk '%s' (see lsblk)", arg);
		break;
	case OPT_DURATION:
		env.duration = parse_seconds(arg);
		if (env.duration < 0)
			argp_error(state, "--duration needs a positive number of seconds, not '%s'", arg);
		break;
	case 'q':
		env.quiet = true;
		break;
	case 'v':
		env.verbose = true;
		break;
	case 'h':
		argp_state_help(state, stdout, ARGP_HELP_STD_HELP);
		break;
	case ARGP_KEY_ARG:
		/* Reached only when the stage's own parser takes no arguments. */
		argp_error(state, "unexpected argument '%s'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp common_argp = {
	.options = common_options,
	.parser = common_parse,
};

static const struct argp_option json_options[] = {
	{ "json", 'j', NULL, 0,
	  "One JSON object per line on stdout, not the human lines (docs/json.md)", 1 },
	{},
};

static error_t json_parse(int key, char *arg, struct argp_state *state)
{
	if (key != 'j')
		return ARGP_ERR_UNKNOWN;
	env.json = true;
	return 0;
}

const struct argp json_argp = {
	.options = json_options,
	.parser = json_parse,
};

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	/* Our own messages say what failed; libbpf's detail is behind -v. */
	if (!env.verbose)
		return 0;
	return vfprintf(stderr, fmt, args);
}

/*
 * A program started with stdin, stdout or stderr closed would get that
 * number for the next file it opens (a --heatmap page, say), and write
 * its screen output into it: hold each closed one with /dev/null.
 */
static void hold_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		if (open("/dev/null", fd ? O_WRONLY : O_RDONLY) != fd)
			exit(1);	/* no way to say so: nowhere to write */
	}
}

int parse_args(const struct argp *argp, int argc, char **argv, void *input)
{
	int err;

	hold_std_fds();
	argp_err_exit_status = 2;	/* usage errors: 2, as other tools */
	/* getopt names argv[0] in its messages, argp the short name: use one */
	if (argc > 0 && strrchr(argv[0], '/'))
		argv[0] = strrchr(argv[0], '/') + 1;
	err = argp_parse(argp, argc, argv, 0, NULL, input);
	if (err)
		return err;
	libbpf_set_print(libbpf_print);
	return 0;
}
