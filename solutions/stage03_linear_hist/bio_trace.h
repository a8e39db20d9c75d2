/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The histogram's shape, shared by the BPF side and the user side. */
#ifndef __BIO_TRACE_H
#define __BIO_TRACE_H

#define HIST_STEP_MS	1	/* bucket width */
#define HIST_SLOTS	101	/* 0 … 99 ms, then one slot for 100 ms and more */

#endif /* __BIO_TRACE_H */
