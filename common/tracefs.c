// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* tracefs mount check and per-run trace instances. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include "tracefs.h"

static char root[64];

const char *tracefs_root(void)
{
	return root;
}

static bool has_trace_pipe(const char *dir)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/trace_pipe", dir);
	return access(path, F_OK) == 0;
}

static const char *const dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

int tracefs_find(void)
{
	for (int i = 0; i < 2; i++) {
		if (has_trace_pipe(dirs[i])) {
			snprintf(root, sizeof(root), "%s", dirs[i]);
			return 0;
		}
	}
	return -ENOENT;
}

int tracefs_mount(void)
{
	if (!tracefs_find())
		return 0;
	if (mount("nodev", dirs[0], "tracefs", 0, NULL) && errno != EBUSY)
		return -errno;
	if (!has_trace_pipe(dirs[0]))
		return -ENOENT;
	snprintf(root, sizeof(root), "%s", dirs[0]);
	return 0;
}

static int write_file(const char *dir, const char *file, const char *val)
{
	char path[512];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static const char printk_event[] = "events/bpf_trace/bpf_trace_printk/enable";

/* The programs that open an instance, instances/<name>.<pid>. */
static const char *const instance_names[] = { "bio_trace", "tracex3", "pagecache_trace" };

static bool is_stale(const char *entry)
{
	for (size_t i = 0; i < sizeof(instance_names) / sizeof(instance_names[0]); i++) {
		size_t len = strlen(instance_names[i]);
		char *end;
		long pid;

		if (strncmp(entry, instance_names[i], len) || entry[len] != '.')
			continue;
		pid = strtol(entry + len + 1, &end, 10);
		if (*end || pid <= 0 || pid == getpid())
			return false;
		return kill(pid, 0) && errno == ESRCH;
	}
	return false;
}

void trace_remove_stale(void)
{
	char path[600];
	struct dirent *de;
	DIR *dir;

	if (tracefs_find())
		return;		/* not mounted: no instance can be there */
	snprintf(path, sizeof(path), "%s/instances", root);
	dir = opendir(path);
	while (dir && (de = readdir(dir))) {
		if (!is_stale(de->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/instances/%s", root, de->d_name);
		write_file(path, printk_event, "0");
		/* a reader still holding it open (another PID namespace?) gets EBUSY */
		rmdir(path);
	}
	if (dir)
		closedir(dir);
}

int trace_open(struct trace_reader *tr, const char *name)
{
	char path[512];
	int err;

	memset(tr, 0, sizeof(*tr));
	tr->fd = -1;
	snprintf(tr->dir, sizeof(tr->dir), "%s/instances/%s.%d", root, name, getpid());
	if (mkdir(tr->dir, 0750) && errno != EEXIST) {
		err = -errno;
		fprintf(stderr, "cannot create trace instance %s: %s\n", tr->dir, strerror(-err));
		tr->dir[0] = '\0';
		return err;
	}
	err = write_file(tr->dir, printk_event, "1");
	if (err) {
		/* Before 5.10 bpf_printk went to trace_printk: the global pipe only. */
		rmdir(tr->dir);
		snprintf(tr->dir, sizeof(tr->dir), "%s", root);
		fprintf(stderr, "no bpf_trace_printk event here: reading the shared %s/trace_pipe\n",
			root);
	}
	snprintf(path, sizeof(path), "%s/trace_pipe", tr->dir);
	tr->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (tr->fd < 0) {
		err = -errno;
		fprintf(stderr, "cannot open %s: %s\n", path, strerror(-err));
		trace_close(tr);
		return err;
	}
	return 0;
}

static void count_lost(struct trace_reader *tr, const char *line)
{
	const char *p = strstr(line, "[LOST ");
	unsigned long long n;

	if (p && sscanf(p, "[LOST %llu EVENTS]", &n) == 1)
		tr->lost += n;
}

int trace_drain(struct trace_reader *tr, FILE *out)
{
	ssize_t n;

	if (tr->fd < 0)
		return 0;
	while ((n = read(tr->fd, tr->buf + tr->len, sizeof(tr->buf) - tr->len - 1)) > 0) {
		char *start = tr->buf, *nl;

		tr->len += n;
		tr->buf[tr->len] = '\0';
		while ((nl = strchr(start, '\n'))) {
			*nl = '\0';
			count_lost(tr, start);
			if (fprintf(out, "%s\n", start) < 0)
				return -1;
			start = nl + 1;
		}
		tr->len -= start - tr->buf;
		memmove(tr->buf, start, tr->len);
		if (tr->len == sizeof(tr->buf) - 1)	/* no newline in 64 KiB: flush */
			tr->len = 0;
	}
	return fflush(out) ? -1 : 0;
}

unsigned long long trace_lost(struct trace_reader *tr)
{
	unsigned long long overrun = 0, n;
	char path[600], line[128];
	struct dirent *de;
	DIR *dir;

	if (!tr->dir[0])
		return tr->lost;
	snprintf(path, sizeof(path), "%s/per_cpu", tr->dir);
	dir = opendir(path);
	while (dir && (de = readdir(dir))) {
		FILE *f;

		if (strncmp(de->d_name, "cpu", 3))
			continue;
		snprintf(path, sizeof(path), "%s/per_cpu/%s/stats", tr->dir, de->d_name);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "overrun: %llu", &n) == 1)
				overrun += n;
		if (f)
			fclose(f);
	}
	if (dir)
		closedir(dir);
	return overrun > tr->lost ? overrun : tr->lost;
}

void trace_close(struct trace_reader *tr)
{
	if (tr->fd >= 0)
		close(tr->fd);
	tr->fd = -1;
	if (tr->dir[0] && strcmp(tr->dir, root)) {
		write_file(tr->dir, printk_event, "0");
		rmdir(tr->dir);
	}
	tr->dir[0] = '\0';
}
