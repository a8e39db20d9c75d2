#!/bin/sh
# Unit tests of common/ (no privilege needed): each tests/bin/test_* is TAP.
# vm: skip unit tests of common/ need no kernel
. "$(dirname "$0")/lib.sh"
found=0
for u in "$BIN"/test_*; do
	[ -x "$u" ] || continue
	found=1
	name=$(basename "$u")
	# renumber each program's TAP lines into this file's plan
	"$u" >"$T_TMP/u.out" 2>&1
	rc=$?
	while IFS= read -r line; do
		case "$line" in
		"ok "*) ok 0 "$name: ${line#* - }" ;;
		"not ok "*) ok 1 "$name: ${line#* - }" ;;
		"#"*) echo "$line" ;;
		esac
	done <"$T_TMP/u.out"
	is "$rc" 0 "$name: exits 0"
done
[ $found = 1 ] || skip_all "no unit tests built (run make helpers)"
done_testing
