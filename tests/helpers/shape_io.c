// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * shape_io: I/O that takes the block layer's less common paths, so a test
 * knows what it issued.
 *
 *   shape_io dsync DEVICE N     N O_DIRECT|O_DSYNC 4 KiB writes (sectors
 *                               0, 8, ...): each a FUA write, which a disk
 *                               with a write cache and no FUA turns into a
 *                               flush sequence
 *   shape_io fsync FILE N       N appends of 4 KiB, each followed by
 *                               fsync(): a journal commit with flushes
 *   shape_io flush DEVICE       fsync() of the device: an empty flush
 *   shape_io pages FILE FIRST N BYTES   N pwrite()s of BYTES, the first at
 *                               FIRST x BYTES, then one fsync(); quiet:
 *                               no write() of its own (stage11.t counts
 *                               them)
 *   shape_io dirty FILE FIRST N BYTES   the same, no fsync()
 *   shape_io discard DEVICE BYTES   BLKDISCARD of BYTES from offset 0
 *
 * Prints one line per operation, but for pages and dirty.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/fs.h>

static void usage(void)
{
	fprintf(stderr, "usage: shape_io dsync DEVICE N | fsync FILE N | "
		"flush DEVICE | discard DEVICE BYTES | pages|dirty FILE FIRST N BYTES\n");
	exit(2);
}

static long long number(const char *s)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 0);
	if (errno || end == s || *end || v < 1) {
		fprintf(stderr, "shape_io: not a positive number: '%s'\n", s);
		exit(2);
	}
	return v;
}

static int fail(const char *what, const char *path)
{
	fprintf(stderr, "shape_io: %s %s: %s\n", what, path, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	const char *mode, *path;
	void *buf;
	int fd;

	if (argc < 3)
		usage();
	mode = argv[1];
	path = argv[2];
	if (posix_memalign(&buf, 4096, 4096))
		return 1;
	memset(buf, 0xab, 4096);

	if (!strcmp(mode, "dsync") && argc == 4) {
		long long n = number(argv[3]);

		fd = open(path, O_WRONLY | O_DIRECT | O_DSYNC);
		if (fd < 0)
			return fail("open", path);
		for (long long i = 0; i < n; i++) {
			if (pwrite(fd, buf, 4096, i * 4096) != 4096)
				return fail("write", path);
			printf("dsync write sector %lld\n", i * 8);
		}
	} else if (!strcmp(mode, "fsync") && argc == 4) {
		long long n = number(argv[3]);

		fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
		if (fd < 0)
			return fail("open", path);
		for (long long i = 0; i < n; i++) {
			if (write(fd, buf, 4096) != 4096)
				return fail("write", path);
			if (fsync(fd))
				return fail("fsync", path);
			printf("append and fsync %lld\n", i);
		}
	} else if ((!strcmp(mode, "pages") || !strcmp(mode, "dirty")) && argc == 6) {
		long long first = number(argv[3]), n = number(argv[4]), bytes = number(argv[5]);
		char *data = malloc(bytes);

		if (!data)
			return 1;
		memset(data, 0xcd, bytes);
		fd = open(path, O_WRONLY | O_CREAT, 0644);
		if (fd < 0)
			return fail("open", path);
		for (long long i = 0; i < n; i++)
			if (pwrite(fd, data, bytes, (first + i) * bytes) != bytes)
				return fail("write", path);
		if (!strcmp(mode, "pages") && fsync(fd))
			return fail("fsync", path);
	} else if (!strcmp(mode, "flush") && argc == 3) {
		fd = open(path, O_WRONLY);
		if (fd < 0)
			return fail("open", path);
		if (fsync(fd))
			return fail("fsync", path);
		printf("flush\n");
	} else if (!strcmp(mode, "discard") && argc == 4) {
		unsigned long long range[2] = { 0, number(argv[3]) };

		fd = open(path, O_WRONLY);
		if (fd < 0)
			return fail("open", path);
		if (ioctl(fd, BLKDISCARD, range))
			return fail("discard", path);
		printf("discard %llu bytes\n", range[1]);
	} else {
		usage();
	}
	close(fd);
	return 0;
}
