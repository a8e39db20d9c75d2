# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Results: each check appends one JSON line to $RESULTS (work/results.jsonl,
# kept across rebuilds and reboots; a teacher collects the files):
#   {"exercise":"03.1","step":"run","result":"fail","time":"...Z",
#    "seconds":4,"kernel":"6.18.44-fc-v595","door":"tracepoint"}
# step is the step that failed, or the last one reached (run) on a pass;
# result pass, fail, or interrupted (a signal ended the check at step).

# json_str S: S as a JSON string (quotes and backslashes escaped)
json_str() {
	printf '"%s"' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g')"
}

# result_add ID STEP pass|fail|interrupted SECONDS DOOR
result_add() {
	mkdir -p "$(dirname "$RESULTS")" || return 1
	printf '{"exercise":%s,"step":%s,"result":%s,"time":%s,"seconds":%d,"kernel":%s,"door":%s}\n' \
		"$(json_str "$1")" "$(json_str "$2")" "$(json_str "$3")" \
		"$(json_str "$(date -u +%Y-%m-%dT%H:%M:%SZ)")" "$4" \
		"$(json_str "$(uname -r)")" "$(json_str "${5:-none}")" >>"$RESULTS"
}

# result_status ID: done (passed once), not yet (tried), not tried
result_status() {
	[ -f "$RESULTS" ] || { echo "not tried"; return; }
	awk -v id="$1" '
	index($0, "{\"exercise\":\"" id "\",") == 1 { tried = 1; if ($0 ~ /"result":"pass"/) done = 1 }
	END { print done ? "done" : tried ? "not yet" : "not tried" }' "$RESULTS"
}

# result_last ID: the step of the last check of ID, or -
result_last() {
	[ -f "$RESULTS" ] || { echo -; return; }
	awk -v id="$1" '
	index($0, "{\"exercise\":\"" id "\",") == 1 { s = $0; sub(/.*"step":"/, "", s); sub(/".*/, "", s)
		r = $0; sub(/.*"result":"/, "", r); sub(/".*/, "", r); last = s " (" r ")" }
	END { print last == "" ? "-" : last }' "$RESULTS"
}

progress_table() {
	_done=0 _n=0
	printf '%-9s %-10s %-16s %s\n' exercise status "last check" title
	for _id in $(ex_ids); do
		ex_load "$_id"
		_st=$(result_status "$_id")
		[ "$_st" != "done" ] && [ -n "$(ex_unmet)" ] && _st=skipped
		[ "$_st" = "done" ] && _done=$((_done + 1))
		_n=$((_n + 1))
		printf '%-9s %-10s %-16s %s\n' "$_id" "$_st" "$(result_last "$_id")" "$TITLE"
	done
	echo "$_done of $_n done (results: ${RESULTS#"$ROOT"/})"
}

# class_cell: ID's cell in a class table, from $RESULTS: done; the step
# of its last check (STEP: failed there, STEP^C: interrupted there); -
class_cell() {
	if [ "$(result_status "$1")" = "done" ]; then
		echo "done"
		return
	fi
	result_last "$1" | sed 's/ (fail)$//; s/ (interrupted)$/^C/'
}

# class_table FILE...: one row per student (a results file, named by its
# file name without .jsonl), one column per exercise someone tried, then
# how many have done each; a key below.
class_table() {
	class_rows "$@" | sed 's/ *$//'
}

class_rows() {
	_ids=
	for _id in $(ex_ids); do
		grep -qh "^{\"exercise\":\"$_id\"," "$@" && _ids="$_ids $_id"
	done
	if [ -z "$_ids" ]; then
		echo "no exercise tried yet ($# results files)"
		return
	fi
	printf '%-12s' student
	for _id in $_ids; do
		printf ' %-9s' "$_id"
	done
	echo
	for _f in "$@"; do
		_name=${_f##*/}
		printf '%-12s' "${_name%.jsonl}"
		for _id in $_ids; do
			RESULTS=$_f
			printf ' %-9s' "$(class_cell "$_id")"
		done
		echo
	done
	printf '%-12s' "done by"
	for _id in $_ids; do
		_d=0
		for _f in "$@"; do
			RESULTS=$_f
			[ "$(result_status "$_id")" = "done" ] && _d=$((_d + 1))
		done
		printf ' %-9s' "$_d of $#"
	done
	echo
	echo "done: passed once; STEP: not yet, its last check failed at STEP;"
	echo "STEP^C: its last check was interrupted at STEP; -: not tried"
}
