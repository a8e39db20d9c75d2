/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The bio a device-mapper clone was made for (drivers/md/dm.c).
 *
 * A dm device (dm-linear, dm-crypt, LVM's volumes) sends each bio it gets
 * on to the disks below as clones: each is the clone member of a struct
 * dm_target_io, whose io names the original bio, and ends in clone_endio().
 * dm's types live in the dm_mod module's BTF: without the module loaded
 * (or a dm built in), there is no clone to find and this returns 0.
 */
#ifndef __DM_CLONE_BPF_H
#define __DM_CLONE_BPF_H

struct dm_io___dc {
	struct bio *orig_bio;
} __attribute__((preserve_access_index));

struct dm_target_io___dc {
	struct dm_io___dc *io;
	struct bio clone;
} __attribute__((preserve_access_index));

extern const void clone_endio __ksym __weak;

/* end_io: the bio's bi_end_io, read by the caller. */
static __always_inline u64 dm_origin(struct bio *bio, void *end_io)
{
	struct dm_target_io___dc *tio;

	if (!&clone_endio || end_io != &clone_endio ||
	    !bpf_core_field_exists(struct dm_target_io___dc, clone))
		return 0;
	tio = (void *)bio - bpf_core_field_offset(struct dm_target_io___dc, clone);
	return (u64)BPF_CORE_READ(tio, io, orig_bio);
}

#endif /* __DM_CLONE_BPF_H */
