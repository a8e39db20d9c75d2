# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The exercises: one folder each in exercises/, named by its id (01.1 is
# stage 01's exercise 1, v1 the verifier corner's first), holding
#   spec    shell assignments: TITLE; STAGE (the stage to copy) or SOURCE
#           (a verifier corner program); FAILS_AT (the step the untouched copy fails at); RULE (which
#           refusal a verifier corner program shows); WANT (count or
#           records: what vload must count); ALSO (files of common/ the
#           copy carries too, to edit: a copy links before common's);
#           EX_DOOR (the door the exercise is about: its run ignores
#           DOOR=); NEEDS (what the kernel must have, else the check is
#           skipped with one line: tp:NAME a tracepoint, biodev a
#           bio-based disk the checker can make, fdoor a function door,
#           fentry or kprobe, for -r; atomics BPF atomics (5.12), as
#           the verifier takes them (tests/bin/bpf_obj asks it); nvme
#           an NVMe driver that keeps the command in the request (5.13);
#           doors:A,B the doors the exercise is about, where DOOR= names
#           another) and NEEDS_NOTE (which kernels have it, or why; for
#           doors:, why the others cannot tell); AFTER (NN: make check
#           and make progress take it after stage NN's exercises)
#   hint    what to try, shown by make hint
#   run.sh  a stage exercise's run step: ex_run (see check.d/run.sh)

# ex_ids: every exercise id, in the order make check takes them: by id,
# but one whose spec says AFTER=NN comes after stage NN's exercises
ex_ids() {
	for _s in "$ROOT"/exercises/*/spec; do
		[ -f "$_s" ] || continue
		_a=$(sed -n 's/^AFTER=\([0-9][0-9]\)$/\1/p' "$_s")
		_s=${_s%/spec}
		echo "${_a:+$_a.~}${_s##*/} ${_s##*/}"
	done | LC_ALL=C sort | cut -d' ' -f2
}

ex_exists() {
	case "$1" in
	"" | */* | .*) return 1 ;;
	esac
	[ -f "$ROOT/exercises/$1/spec" ]
}

# ex_load ID: the spec's variables, plus EX_DIR, APP (the program built,
# as the stage's Makefile names it)
ex_load() {
	TITLE='' STAGE='' SOURCE='' FAILS_AT='' RULE='' WANT='' AFTER=''
	ALSO='' EX_DOOR='' NEEDS='' NEEDS_NOTE=''
	EX_DIR=$ROOT/exercises/$1
	# shellcheck disable=SC1090
	. "$EX_DIR/spec"
	if [ -n "$SOURCE" ]; then
		APP=vload
		WANT=${WANT:-count}
	else
		# the stage's program: bio_trace, or pagecache_trace (08, 09)
		APP=$(sed -n 's/^APP := *//p' "$ROOT/$STAGE/Makefile")
	fi
}

# ex_first_unfinished: the first exercise not done that this kernel can check
ex_first_unfinished() {
	for _id in $(ex_ids); do
		[ "$(result_status "$_id")" = "done" ] && continue
		ex_load "$_id"
		[ -z "$(ex_unmet)" ] && { echo "$_id"; return; }
	done
}

# Each NEEDS kind is a function, needs_KIND ARG: what this kernel lacks
# of it, in words; nothing if it has it. A kind with no function is
# unknown (ex_bad_needs).
needs_tp() {
	tp_in_btf "$1" ||
		echo "this kernel ($(uname -r)) has no $1 tracepoint${NEEDS_NOTE:+ ($NEEDS_NOTE)}"
}

needs_biodev() {
	bio_dev_ok ||
		echo "this kernel has neither device-mapper nor zram: no bio-based disk${NEEDS_NOTE:+ ($NEEDS_NOTE)}"
}

# the verifier asked, not the release: distribution kernels backport.
# Not root (2: cannot tell): the load step says.
needs_atomics() {
	"${CHECK_BPF_OBJ:-$BIN/bpf_obj}" atomics 2>/dev/null
	[ $? -ne 1 ] ||
		echo "this kernel's verifier has no BPF atomics (5.12)${NEEDS_NOTE:+: $NEEDS_NOTE}"
}

needs_doors() {
	case ",$1," in
	*",$DOOR,"*) return ;;
	esac
	[ "$DOOR" = auto ] ||
		echo "DOOR=$DOOR: this exercise is about the $(echo "$1" |
			sed 's/,/ and /g') doors${NEEDS_NOTE:+ ($NEEDS_NOTE)}"
}

