// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * file_sector: where a file's byte lies on its disk, from the filesystem's
 * own map (FIEMAP), so a test knows which sector a read through the file
 * must reach below it.
 *
 *   file_sector FILE OFFSET
 *
 * Prints the disk sector (512 bytes) holding byte OFFSET of FILE.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>

int main(int argc, char **argv)
{
	struct {
		struct fiemap map;
		struct fiemap_extent ext[1];
	} q;
	unsigned long long off;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: file_sector FILE OFFSET\n");
		return 2;
	}
	off = strtoull(argv[2], NULL, 0);
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	memset(&q, 0, sizeof(q));
	q.map.fm_start = off;
	q.map.fm_length = 1;
	q.map.fm_flags = FIEMAP_FLAG_SYNC;
	q.map.fm_extent_count = 1;
	if (ioctl(fd, FS_IOC_FIEMAP, &q.map) || q.map.fm_mapped_extents != 1 ||
	    q.ext[0].fe_logical > off) {
		fprintf(stderr, "file_sector: %s: byte %llu is not mapped\n", argv[1], off);
		return 1;
	}
	printf("%llu\n", (q.ext[0].fe_physical + off - q.ext[0].fe_logical) / 512);
	close(fd);
	return 0;
}
