# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# ex_copy DIR [AS]: the starting point of the loaded exercise (ex_load) in
# DIR, a new folder. A stage exercise: the stage's sources (a page's
# .css and .js too: tools/ctracer's), the files of ALSO beside them (a folder's own C files link before libcommon.a),
# and a Makefile that includes common.mk from DIR. A verifier corner
# program: DIR/vload.bpf.c and a Makefile for the shared loader. The
# student's work/ID and a teacher's answer (scripts/solution) start here.
# AS: the Makefile's paths as from that folder (scripts/solution diff
# compares a worked copy elsewhere with a fresh one).
ex_copy() {
	mkdir -p "$1" || return 1
	_as=${2:-$1}
	_mk=$(realpath -m --relative-to="$_as" "$ROOT/common/common.mk")
	if [ -n "$SOURCE" ]; then
		cp "$ROOT/$SOURCE" "$1/vload.bpf.c" || return 1
		printf '%s\n' "# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause" \
			"APP := vload" \
			"vpath vload.c $(realpath -m --relative-to="$_as" "$ROOT/exercises/verifier")" \
			"include $_mk" >"$1/Makefile"
		return
	fi
	cp "$ROOT/$STAGE"/*.c "$ROOT/$STAGE"/*.h "$ROOT/$STAGE"/*.css "$ROOT/$STAGE"/*.js \
		"$1"/ 2>/dev/null
	[ -f "$1/$APP.bpf.c" ] || return 1
	for _f in $ALSO; do
		cp "$ROOT/$_f" "$1"/ || return 1
	done
	sed "s|include .*common/common\.mk|include $_mk|" \
		"$ROOT/$STAGE/Makefile" >"$1/Makefile"
}
