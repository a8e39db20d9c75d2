// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pc_reader: the page-cache tests' workload and ground truth.
 *   pc_reader [-b BYTES] [-g FIFO] [-t] FILE   read FILE to its end
 *   pc_reader -D FILE                          drop FILE from the page cache
 *   pc_reader -m FILE                          print its resident pages
 * -g waits for one byte on FIFO first, so a test knows the PID before any
 * read; -t reads from a second thread (not the main one).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

static const char *path;
static size_t bufsize = 131072;
static long long nread;

static int die(const char *what)
{
	fprintf(stderr, "pc_reader: %s %s: %s\n", what, path, strerror(errno));
	return 1;
}

static void *read_all(void *arg)
{
	char *buf = malloc(bufsize);
	int fd = open(path, O_RDONLY);
	ssize_t n;

	(void)arg;
	if (!buf || fd < 0) {
		nread = -1;
		return NULL;
	}
	while ((n = read(fd, buf, bufsize)) > 0)
		nread += n;
	if (n < 0)
		nread = -1;
	close(fd);
	free(buf);
	return NULL;
}

/* Pages of path in the page cache, by mincore() on a mapping of it. */
static long resident(long *total)
{
	long page = sysconf(_SC_PAGESIZE), n = 0;
	unsigned char *vec;
	struct stat st;
	void *map;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st))
		return -1;
	*total = (st.st_size + page - 1) / page;
	if (!*total) {
		close(fd);
		return 0;
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	vec = malloc(*total);
	if (map == MAP_FAILED || !vec || mincore(map, st.st_size, vec))
		return -1;
	for (long i = 0; i < *total; i++)
		n += vec[i] & 1;
	munmap(map, st.st_size);
	free(vec);
	close(fd);
	return n;
}

int main(int argc, char **argv)
{
	const char *gate = NULL;
	int thread = 0, mode = 0, opt;
	long total, n;

	while ((opt = getopt(argc, argv, "b:g:tDm")) != -1) {
		switch (opt) {
		case 'b':
			bufsize = strtoul(optarg, NULL, 0);
			break;
		case 'g':
			gate = optarg;
			break;
		case 't':
			thread = 1;
			break;
		case 'D':
		case 'm':
			mode = opt;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1 || !bufsize)
		goto usage;
	path = argv[optind];

	if (mode == 'D') {
		int fd = open(path, O_RDONLY);

		/* Clean pages only: write back first, then let them go. */
		if (fd < 0 || fdatasync(fd) || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED))
			return die("cannot drop");
		close(fd);
	}
	if (mode) {
		n = resident(&total);
		if (n < 0)
			return die("cannot map");
		printf("resident %ld of %ld pages\n", n, total);
		return mode == 'D' && n ? 1 : 0;
	}
	if (gate) {
		char c;
		int fd = open(gate, O_RDONLY);

		if (fd < 0 || read(fd, &c, 1) != 1)
			return die("no go from gate for");
		close(fd);
	}
	if (thread) {
		pthread_t tid;

		if (pthread_create(&tid, NULL, read_all, NULL) || pthread_join(tid, NULL))
			return die("cannot start a thread to read");
	} else {
		read_all(NULL);
	}
	if (nread < 0)
		return die("cannot read");
	printf("read %lld bytes\n", nread);
	return 0;
usage:
	fprintf(stderr, "usage: pc_reader [-b BYTES] [-g FIFO] [-t] FILE | -D FILE | -m FILE\n");
	return 2;
}
