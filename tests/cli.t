#!/bin/sh
# What every stage shares: options, usage errors, preflight, --duration.
. "$(dirname "$0")/lib.sh"

for s in "$ROOT"/stage*/bio_trace "$ROOT"/stage*/pagecache_trace "$ROOT"/stage*/tracex3; do
	[ -x "$s" ] || continue
	name=$(basename "$(dirname "$s")")
	"$s" --bogus >/dev/null 2>"$T_TMP/err"
	is "$?" 2 "$name: unknown option exits 2"
	check "$name: unknown option: one line, then a --help hint" \
		grep -q "Try .*--help" "$T_TMP/err"
	"$s" -a sideways >/dev/null 2>"$T_TMP/err"
	is "$?" 2 "$name: unknown door exits 2"
	check "$name: unknown door is named" grep -q "unknown door 'sideways'" "$T_TMP/err"
	"$s" --duration abc >/dev/null 2>"$T_TMP/err"
	is "$?" 2 "$name: --duration abc exits 2"
	"$s" --duration 0 >/dev/null 2>"$T_TMP/err"
	is "$?" 2 "$name: --duration 0 exits 2"
	"$s" -d no_such_disk >/dev/null 2>"$T_TMP/err"
	is "$?" 2 "$name: unknown disk exits 2"
	check "$name: unknown disk is named" grep -q "no such disk 'no_such_disk'" "$T_TMP/err"
	"$s" -d >/dev/null 2>"$T_TMP/err"
	is "$?" 2 "$name: -d without a disk exits 2"
	"$s" -h >"$T_TMP/out" 2>&1
	is "$?" 0 "$name: -h exits 0"
	check "$name: -h shows usage" grep -q "^Usage:" "$T_TMP/out"
	if [ "$(id -u)" -eq 0 ] && as_nobody true; then
		as_nobody "$s" --duration 1 \
			>/dev/null 2>"$T_TMP/err"
		is "$?" 1 "$name: not root exits 1"
		check "$name: not root says so" grep -q "must be run as root" "$T_TMP/err"
	else
		skip "$name: not root" "needs root and setpriv to drop it"
	fi
done

[ "$(id -u)" -eq 0 ] || { done_testing; }
need_root
S=$ROOT/stage03_latency_map/bio_trace
if [ -x "$S" ]; then
	# --duration: stops by itself on time and prints the summary
	t0=$(date +%s)
	"$S" -q --duration 2 >"$T_TMP/out" 2>"$T_TMP/err"
	rc=$?
	t1=$(date +%s)
	is "$rc" 0 "--duration 2 exits 0"
	check "--duration 2 takes 2 to 4 s ($((t1 - t0)) s)" test $((t1 - t0)) -ge 2 -a $((t1 - t0)) -le 4
	check "--duration prints the summary" grep -q "^Events: submit_bio" "$T_TMP/out"
	# a forced door this kernel lacks: one clear line, exit 1
	for door in kprobe fentry; do
		if "$S" -a $door -q --duration 0.1 >/dev/null 2>"$T_TMP/err"; then
			skip "-a $door refused" "this kernel has $door"
		else
			is "$?" 1 "-a $door on a kernel without it exits 1"
			check "-a $door: says why in one line" \
				grep -q "^submit_bio: no $door door on this kernel ($door: " "$T_TMP/err"
			diag "$(cat "$T_TMP/err")"
		fi
	done
	# -d takes a name or a /dev path
	disk=$(ls /sys/block | head -n 1)
	check "-d /dev/$disk is accepted" sh -c "'$S' -q --duration 0.1 -d /dev/$disk >/dev/null 2>&1"
fi
done_testing
