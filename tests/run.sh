#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Run every test with prove; the last line is prove's "Result: PASS|FAIL".
# Any argument is passed to prove (e.g. tests/run.sh tests/stage03.t).
cd "$(dirname "$0")/.." || exit 1
[ $# -gt 0 ] || set -- tests/*.t
exec prove --exec sh "$@"