needs_fdoor() {
	fdoor_missing
}

# an NVMe driver that builds each command in the request (5.13): the
# end reads the opcode there. A refactor no distribution backports, so
# the release tells.
needs_nvme() {
	if [ ! -d /sys/module/nvme_core ]; then
		echo "no NVMe driver here (no /sys/module/nvme_core)${NEEDS_NOTE:+: $NEEDS_NOTE}"
		return
	fi
	case $(uname -r) in
	[1-4].* | 5.[0-9].* | 5.1[0-2].*)
		echo "this kernel ($(uname -r)) builds each NVMe command on nvme_queue_rq()'s stack (before 5.13): nvme_req(rq)->cmd, where the end reads the opcode, is not it" ;;
	esac
}

# ex_bad_needs: the first exercise whose NEEDS has a kind with no
# needs_KIND (it would count as met), as "exercise ID: unknown NEEDS kind
# 'KIND'"; nothing if every kind is known
ex_bad_needs() {
	for _id in $(ex_ids); do
		ex_load "$_id"
		for _n in $NEEDS; do
			command -v "needs_${_n%%:*}" >/dev/null 2>&1 && continue
			echo "exercise $_id: unknown NEEDS kind '${_n%%:*}' (exercises/$_id/spec)"
			return
		done
	done
}

# ex_unmet: what this kernel lacks of the loaded spec's NEEDS, in words
# (the first unmet one); nothing if it has it all
ex_unmet() {
	for _n in $NEEDS; do
		_w=$("needs_${_n%%:*}" "${_n#*:}")
		[ -z "$_w" ] && continue
		echo "$_w"
		return
	done
	# what a run step found in this kernel and door (check_one)
	_f=$BUILDS/${EX_DIR##*/}/skipped
	[ -f "$_f" ] || return
	{ read -r _k; read -r _w; } <"$_f"
	[ "$_k" = "$(uname -r) DOOR=$DOOR" ] && echo "$_w"
}

# skip_note: RUN_SKIP as kept: under this kernel and DOOR, a line each
skip_note() {
	printf '%s\n' "$(uname -r) DOOR=$DOOR" "$RUN_SKIP"
}

# tp_in_btf NAME: the kernel has tracepoint NAME, by its BTF type (as the
# loader's tracepoint door probes it). CHECK_BTF: another BTF file, for
# tests/check.t.
tp_in_btf() {
	tr '\0' '\n' <"${CHECK_BTF:-/sys/kernel/btf/vmlinux}" 2>/dev/null | grep -qx "btf_trace_$1"
}

# fdoor_missing: why the check's door (DOOR) is no function door, fentry
# or kprobe, here; nothing if it is one or may be. -r needs one: the
# tracepoint door has no returns. DOOR=auto: kprobes (as doors.c finds
# them), else fentry if tools/ctracer's ctracer opens it (root only: else
# the load step says what is missing), built first if need be.
fdoor_missing() {
	case $DOOR in
	tracepoint)
		echo "DOOR=tracepoint has no returns: -r needs a function door (DOOR=fentry or kprobe)"
		return
		;;
	fentry) return ;;	# the attach step says if this kernel has none
	esac
	have_kprobes && return
	if [ "$DOOR" = kprobe ]; then
		echo "this kernel ($(uname -r)) has no kprobes: -r needs a function door"
		return
	fi
	[ "$(id -u)" -eq 0 ] || return
	# fentry is known only by loading: ctracer tries it
	_ct=$ROOT/tools/ctracer/ctracer
	if [ ! -x "$_ct" ]; then
		echo "check: building tools/ctracer/ctracer, to ask it about fentry" >&2
		make -s -C "${_ct%/*}" >/dev/null 2>&1 || return	# no compiler: the check's own build says
	fi
	_w=$("$_ct" -a fentry -q --duration 0.1 2>&1 >/dev/null |
		sed -n 's/.*no fentry door on this kernel (\(.*\))$/\1/p')
	[ -n "$_w" ] &&
		echo "-r needs a function door, and this kernel ($(uname -r)) has none: no kprobes, fentry: $_w"
}

# have_kprobes: this kernel has kprobes (a perf PMU, or tracefs's
# kprobe_events)
have_kprobes() {
	[ -e /sys/bus/event_source/devices/kprobe/type ] && return 0
	for _t in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[ -e "$_t/kprobe_events" ] && return 0
	done
	return 1
}
