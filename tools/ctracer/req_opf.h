/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A bio's bi_opf as words, "READ SYNC|IDLE": the operation (REQ_OP_*,
 * the low 8 bits) and its flags (REQ_*, the bits above). Their numbers
 * moved between kernels, so the names come from this kernel's BTF.
 */
#ifndef __REQ_OPF_H
#define __REQ_OPF_H

#include <stddef.h>
#include <bpf/btf.h>

struct req_names {
	const char *op[256];	/* "READ" for REQ_OP_READ; NULL: unknown */
	const char *flag[32];	/* "SYNC" for bit __REQ_SYNC */
};

/* From enum req_op and enum req_flag_bits; the names live as long as btf. */
void req_names_read(struct req_names *rn, const struct btf *btf);
/* opf as "READ SYNC|IDLE" in buf ("OP?", "?" for what BTF did not name). */
const char *req_opf_str(const struct req_names *rn, __u32 opf, char *buf, size_t len);

#endif /* __REQ_OPF_H */
