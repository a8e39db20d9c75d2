// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * dm_linear: a device-mapper linear device over a whole disk, with the
 * kernel's ioctls (what dmsetup does), so a test needs no dmsetup; or an
 * error device (the error target, built into dm_mod), whose every I/O
 * fails with EIO: a bio-based disk that fails bios, not requests; or a
 * flakey one over the disk (dm-flakey, a module: modprobe dm_flakey),
 * up for UP seconds then down for DOWN, in turn, from its creation. Down,
 * with no FEATURE, it fails every bio; FEATUREs say otherwise
 * (Documentation/admin-guide/device-mapper/dm-flakey.rst). UP 0 is down
 * for good: "0 1 error_writes" fails every write with EIO and passes
 * every read to DISK.
 *
 *   dm_linear create NAME DISK           prints the new device's name (dm-N)
 *   dm_linear create NAME DISK error     an error device of DISK's size
 *   dm_linear create NAME SECTORS error  one of SECTORS 512-byte sectors
 *   dm_linear create NAME DISK flakey UP DOWN [FEATURE...]
 *   dm_linear remove NAME
 *   dm_linear targets                    the target types this kernel has
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
	char params[256];
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

/* targets: the target types the kernel has registered (dmsetup targets) */
static int targets(int ctl)
{
	static union {
		struct dm_ioctl io;
		char buf[16384];
	} u;
	struct dm_target_versions *v;
	unsigned int at;

	u.io.version[0] = DM_VERSION_MAJOR;
	u.io.data_size = sizeof(u);
	u.io.data_start = sizeof(u.io);
	if (ioctl(ctl, DM_LIST_VERSIONS, &u)) {
		perror("dm_linear: DM_LIST_VERSIONS");
		return 1;
	}
	if (u.io.flags & DM_BUFFER_FULL_FLAG) {
		fprintf(stderr, "dm_linear: more targets than %zu bytes hold\n", sizeof(u));
		return 1;
	}
	/* a chain of records, each one's next the offset of the one after */
	for (at = u.io.data_start; at < u.io.data_size; at += v->next) {
		v = (struct dm_target_versions *)(u.buf + at);
		printf("%s\n", v->name);
		if (!v->next)
			break;
	}
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: dm_linear create NAME DISK [error | flakey UP DOWN [FEATURE...]]\n"
		"       dm_linear create NAME SECTORS error | remove NAME | targets\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	struct dm_req r, c;
	unsigned long long bytes, n;
	dev_t rdev = 0;
	char *end;
	int ctl, error, flakey, len;

	error = argc == 5 && !strcmp(argv[4], "error");
	flakey = argc >= 7 && !strcmp(argv[4], "flakey");
	if (!strcmp(cmd, "targets") ? argc != 2 :
	    !strcmp(cmd, "remove") ? argc != 3 :
	    strcmp(cmd, "create") || (argc != 4 && !error && !flakey))
		return usage();
	ctl = open("/dev/mapper/control", O_RDWR);
	if (ctl < 0) {
		perror("dm_linear: /dev/mapper/control");
		return 1;
	}
	if (!strcmp(cmd, "targets"))
		return targets(ctl);
	memset(&r, 0, sizeof(r));
	if (!strcmp(cmd, "remove")) {
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
	/* one target, all of the device: its table, made before the device */
	memset(&r, 0, sizeof(r));
	r.io.target_count = 1;
	r.spec.length = bytes >> 9;
	if (error) {
		snprintf(r.spec.target_type, sizeof(r.spec.target_type), "error");
	} else if (flakey) {
		/* DISK from its sector 0, UP DOWN, then N and the N feature words */
		snprintf(r.spec.target_type, sizeof(r.spec.target_type), "flakey");
		len = snprintf(r.params, sizeof(r.params), "%u:%u 0 %s %s",
			       major(rdev), minor(rdev), argv[5], argv[6]);
		if (argc > 7 && len < (int)sizeof(r.params))
			len += snprintf(r.params + len, sizeof(r.params) - len, " %d", argc - 7);
		for (int i = 7; i < argc && len < (int)sizeof(r.params); i++)
			len += snprintf(r.params + len, sizeof(r.params) - len, " %s", argv[i]);
		if (len >= (int)sizeof(r.params)) {
			fprintf(stderr, "dm_linear: a flakey table longer than %zu bytes\n",
				sizeof(r.params) - 1);
			return 2;
		}
	} else {
		snprintf(r.spec.target_type, sizeof(r.spec.target_type), "linear");
		snprintf(r.params, sizeof(r.params), "%u:%u 0", major(rdev), minor(rdev));
	}
	/* the device, then its table: loaded, and live once resumed */
	memset(&c, 0, sizeof(c));
	if (dm(ctl, DM_DEV_CREATE, &c, argv[2])) {
		perror("dm_linear: DM_DEV_CREATE");
		return 1;
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
