# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Results: each check appends one JSON line to $RESULTS (work/results.jsonl,
# kept across rebuilds and reboots; a teacher collects the files):
#   {"exercise":"03.1","step":"run","result":"fail","time":"...Z",
#    "seconds":4,"kernel":"6.18.0","door":"tracepoint"}
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
		[ "$_st" != "done" ] && [ -n "$NEEDS" ] && [ -n "$(ex_unmet)" ] && _st=skipped
		[ "$_st" = "done" ] && _done=$((_done + 1))
		_n=$((_n + 1))
		printf '%-9s %-10s %-16s %s\n' "$_id" "$_st" "$(result_last "$_id")" "$TITLE"
	done
	echo "$_done of $_n done (results: ${RESULTS#"$ROOT"/})"
}
