#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# ctracer's -j: one "bio" object per tree on stdout, then a "btt" object
# per phase and the "summary" (docs/json.md). Ground truth: one 4 KiB
# O_DIRECT read at a known sector, by a process whose PID we know, in the
# tracepoint door (every kernel has it; its points give the btt phases).
. "$(dirname "$0")/lib.sh"
S=$ROOT/tools/ctracer/ctracer
need_bin "$S"
need_bin "$BIN/bio_io"
need_root
scratch_dev || skip_all "cannot make a scratch block device"
why=$(door_ok "$S" tracepoint) || skip_all "$why"

# facts FILE SECTOR: shell assignments from the objects in FILE, for the
# bio objects whose sector is SECTOR (the first of them):
#   TREES how many; SIZE, OP, ENDED; ORDER 1 if its events are in time
#   order and each at_ns is its ts_ns less first_ns; Q2C its btt phase
#   and WHOLE that phase's span, its end event's ts_ns less its
#   block_bio_queue's; QTID and QCOMM who queued it; then the summary:
#   SUMMARY how many, LAST the type of the last line, HITS, BIOS, LOST
#   (its keys, "none" for {}), and BTT_Q2C the count of the Q2C object.
facts() {
	if command -v python3 >/dev/null 2>&1; then
		python3 - "$1" "$2" <<'EOF'
import json, shlex, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
bios = [o for o in objs if o["type"] == "bio" and o["sector"] == int(sys.argv[2])]
b = bios[0] if bios else {"events": [], "btt_ns": {}}
ev = b["events"]
ts = [e["ts_ns"] for e in ev]
order = ts == sorted(ts) and bool(ev) and all(
    e["at_ns"] == e["ts_ns"] - b["first_ns"] for e in ev) and \
    ts[0] == b["first_ns"] and ts[-1] == b["last_ns"]
q = [e for e in ev if e["point"] == "block_bio_queue"]
c = [e for e in ev if e["end"]]
s = [o for o in objs if o["type"] == "summary"]
sm = s[0] if s else {"events": {}, "lost": {}}
q2c = [o for o in objs if o["type"] == "btt" and o["phase"] == "Q2C"]
print("TREES=%d SIZE=%s OP=%s ENDED=%s ORDER=%d Q2C=%s WHOLE=%s QTID=%s QCOMM=%s" % (
    len(bios), b.get("size"), b.get("op"), json.dumps(b.get("ended")), order,
    b["btt_ns"].get("Q2C"), c[0]["ts_ns"] - q[0]["ts_ns"] if q and c else None,
    q[0]["tid"] if q else None, shlex.quote(q[0]["comm"]) if q else None))
print("SUMMARY=%d LAST=%s HITS=%s BIOS=%s LOST=%s BTT_Q2C=%s" % (
    len(s), objs[-1]["type"] if objs else None, sm["events"].get("hits"),
    sm["events"].get("bios"), ",".join(sm["lost"]) or "none",
    q2c[0]["count"] if q2c else None))
EOF
	elif command -v jq >/dev/null 2>&1; then
		jq -rs --argjson sec "$2" '
		([.[] | select(.type == "bio" and .sector == $sec)]) as $bios
		| ($bios[0] // {events: [], btt_ns: {}}) as $b
		| ($b.events | map(.ts_ns)) as $ts
		| ([$b.events[] | select(.point == "block_bio_queue")][0]) as $q
		| ([$b.events[] | select(.end)][0]) as $c
		| ([.[] | select(.type == "summary")]) as $s
		| ($s[0] // {events: {}, lost: {}}) as $sm
		| ([.[] | select(.type == "btt" and .phase == "Q2C")][0]) as $q2c
		| "TREES=\($bios | length) SIZE=\($b.size) OP=\($b.op) ENDED=\($b.ended) ORDER=\(
			if ($ts | length) > 0 and $ts == ($ts | sort) and $ts[0] == $b.first_ns and
			   $ts[-1] == $b.last_ns and
			   all($b.events[]; .at_ns == .ts_ns - $b.first_ns) then 1 else 0 end
		) Q2C=\($b.btt_ns.Q2C) WHOLE=\(if $q and $c then $c.ts_ns - $q.ts_ns else null end
		) QTID=\($q.tid) QCOMM=\($q.comm | @sh)",
		  "SUMMARY=\($s | length) LAST=\(.[-1].type) HITS=\($sm.events.hits
		) BIOS=\($sm.events.bios) LOST=\($sm.lost | keys | join(",") | if . == "" then "none" else . end
		) BTT_Q2C=\($q2c.count)"' "$1"
	else
		return 1
	fi
}

SECTOR=2048
t="ctracer [tracepoint, -j]"
if start "$S" -a tracepoint -j -d "$DEV" -s $SECTOR; then
	io "/dev/$DEV" $SECTOR
	pid=$(sed -n 's/^pid //p' "$T_TMP/io.out")
	stop
	is "$TRC" 0 "$t: exits 0 on Ctrl-C"
	json_lines "$t" "$T_TMP/out"
	check "$t: objects only on stdout, no tree lines" sh -c "! grep -qv '^{' '$T_TMP/out'"
	if facts "$T_TMP/out" $SECTOR >"$T_TMP/facts" 2>"$T_TMP/facts.err"; then
		eval "$(cat "$T_TMP/facts")"
		is "$TREES" 1 "$t: one bio object at sector $SECTOR"
		is "$SIZE" 4096 "$t: its size, the read's 4096"
		is "$OP" READ "$t: its op, READ"
		is "$ENDED" true "$t: its end seen"
		check "$t: its events in time order, at_ns from first_ns" test "$ORDER" = 1
		is "$QTID $QCOMM" "$pid bio_io" "$t: block_bio_queue ran in our bio_io ($pid)"
		check "$t: a Q2C phase (${Q2C:-none} ns), its end less its queue (${WHOLE:-none} ns)" \
			test "${Q2C:-0}" -gt 0 -a "${Q2C:-0}" = "${WHOLE:-none}"
		is "$SUMMARY $LAST" "1 summary" "$t: one summary object, the last line"
		is "$BIOS" 1 "$t: the summary counts one bio"
		check "$t: ... and its events (hits ${HITS:-none})" test "${HITS:-0}" -ge 3
		is "$LOST" none "$t: nothing lost (\"lost\":{})"
		is "$BTT_Q2C" 1 "$t: a btt object for Q2C, of one bio"
	else
		skip "$t: the objects' contents" "needs python3 or jq to read them"
		[ -s "$T_TMP/facts.err" ] && tail -n 3 "$T_TMP/facts.err" | sed 's/^/#   /'
	fi
else
	ok 1 "$t: starts"
fi

# -j -q: no bio is sent, so only the summary, without a bios count
t="ctracer [tracepoint, -j -q]"
if start "$S" -a tracepoint -j -q -d "$DEV"; then
	io "/dev/$DEV" $SECTOR
	stop
	is "$TRC" 0 "$t: exits 0 on Ctrl-C"
	json_lines "$t" "$T_TMP/out"
	is "$(grep -c . "$T_TMP/out")" 1 "$t: one line"
	check "$t: the summary, its hits counted, no bios count" awk "$JF_AWK"'
		/^\{"type":"summary","events":\{"hits":[0-9]+\}/ && jf("hits") >= 3 { n++ }
		END { exit n != 1 }' "$T_TMP/out"
else
	ok 1 "$t: starts"
fi
done_testing
