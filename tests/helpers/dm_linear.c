// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * dm_linear: a device-mapper linear device over a whole disk, with the
 * kernel's ioctls (what dmsetup does), so a test needs no dmsetup; or an
 * error device (the error target, built into dm_mod), whose every I/O
 * fails with EIO: a bio-based disk that fails bios, not requests.
 *
 *   dm_linear create NAME DISK           prints the new device's name (dm-N)
 *   dm_linear create NAME DISK error     an error device of DISK's size
 *   dm_linear create NAME SECTORS error  one of SECTORS 512-byte sectors
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

/* disk_size: DISK's size in bytes, its device number in *rdev; 1 if not a disk */
static int disk_size(const char *disk, unsigned long long *bytes, dev_t *rdev)
{
	struct stat st;
	int fd, bad;

	fd = open(disk, O_RDONLY);
	if (fd < 0)
		return 1;
	bad = fstat(fd, &st) || !S_ISBLK(st.st_mode) || ioctl(fd, BLKGETSIZE64, bytes);
	close(fd);
	if (!bad)
		*rdev = st.st_rdev;
	return bad;
}

int main(int argc, char **argv)
{
	struct dm_req r;
	unsigned long long bytes, n;
	dev_t rdev = 0;
	char *end;
	int ctl, error;

	error = argc == 5 && !strcmp(argv[4], "error");
	if (argc < 3 || ((strcmp(argv[1], "create") || (argc != 4 && !error)) &&
			 (strcmp(argv[1], "remove") || argc != 3))) {
		fprintf(stderr, "usage: dm_linear create NAME DISK [error] | create NAME SECTORS error | remove NAME\n");
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
	/* an error device's size may be a number of sectors */
	n = strtoull(argv[3], &end, 10);
	if (error && argv[3][0] >= '0' && argv[3][0] <= '9' && !*end) {
		bytes = n << 9;
	} else if (disk_size(argv[3], &bytes, &rdev)) {
		fprintf(stderr, "dm_linear: %s: not a block device\n", argv[3]);
		return 1;
	}
	if (bytes >> 9 == 0) {
		fprintf(stderr, "dm_linear: %s: no sectors\n", argv[3]);
		return 1;
	}
	if (dm(ctl, DM_DEV_CREATE, &r, argv[2])) {
		perror("dm_linear: DM_DEV_CREATE");
		return 1;
	}
	/* one target: all of the disk, from its sector 0; or all errors */
	memset(&r, 0, sizeof(r));
	r.io.target_count = 1;
	r.spec.length = bytes >> 9;
	if (error) {
		snprintf(r.spec.target_type, sizeof(r.spec.target_type), "error");
	} else {
		snprintf(r.spec.target_type, sizeof(r.spec.target_type), "linear");
		snprintf(r.params, sizeof(r.params), "%u:%u 0", major(rdev), minor(rdev));
	}
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
