/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* A disk's name from its number, as the BPF side reads it from a gendisk. */
#ifndef __DISK_NAME_H
#define __DISK_NAME_H

#include <stddef.h>
#include <linux/types.h>

/* "loop0" for the kernel's MAJOR << 20 | MINOR; "259:3" if sysfs has no name. */
const char *disk_name(__u32 dev, char *buf, size_t len);

#endif /* __DISK_NAME_H */
