// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * read: the Stage 08 scenario's reader. Opens FILE, reads its first
 * BYTES (default 24) with one read() and prints them. Built with -pg so
 * uftrace sees its own functions too (scripts/uftrace-readahead.sh).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static ssize_t read_head(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len);
	close(fd);
	return n;
}

int main(int argc, char **argv)
{
	char buf[4096];
	size_t len = argc > 2 ? strtoul(argv[2], NULL, 0) : 24;
	ssize_t n;

	if (argc < 2 || argc > 3 || !len || len > sizeof(buf)) {
		fprintf(stderr, "usage: read FILE [BYTES (1-4096)]\n");
		return 2;
	}
	n = read_head(argv[1], buf, len);
	if (n < 0) {
		perror(argv[1]);
		return 1;
	}
	fwrite(buf, 1, n, stdout);
	return 0;
}
