# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Sourced by the tests that type into the classroom VM's shell as a
# student would (tests/vm_power.t, tests/vm_lab.t): run.sh on a
# pseudo-terminal (script(1), fed from a FIFO), what it shows, how to wait
# for a line of it and how it ends. Needs lib.sh (T_TMP) and RUN (the
# run.sh to start) and LIMIT (seconds).

now() {
	date +%s
}

# boot ARG...: $RUN ARG... on a pty; its input is fd 3 (the FIFO, opened
# read-write so neither side waits), its output $CON. (ARGs without ')
# The pty has TERM_SIZE ("ROWS COLS", 24 80 unless set) as a terminal
# window has a size (run.sh passes it to the guest); TERM_SIZE= leaves it
# 0 0, a terminal that says none.
CON=$T_TMP/con
TERM_SIZE=${TERM_SIZE-24 80}
boot() {
	rm -f "$T_TMP/in" "$CON"
	mkfifo "$T_TMP/in" || return 1
	exec 3<>"$T_TMP/in"
	_cmd="'$RUN'"
	for _a; do
		_cmd="$_cmd '$_a'"
	done
	[ -z "$TERM_SIZE" ] || _cmd="stty rows ${TERM_SIZE% *} cols ${TERM_SIZE#* } && exec $_cmd"
	# TMPDIR: run.sh's file for the guest's word, gone with T_TMP even
	# if stop_vm has to kill run.sh
	TMPDIR=$T_TMP script -qfec "$_cmd" /dev/null \
		<"$T_TMP/in" >"$CON" 2>&1 &
	SPID=$!
	T0=$(now)
}

# asked: how many times this boot's guest has asked the terminal where
# its cursor is (ESC[6n: resize, busybox's line editing)
asked() {
	grep -ao "$(printf '\033')\[6n" "$CON" 2>/dev/null | wc -l
}

# answer_size N ROWS COLS [SECONDS]: once the guest has asked more than N
# times (resize sends the cursor to the far corner, then asks), the
# answer of a terminal of ROWS x COLS, as the terminal types it:
# ESC[ROWS;COLSR. 1 if it did not ask within SECONDS (60) or QEMU ended.
answer_size() {
	_end=$(($(now) + ${4:-60}))
	until [ "$(asked)" -gt "$1" ]; do
		[ "$(now)" -le $_end ] && kill -0 "$SPID" 2>/dev/null || return 1
		sleep 0.1
	done
	printf '\033[%s;%sR' "$2" "$3" >&3
}

# type TEXT: as typed at the terminal, then Enter
type_line() {
	printf '%s\r' "$1" >&3
}

# text: what the terminal showed, without carriage returns and escapes
text() {
	tr -d '\r' <"$CON" | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g'
}

# this_boot: the text since run.sh last said "booting"
this_boot() {
	text | awk '/^vm: booting/ { b = "" } { b = b $0 "\n" } END { printf "%s", b }'
}

# boots: how many times run.sh has said "booting"
boots() {
	text | grep -c '^vm: booting'
}

# wait_for ERE [SECONDS]: until a line of this boot matches (0), QEMU
# ends or the time is up (1).
wait_for() {
	_end=$(($(now) + ${2:-$LIMIT}))
	while [ "$(now)" -le $_end ]; do
		this_boot | grep -Eq -- "$1" && return 0
		kill -0 "$SPID" 2>/dev/null || { this_boot | grep -Eq -- "$1"; return; }
		sleep 0.2
	done
	return 1
}

# prompt: the shell of this boot is waiting for a command ($PROMPT, an
# ERE: the classroom VM's by default)
PROMPT='workbook:/workbook# '
prompt() {
	wait_for "$PROMPT"
}

# ended: 0 once script (run.sh, QEMU) has exited within LIMIT s from
# now; its exit status in ERC, the seconds it took in SECS. Else 1, the
# VM is stopped, and STALL says whether its shell still answered.
ended() {
	_t=$(now)
	_end=$((_t + LIMIT))
	while kill -0 "$SPID" 2>/dev/null && [ "$(now)" -le $_end ]; do
		sleep 0.2
	done
	SECS=$(($(now) - _t))
	if kill -0 "$SPID" 2>/dev/null; then
		# which side stalled, for the failure's line: a shell that
		# still answers never took what was typed as its end
		type_line 'echo "STILL""HERE"'
		if wait_for '^STILLHERE' 30; then
			STALL="the guest's shell still answers a command: what was typed did not end it"
		else
			STALL="no answer to a command in 30 s: the guest stalled on its way down"
		fi
		stop_vm
		ERC=
		return 1
	fi
	wait "$SPID"
	ERC=$?
	exec 3>&-
	return 0
}

# stop_vm: end script, then whatever still runs in run.sh's session on
# the pty (QEMU); all of them started by this test.
stop_vm() {
	_sid=$(ps -o pid= --ppid "$SPID" 2>/dev/null | head -n 1 | tr -d ' ')
	kill -TERM "$SPID" 2>/dev/null
	sleep 2
	if [ -n "$_sid" ]; then
		for _p in $(ps -e -o pid= -o sid= 2>/dev/null | awk -v s="$_sid" '$2 == s { print $1 }'); do
			kill -KILL "$_p" 2>/dev/null
		done
	fi
	kill -KILL "$SPID" 2>/dev/null
	wait "$SPID" 2>/dev/null
	exec 3>&-
}

# show: the end of what the terminal showed, as comments; its last
# lines to the list of failures too (tests/run.sh prints it)
show() {
	text | grep -v '^ *$' | tail -n 30 | sed 's/^/#   console: /'
	text | grep -v '^ *$' | tail -n 4 | while IFS= read -r _l; do
		failed "console: $_l"
	done
}

# left NAME HOW: after typing HOW, QEMU must end by itself, the kernel
# having powered off
left() {
	if ended; then
		is "$ERC" 0 "$1: $2 ends QEMU, run.sh exits 0 ($SECS s after)"
		this_boot | grep -q "reboot: Power down" || { ok 1 "$1: $2: the kernel powered off"; show; return; }
		ok 0 "$1: $2: the kernel powered off"
	else
		ok 1 "$1: $2 ends QEMU within $LIMIT s ($STALL)"
		show
	fi
}
