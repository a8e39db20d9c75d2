// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pc_reader: the page-cache tests' workload and ground truth.
 *   pc_reader [-b BYTES] [-g FIFO] [-t] [-v] [-L] FILE   read FILE to its end
 *   pc_reader -D FILE                          drop FILE from the page cache
 *   pc_reader -m FILE                          print its resident pages
 * -g waits for one byte on FIFO first, so a test knows the PID before any
 * read; -t reads from a second thread (not the main one).
 * -v prints the resident pages (mincore) right before the first read and
 * right after the last, measured by the reading thread itself: the page
 * cache can lose pages at any time (reclaim, DAMON pageout, a balloon),
 * so a residency measured by another process earlier is no ground truth.
 * -L first maps FILE and mlock()s it, reading in what is not resident, and
 * prints "locked N of M pages" (flushed) before any gate: its pages stay in
 * the cache, unevictable, until this process exits. A test starts the
 * tracer after that line, so the locking itself is not traced.
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
static int verbose;
static long res_before = -1, res_after = -1, res_total;

static int die(const char *what)
{
	fprintf(stderr, "pc_reader: %s %s: %s\n", what, path, strerror(errno));
	return 1;
}

/* Pages of path in the page cache, by mincore() on a mapping of it. */
static long resident(long *total)
{
	long page = sysconf(_SC_PAGESIZE), n = -1;
	unsigned char *vec = NULL;
	void *map = MAP_FAILED;
	struct stat st;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st))
		goto out;
	*total = (st.st_size + page - 1) / page;
	if (!*total) {
		n = 0;
		goto out;
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	vec = malloc(*total);
	if (map == MAP_FAILED || !vec || mincore(map, st.st_size, vec))
		goto out;
	n = 0;
	for (long i = 0; i < *total; i++)
		n += vec[i] & 1;
out:
	if (map != MAP_FAILED)
		munmap(map, st.st_size);
	free(vec);
	close(fd);
	return n;
}

static void *read_all(void *arg)
{
	char *buf = malloc(bufsize);
	int fd = open(path, O_RDONLY);
	ssize_t n;

	(void)arg;
	if (!buf || fd < 0) {
		nread = -1;
		goto out;
	}
	/* mincore() maps without touching: it reads no page in */
	if (verbose && (res_before = resident(&res_total)) < 0) {
		nread = -1;
		goto out;
	}
	while ((n = read(fd, buf, bufsize)) > 0)
		nread += n;
	if (n < 0)
		nread = -1;
	if (verbose && (res_after = resident(&res_total)) < 0)
		nread = -1;
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

/* -L: map the whole file and lock it in memory; kept until exit. */
static int lock_file(void)
{
	struct stat st;
	long total, n;
	void *map;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) || !st.st_size)
		return -1;
	map = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED || mlock(map, st.st_size))
		return -1;
	n = resident(&total);
	if (n < 0)
		return -1;
	printf("locked %ld of %ld pages\n", n, total);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	const char *gate = NULL;
	int thread = 0, lock = 0, mode = 0, opt;
	long total, n;

	while ((opt = getopt(argc, argv, "b:g:tvLDm")) != -1) {
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
		case 'v':
			verbose = 1;
			break;
		case 'L':
			lock = 1;
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
	if (lock && lock_file())
		return die("cannot lock in memory");
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
	if (verbose)
		printf("resident before %ld of %ld pages\n", res_before, res_total);
	printf("read %lld bytes\n", nread);
	if (verbose)
		printf("resident after %ld of %ld pages\n", res_after, res_total);
	return 0;
usage:
	fprintf(stderr, "usage: pc_reader [-b BYTES] [-g FIFO] [-t] [-v] [-L] FILE | -D FILE | -m FILE\n");
	return 2;
}
