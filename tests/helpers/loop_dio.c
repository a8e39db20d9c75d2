// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * loop_dio: turn a loop device's direct I/O on or off (LOOP_SET_DIRECT_IO,
 * what util-linux's losetup --direct-io does; busybox's has no such
 * option). With it on, the loop driver reads and writes its backing file
 * with O_DIRECT: a write reaches a backing block device as a bio, and
 * its failure fails the loop device's request, not a later writeback.
 * The kernel refuses (EINVAL) where the backing file cannot do it.
 *
 *   loop_dio LOOPDEV [on|off]    (default: on)
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/loop.h>

int main(int argc, char **argv)
{
	unsigned long on = 1;
	int fd;

	if (argc == 3 && !strcmp(argv[2], "off"))
		on = 0;
	else if (argc != 2 && (argc != 3 || strcmp(argv[2], "on"))) {
		fprintf(stderr, "usage: loop_dio LOOPDEV [on|off]\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || ioctl(fd, LOOP_SET_DIRECT_IO, on)) {
		fprintf(stderr, "loop_dio: %s: %m\n", argv[1]);
		return 1;
	}
	close(fd);
	return 0;
}
