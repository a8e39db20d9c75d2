/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Which bios of a request a completion ends. blk_update_request(rq,
 * error, nr_bytes) ends the bios at the head of rq->bio that nr_bytes
 * covers whole and advances the first one it does not; that one, and
 * every bio behind it, ends in a later call. Walking rq->bio in order,
 * bio_covered(size, &left) says whether this bio ends (left starts at
 * nr_bytes and goes down by each bio ended). Once one is only partly
 * done, left becomes -1 and no bio after it ends, however small: 12 KiB
 * over bios of 8, 8 and 4 KiB ends the first only.
 * Plain C, for BPF programs (bio_end.bpf.h, stage 10) and the unit test
 * (tests/unit/test_bio_covered.c); the includer provides __u32, __s64
 * and bool.
 */
#ifndef __BIO_COVERED_H
#define __BIO_COVERED_H

static inline bool bio_covered(__u32 size, __s64 *left)
{
	if (*left < size) {
		*left = -1;
		return false;
	}
	*left -= size;
	return true;
}

#endif /* __BIO_COVERED_H */
