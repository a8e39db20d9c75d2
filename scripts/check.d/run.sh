# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The load, attach and run steps: start the built program on the check's
# loop device ($DEV), issue I/O, stop it, compare what it printed with
# what the I/O was. An exercise's run.sh defines ex_run with these.

# start_prog ARGS...: start $PROG (a stage's with -v and -a $DOOR, or the
# exercise's own EX_DOOR, so libbpf shows the verifier log) and wait until
# it traces (its "Hit Ctrl-C" line) or ends. Says the load and attach
# steps; 1 if one failed.
start_prog() {
	_again=	# a second start in one run step: its steps said once
	[ "$STEP" = run ] && _again=1
	STEP=load
	[ "$APP" = vload ] || set -- -v -a "${EX_DOOR:-$DOOR}" "$@"
	: >"$T_TMP/out"
	: >"$T_TMP/err"
	"$PROG" "$@" >"$T_TMP/out" 2>"$T_TMP/err" &
	TPID=$!
	wait_for 120 start_seen	# the bound is for a hang; it returns at once
	cp "$T_TMP/err" "$B/load.log"
	if grep -q "Hit Ctrl-C" "$T_TMP/err"; then
		STEP=run
		RUN_DOOR=$(door_of "$T_TMP/err")
		[ -n "$_again" ] && return 0
		say load ok
		say attach "ok, ${RUN_DOOR:-?} door:"
		grep -E '^[a-z_0-9]+: [a-z]+ door, ' "$T_TMP/err" | sed 's/^/            /'
		return 0
	fi
	stop_prog_quiet
	_log=${B#"$ROOT"/}/load.log
	if grep -q 'BEGIN PROG LOAD LOG\|cannot load BPF object\|failed to load' "$T_TMP/err"; then
		verifier_log "$T_TMP/err" >"$B/verifier.log"
		if [ ! -s "$B/verifier.log" ]; then
			say load "FAIL: the BPF object did not load; it said ($_log):"
			grep -v '^libbpf: ' "$T_TMP/err" | tail -n 5 | sed 's/^/            /'
			return 1
		fi
		say load "FAIL: the verifier refused the program. The log's last lines ($_log):"
		grep -v '^processed [0-9]* insns' "$B/verifier.log" | tail -n 6 | sed 's/^/            /'
		explain "$B/verifier.log"	# its words only, not libbpf's
		return 1
	fi
	# a door missing, or a program the loader knows no door of
	if grep -q 'door on this kernel\|cannot attach\|serves no probe point' "$T_TMP/err"; then
		say load ok
		STEP=attach
		say attach "FAIL ($_log):"
		grep 'door on this kernel\|cannot attach\|serves no probe point\| door, ' "$T_TMP/err" |
			sed 's/^/            /'
		return 1
	fi
	STEP=run
	say run "FAIL: the program stopped before tracing (exit $TRC); it said ($_log):"
	grep -v '^libbpf: ' "$T_TMP/err" | tail -n 5 | sed 's/^/            /'
	return 1
}

# door_of FILE: the doors the door lines name ("tracepoint", "fentry+kprobe")
door_of() {
	sed -n 's/^[a-z_0-9]*: \([a-z]*\) door, .*/\1/p' "$1" | sort -u | paste -sd+ -
}

# verifier_log FILE: the verifier's log in FILE (libbpf prints it between
# BEGIN and END lines), the last program's
verifier_log() {
	awk '/-- BEGIN PROG LOAD LOG --/ { n = 0; on = 1; next }
		/-- END PROG LOAD LOG --/ { on = 0 }
		on { l[++n] = $0 }
		END { for (i = 1; i <= n; i++) print l[i] }' "$1"
}

# stop_prog: Ctrl-C the program; it detaches and prints its summary. Its
# exit status in TRC; the run step fails unless it is 0.
stop_prog() {
	stop_prog_quiet
	cp "$T_TMP/out" "$B/run.out"
	cp "$T_TMP/err" "$B/run.err"
	[ "$TRC" -eq 0 ] && return 0
	say run "FAIL: the program exited $TRC on Ctrl-C, want 0 (${B#"$ROOT"/}/run.err)"
	tail -n 5 "$T_TMP/err" | sed 's/^/            /'
	return 1
}

stop_prog_quiet() {
	TRC=
	[ -n "$TPID" ] || return 0
	kill -INT "$TPID" 2>/dev/null
	wait "$TPID"
	TRC=$?
	TPID=
}

# want_eq GOT WANT WHAT HINT: 0 if GOT is WANT, else the run step fails
# saying what was counted, want against got, and what to look at.
want_eq() {
	if [ "$1" = "$2" ]; then
		return 0
	fi
	say run "FAIL: $3"
	printf '            want %s, got %s: %s\n' "$(quoted "$2")" "$(quoted "$1")" "$4"
	echo "            its output (${B#"$ROOT"/}/run.out), first lines:"
	head -n 5 "$B/run.out" | sed 's/^/            | /'
	return 1
}

quoted() {	# a number as it is, anything else in quotes
	case "$1" in
	'' | *[!0-9]*) printf "'%s'" "$1" ;;
	*) printf '%s' "$1" ;;
	esac
}

