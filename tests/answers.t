#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The teachers' answers as patches (solutions/ID.patch, scripts/solution):
# each applies to a fresh starting point of its exercise, with patch and
# with git apply; remade from its worked copy it is the same patch, byte
# for byte; a patch that no longer applies fails, naming the exercise
# and the hunk. Their builds and runs: tests/check.t, tests/solutions.t.
# vm: skip the patches are applied on the host; the VM runs the answers built
. "$(dirname "$0")/lib.sh"
S=$ROOT/scripts/solution
# the classroom VM has the patches, not the tools that apply them
[ -f "$S" ] && command -v patch >/dev/null 2>&1 ||
	skip_all "needs scripts/solution and patch (the host's; the VM runs the answers built)"

n=0
for p in "$ROOT"/solutions/*.patch; do
	id=${p##*/}
	id=${id%.patch}
	n=$((n + 1))
	# the worked copy deeper than the script's fresh one: the Makefile's
	# relative include must not show up as a change
	"$S" into "$id" "$T_TMP/w/x/$id" >"$T_TMP/out" 2>&1
	rc=$?
	is "$rc" 0 "answer $id: solutions/$id.patch applies to a fresh starting point"
	[ "$rc" -eq 0 ] || { sed 's/^/#   /' "$T_TMP/out"; continue; }
	"$S" diff "$id" "$T_TMP/w/x/$id" >"$T_TMP/again.patch"
	check "answer $id: remade from its worked copy, the same patch" cmp -s "$p" "$T_TMP/again.patch"
	# git apply takes it too, on a starting point of its own (outside
	# any repository: git would take the paths from the top of one)
	if command -v git >/dev/null 2>&1; then
		rm -rf "${T_TMP:?}/$id"
		(
			# shellcheck disable=SC1091
			. "$ROOT/scripts/check.d/registry.sh"
			. "$ROOT/scripts/check.d/copy.sh"
			ex_load "$id"
			ex_copy "$T_TMP/$id" &&
				cd "$T_TMP/$id" && GIT_CEILING_DIRECTORIES=$T_TMP git apply --check "$p"
		) >"$T_TMP/out" 2>&1
		rc=$?
		is "$rc" 0 "answer $id: git apply takes it"
		[ "$rc" -eq 0 ] || sed 's/^/#   /' "$T_TMP/out"
	fi
done
check "there are answers ($n)" test "$n" -ge 20
is "$("$ROOT/scripts/check" --list | wc -l)" "$n" "every exercise has its answer"

# --- a stage changed under a patch: a copy of the checker's files with
# one line of stage 03 changed where 03.1's answer edits it
F=$T_TMP/fake
mkdir -p "$F/scripts" "$F/tests" "$F/exercises" "$F/solutions" "$F/common"
cp -R "$ROOT/scripts/solution" "$ROOT/scripts/check.d" "$F/scripts/"
cp "$ROOT/tests/lib.sh" "$F/tests/"
cp -R "$ROOT/exercises/03.1" "$F/exercises/"
cp "$ROOT/solutions/03.1.patch" "$F/solutions/"
cp -R "$ROOT/stage03_latency_map" "$F/"
hunk=$(sed -n 's/^@@ -\([0-9]*\),.*/\1/p' "$F/solutions/03.1.patch" | head -n 1)
file=$(sed -n 's|^--- a/||p' "$F/solutions/03.1.patch" | head -n 1)
line=$((hunk + 3))
sed -i "${line}s/.*/& \/* changed *\//" "$F/stage03_latency_map/$file"
"$F/scripts/solution" into 03.1 "$T_TMP/stale" >"$T_TMP/out" 2>&1
is "$?" 1 "a patch that no longer applies: exit 1"
check "it names the exercise and the stage" grep -q '^solution 03\.1: solutions/03\.1\.patch does not apply to stage03_latency_map:' "$T_TMP/out"
check "it names the hunk" grep -q "Hunk #1 FAILED" "$T_TMP/out"
check "nothing is left half done" test ! -e "$T_TMP/stale"
grep -v '^solution 03' "$T_TMP/out" | sed 's/^/#   /'

# --- usage
"$S" >/dev/null 2>"$T_TMP/err"
is "$? $(wc -l <"$T_TMP/err")" "2 1" "no command: one line, exit 2"
"$S" into 99.9 "$T_TMP/x" >/dev/null 2>"$T_TMP/err"
is "$? $(cat "$T_TMP/err")" "2 solution: no answer for '99.9' (solutions/*.patch)" "an exercise with no answer: one line, exit 2"
mkdir -p "$T_TMP/taken"
"$S" into 03.1 "$T_TMP/taken" >/dev/null 2>"$T_TMP/err"
is "$?" 1 "into a folder that exists: exit 1, the student's copy is kept"
done_testing
