// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * bio_io: issue O_DIRECT reads or writes at given sectors of a block
 * device, so a test knows exactly which I/Os the kernel saw.
 *
 *   bio_io [-w] [-A] [-t] [-s BYTES] [-g GATE] DEVICE SECTOR...
 *
 * Each SECTOR is in 512-byte units; each I/O is one bio of BYTES (4096).
 * -g GATE waits until the file GATE exists before the first I/O, so a
 * test can learn the PID first. Prints "pid N", then one line per I/O;
 * -t adds how long its system call took ("in N ns"): no trace of the
 * bio inside it can have taken longer (one after the other only).
 *
 * -A issues them all at once, in one io_submit() (Linux AIO), not one
 * after the other: the kernel plugs the queue for a batch of more than
 * two (fs/aio.c, AIO_PLUG_THRESHOLD), so bios at adjacent sectors are
 * merged into one request before the disk sees any of them. Raw system
 * calls: no libaio, and the helper stays static.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/aio_abi.h>

static void usage(void)
{
	fprintf(stderr, "usage: bio_io [-w] [-A] [-t] [-s BYTES] [-g GATE] DEVICE SECTOR...\n");
	exit(2);
}

static long long number(const char *s)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 0);
	if (errno || end == s || *end || v < 0) {
		fprintf(stderr, "bio_io: not a number: '%s'\n", s);
		exit(2);
	}
	return v;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* -A: the n I/Os at sectors[] in one io_submit(), then wait for them all. */
static int aio_batch(int fd, int write_mode, void *buf, size_t size,
		     const long long *sectors, int n)
{
	struct iocb *cbs = calloc(n, sizeof(*cbs));
	struct iocb **list = calloc(n, sizeof(*list));
	struct io_event *evs = calloc(n, sizeof(*evs));
	aio_context_t ctx = 0;
	long done = 0, r;

	if (!cbs || !list || !evs)
		return 1;
	if (syscall(SYS_io_setup, n, &ctx)) {
		fprintf(stderr, "bio_io: io_setup: %s\n", strerror(errno));
		return 1;
	}
	for (int i = 0; i < n; i++) {
		cbs[i].aio_fildes = fd;
		cbs[i].aio_lio_opcode = write_mode ? IOCB_CMD_PWRITE : IOCB_CMD_PREAD;
		cbs[i].aio_buf = (unsigned long)buf + i * size;
		cbs[i].aio_nbytes = size;
		cbs[i].aio_offset = sectors[i] * 512;
		cbs[i].aio_data = i;
		list[i] = &cbs[i];
	}
	/* one call: a partial submit would split the batch, and its plug */
	r = syscall(SYS_io_submit, ctx, n, list);
	if (r != n) {
		fprintf(stderr, "bio_io: io_submit of %d: %s\n", n,
			r < 0 ? strerror(errno) : "partly submitted");
		return 1;
	}
	while (done < n) {
		r = syscall(SYS_io_getevents, ctx, 1, n - done, evs + done, NULL);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			fprintf(stderr, "bio_io: io_getevents: %s\n", strerror(errno));
			return 1;
		}
		done += r;
	}
	for (int i = 0; i < n; i++) {
		long long sector = sectors[evs[i].data];

		if (evs[i].res != (__s64)size) {
			fprintf(stderr, "bio_io: %s at sector %lld: %s\n",
				write_mode ? "write" : "read", sector,
				evs[i].res < 0 ? strerror(-evs[i].res) : "short");
			return 1;
		}
	}
	for (int i = 0; i < n; i++)
		printf("%s sector %lld size %zu\n", write_mode ? "write" : "read", sectors[i], size);
	syscall(SYS_io_destroy, ctx);
	return 0;
}

int main(int argc, char **argv)
{
	const char *gate = NULL;
	size_t size = 4096;
	int write_mode = 0, batch = 0, timed = 0, opt, fd, n;
	long long *sectors;
	void *buf;

	while ((opt = getopt(argc, argv, "wAts:g:")) != -1) {
		switch (opt) {
		case 'w':
			write_mode = 1;
			break;
		case 'A':
			batch = 1;
			break;
		case 't':
			timed = 1;
			break;
		case 's':
			size = number(optarg);
			break;
		case 'g':
			gate = optarg;
			break;
		default:
			usage();
		}
	}
	if (argc - optind < 2 || !size || size % 512)
		usage();
	fd = open(argv[optind], (write_mode ? O_WRONLY : O_RDONLY) | O_DIRECT);
	if (fd < 0) {
		fprintf(stderr, "bio_io: %s: %s\n", argv[optind], strerror(errno));
		return 1;
	}
	n = argc - optind - 1;
	sectors = calloc(n, sizeof(*sectors));
	if (!sectors)
		return 1;
	for (int i = 0; i < n; i++)
		sectors[i] = number(argv[optind + 1 + i]);
	/* -A: a buffer each, as they are all in flight at once */
	if (posix_memalign(&buf, 4096, size * (batch ? n : 1)))
		return 1;
	memset(buf, 0xab, size * (batch ? n : 1));
	printf("pid %d\n", getpid());
	fflush(stdout);
	while (gate && access(gate, F_OK))
		usleep(10000);
	if (batch) {
		int err = aio_batch(fd, write_mode, buf, size, sectors, n);

		fflush(stdout);
		return err;
	}
	for (int i = 0; i < n; i++) {
		long long sector = sectors[i], t0 = now_ns();
		ssize_t got;

		got = write_mode ? pwrite(fd, buf, size, sector * 512) :
				   pread(fd, buf, size, sector * 512);
		if (got != (ssize_t)size) {
			fprintf(stderr, "bio_io: %s at sector %lld: %s\n",
				write_mode ? "write" : "read", sector,
				got < 0 ? strerror(errno) : "short");
			return 1;
		}
		printf("%s sector %lld size %zu", write_mode ? "write" : "read", sector, size);
		if (timed)
			printf(" in %lld ns", now_ns() - t0);
		printf("\n");
	}
	fflush(stdout);
	return 0;
}