# io_or_fail ARGS...: the checker's own I/O (lib.sh's io; in cgroup IO_CG
# if set); its failure fails the run step, not the student. With
# CHECK_GATE set it waits for that file first (bio_io -g): tests/check.t
# interrupts a check there.
io_or_fail() {
	[ -n "$CHECK_GATE" ] && set -- -g "$CHECK_GATE" "$@"
	if [ -n "$IO_CG" ]; then
		io_in "$IO_CG" "$@" && return 0
	else
		io "$@" && return 0
	fi
	say run "FAIL: the checker's own I/O failed: $(cat "$T_TMP/io.err")"
	return 1
}

# ex_run_vload: the run of every verifier corner program: 4 reads of the
# loop device, counted (or, WANT=records, sent) once each.
ex_run_vload() {
	start_prog -d "$DEV" || return 1
	io_or_fail "/dev/$DEV" 0 8 16 24 || return 1
	stop_prog || return 1
	want_eq "$(awk -v k="$WANT" '$1 == k { print $2 }' "$B/run.out")" 4 \
		"'$WANT' at the end (4 reads of 4 KiB at sectors 0, 8, 16, 24)" \
		"it loads now: does every bio of the disk still reach the count?" || return 1
	say run "ok: $WANT 4 for 4 reads"
}

# fs_files PAGES...: a file of PAGES of the kernel's pages each (4 KiB,
# 16 KiB on arm64-16k: lib.sh's page_kb), $CHECK_MNT/fPAGES
fs_files() {
	_kb=$(page_kb) || {
		say run "FAIL: the checker cannot tell the kernel's page size (pc_reader -m)"
		return 1
	}
	for _p in "$@"; do
		dd if=/dev/urandom of="$CHECK_MNT/f$_p" bs=$((_kb * 1024)) count="$_p" 2>/dev/null &&
			continue
		say run "FAIL: the checker cannot write $CHECK_MNT/f$_p"
		return 1
	done
}

# read_file [-t] FILE: pc_reader reads FILE to its end (-t: from a thread
# of its own), a process of its own whose PID is added to PIDS. With
# READ_CG set, it does so in that cgroup.
read_file() {
	if [ -n "$READ_CG" ]; then
		sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh \
			"$READ_CG" "$BIN/pc_reader" "$@" >/dev/null 2>"$T_TMP/pc.err" &
	else
		"$BIN/pc_reader" "$@" >/dev/null 2>"$T_TMP/pc.err" &
	fi
	CHECK_READER=$!
	PIDS="$PIDS $!"
	wait $CHECK_READER && { CHECK_READER=; return 0; }
	CHECK_READER=
	say run "FAIL: the checker's own reader failed: $(cat "$T_TMP/pc.err")"
	return 1
}

# stop_after_rq_done N: stage 11's run ends once N rq_done lines are out
# (each sample's request ends before the fsync() that waited returns;
# its line may still be on its way), then stop_prog
stop_after_rq_done() {
	wait_for 60 sh -c "test \$(grep -c '^#[0-9].* rq_done ' '$T_TMP/out') -ge $1"
	stop_prog
}
