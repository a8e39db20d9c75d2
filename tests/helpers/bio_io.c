// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * bio_io: issue O_DIRECT reads or writes at given sectors of a block
 * device, so a test knows exactly which I/Os the kernel saw.
 *
 *   bio_io [-w] [-s BYTES] [-g GATE] DEVICE SECTOR...
 *
 * Each SECTOR is in 512-byte units; each I/O is one bio of BYTES (4096).
 * -g GATE waits until the file GATE exists before the first I/O, so a
 * test can learn the PID first. Prints "pid N", then one line per I/O.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(void)
{
	fprintf(stderr, "usage: bio_io [-w] [-s BYTES] [-g GATE] DEVICE SECTOR...\n");
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

int main(int argc, char **argv)
{
	const char *gate = NULL;
	size_t size = 4096;
	int write_mode = 0, opt, fd;
	void *buf;

	while ((opt = getopt(argc, argv, "ws:g:")) != -1) {
		switch (opt) {
		case 'w':
			write_mode = 1;
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
	if (posix_memalign(&buf, 4096, size))
		return 1;
	memset(buf, 0xab, size);
	printf("pid %d\n", getpid());
	fflush(stdout);
	while (gate && access(gate, F_OK))
		usleep(10000);
	for (int i = optind + 1; i < argc; i++) {
		long long sector = number(argv[i]);
		ssize_t n;

		n = write_mode ? pwrite(fd, buf, size, sector * 512) :
				 pread(fd, buf, size, sector * 512);
		if (n != (ssize_t)size) {
			fprintf(stderr, "bio_io: %s at sector %lld: %s\n",
				write_mode ? "write" : "read", sector,
				n < 0 ? strerror(errno) : "short");
			return 1;
		}
		printf("%s sector %lld size %zu\n", write_mode ? "write" : "read", sector, size);
	}
	fflush(stdout);
	return 0;
}
