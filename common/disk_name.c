// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* A disk's name from its number: sysfs links /sys/dev/block/MAJ:MIN to it. */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "disk_name.h"

const char *disk_name(__u32 dev, char *buf, size_t len)
{
	unsigned int maj = dev >> 20, min = dev & 0xfffff;
	char path[64], target[PATH_MAX];
	ssize_t n;
	char *slash;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", maj, min);
	n = readlink(path, target, sizeof(target) - 1);
	if (n > 0) {
		target[n] = '\0';
		slash = strrchr(target, '/');
		snprintf(buf, len, "%s", slash ? slash + 1 : target);
	} else {
		snprintf(buf, len, "%u:%u", maj, min);
	}
	return buf;
}
