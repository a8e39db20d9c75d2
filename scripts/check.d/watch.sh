#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# make watch [EX=ID]: check an exercise, then again each time a file of
# the student's copy is saved, until Ctrl-C. Needs inotifywait.
#   watch.sh CHECK [ID]
CHECK=$1
ID=$2
if ! command -v inotifywait >/dev/null 2>&1; then
	echo "make watch needs inotifywait (Debian: apt-get install inotify-tools)" >&2
	exit 2
fi
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=${CHECK_WORK:-$ROOT/work}
if [ -z "$ID" ]; then
	ID=$("$CHECK" --next)
	[ -n "$ID" ] || { echo "every exercise is done"; exit 0; }
fi
"$CHECK" --hint "$ID" >/dev/null || exit 2	# no such exercise: it said so
# inotifywait waits in the background: a signal then ends the wait at
# once (a shell runs its traps only between commands), and the trap ends
# it. "watching" is said once its watches are set up, so a save right
# after it is seen.
IPID=
SAID=$(mktemp "${TMPDIR:-/tmp}/bwb-watch.XXXXXX") || exit 1
trap '[ -n "$IPID" ] && kill "$IPID" 2>/dev/null; rm -f "$SAID"; exit 0' INT TERM HUP
while :; do
	"$CHECK" "$ID"
	inotifywait -r -e close_write -e moved_to -e delete "$WORK/$ID" >/dev/null 2>"$SAID" &
	IPID=$!
	while ! grep -q "Watches established" "$SAID" && kill -0 "$IPID" 2>/dev/null; do
		sleep 0.05
	done
	echo "watching ${WORK#"$ROOT"/}/$ID: save a file to check again, Ctrl-C to stop"
	wait "$IPID" || { rm -f "$SAID"; exit 1; }
	IPID=
done
