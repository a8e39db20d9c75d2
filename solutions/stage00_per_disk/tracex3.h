/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What the BPF side and the user side of tracex3 share. */
#ifndef __TRACEX3_H
#define __TRACEX3_H

/* The per-disk histograms' key: a disk and one of its log2 slots. */
struct disk_slot {
	__u32 dev;	/* the disk's dev_t, as -d takes it (12 bits major, 20 minor) */
	__u32 slot;
};

/* The disks the per-disk map has room for, each with every slot used. */
#define MAX_DISKS 32

#endif /* __TRACEX3_H */
