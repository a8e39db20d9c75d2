// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * dm_linear: a device-mapper linear device over a whole disk, with the
 * kernel's ioctls (what dmsetup does), so a test needs no dmsetup.
 *
 *   dm_linear create NAME DISK   prints the new device's name (dm-N)
 *   dm_linear remove NAME
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <linux/dm-ioctl.h>
#include <linux/fs.h>

struct dm_req {
	struct dm_ioctl io;
	struct dm_target_spec spec;
	char params[64];
};

static int dm(int ctl, unsigned long cmd, struct dm_req *r, const char *name)
{
	r->io.version[0] = DM_VERSION_MAJOR;
	r->io.data_size = sizeof(*r);
	r->io.data_start = sizeof(r->io);
	snprintf(r->io.name, sizeof(r->io.name), "%s", name);
	return ioctl(ctl, cmd, r);
}

int main(int argc, char **argv)
{
	struct dm_req r;
	unsigned long long bytes;
	struct stat st;
	int ctl, fd;

	if (argc < 3 || ((strcmp(argv[1], "create") || argc != 4) &&
			 (strcmp(argv[1], "remove") || argc != 3))) {
		fprintf(stderr, "usage: dm_linear create NAME DISK | remove NAME\n");
		return 2;
	}
	ctl = open("/dev/mapper/control", O_RDWR);
	if (ctl < 0) {
		perror("dm_linear: /dev/mapper/control");
		return 1;
	}
	memset(&r, 0, sizeof(r));
	if (!strcmp(argv[1], "remove")) {
		if (dm(ctl, DM_DEV_REMOVE, &r, argv[2])) {
			perror("dm_linear: DM_DEV_REMOVE");
			return 1;
		}
		return 0;
	}
	fd = open(argv[3], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) || !S_ISBLK(st.st_mode) || ioctl(fd, BLKGETSIZE64, &bytes)) {
		fprintf(stderr, "dm_linear: %s: not a block device\n", argv[3]);
		return 1;
	}
	close(fd);
	if (dm(ctl, DM_DEV_CREATE, &r, argv[2])) {
		perror("dm_linear: DM_DEV_CREATE");
		return 1;
	}
	/* one target: all of the disk, from its sector 0 */
	memset(&r, 0, sizeof(r));
	r.io.target_count = 1;
	r.spec.length = bytes >> 9;
	snprintf(r.spec.target_type, sizeof(r.spec.target_type), "linear");
	snprintf(r.params, sizeof(r.params), "%u:%u 0", major(st.st_rdev), minor(st.st_rdev));
	if (dm(ctl, DM_TABLE_LOAD, &r, argv[2])) {
		perror("dm_linear: DM_TABLE_LOAD");
		goto undo;
	}
	memset(&r, 0, sizeof(r));	/* no DM_SUSPEND_FLAG: resume, the table goes live */
	if (dm(ctl, DM_DEV_SUSPEND, &r, argv[2])) {
		perror("dm_linear: DM_DEV_SUSPEND");
		goto undo;
	}
	printf("dm-%u\n", minor(r.io.dev));
	return 0;
undo:
	memset(&r, 0, sizeof(r));
	dm(ctl, DM_DEV_REMOVE, &r, argv[2]);
	return 1;
}
