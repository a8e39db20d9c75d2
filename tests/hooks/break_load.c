// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Test hook for tests/cli.t, not a feature, linked only into a test
 * build (TEST_HOOKS=1: tests/bin/bio_trace_hooked, tests/helpers):
 * BWB_TEST_BREAK_LOAD lists doors ("fentry tp_btf") whose programs the
 * kernel is to refuse at load, as a verifier would: an unknown program
 * flag gets EINVAL. It lets the tests take -a auto's fallback on a
 * kernel where every door loads.
 */
#ifndef BWB_TEST_HOOKS
#error "a test hook: built only into a test build (make TEST_HOOKS=1)"
#endif
#include <stdlib.h>
#include <string.h>
#include "doors.h"

void doors_test_hook(struct bpf_program *prog, const char *door)
{
	const char *doors = getenv("BWB_TEST_BREAK_LOAD");

	if (doors && strstr(doors, door))
		bpf_program__set_flags(prog, bpf_program__flags(prog) | 1U << 31);
}
