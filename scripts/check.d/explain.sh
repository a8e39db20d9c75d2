# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The common refusals in words: explain FILE finds the compiler's or the
# verifier's message in FILE and says what it means and what to try, one
# "why [RULE]:" paragraph for each rule it finds.

why() {	# why RULE TEXT...: one explanation, wrapped under the step lines
	_r=$1
	shift
	printf '  why [%s]: %s\n' "$_r" "$*" | fold -s -w 66 | sed 's/ *$//; 2,$s/^/            /'
}

explain() {
	_f=$1
	# a read through a plain number, in a register the log shows holding
	# a maybe-NULL pointer and then 0: tested for NULL (if (p)), then
	# used on the path where it is NULL
	_reg=$(sed -n "s/.*R\([0-9]\) invalid mem access 'scalar'.*/\1/p" "$_f" | tail -n 1)
	_null_path=
	[ -n "$_reg" ] && grep -Eq "(^|[ :])R${_reg}(_w)?=0( |$)" "$_f" &&
		grep -Eq "(^|[ :])R${_reg}(_w)?=[a-z_]*_or_null" "$_f" && _null_path=1
	if grep -q "_or_null'" "$_f"; then
		why null "a pointer that may be NULL was used: bpf_map_lookup_elem()" \
			"(and bpf_ringbuf_reserve()) return NULL when there is no such" \
			"entry, and the verifier makes you test it (if (!p) return 0;)" \
			"before any read or write through it, on every path."
	elif [ -n "$_null_path" ]; then
		why null "a pointer that may be NULL was tested, but used on the" \
			"path where it is NULL: after if (p) ..., a read or write" \
			"through p outside that if still runs when p is NULL (the log's" \
			"R$_reg=0). Return early instead (if (!p) return 0;), so that" \
			"every use after it has a pointer."
	fi
	if grep -Eq 'back-edge|infinite loop detected|BPF program is too large|is too complex|unbounded' "$_f"; then
		why loop "the verifier walks every path to the end and could not" \
			"see this loop end (a back-edge, an infinite loop, or too many" \
			"instructions to walk). Give it a constant bound (i < 64 && p)," \
			"as stage 02 bounds its walk of rq->bio, or use bpf_loop()."
	fi
	if grep -Eq 'stack limit of 512 bytes|combined stack size|stack size [0-9]+.* is too large|invalid (read|write) to stack' "$_f"; then
		why stack "a BPF program has 512 bytes of stack, for all its" \
			"functions together. Keep big records in map memory: a" \
			"BPF_MAP_TYPE_PERCPU_ARRAY of one entry is a scratch buffer of any" \
			"size (stage 06 watches the size of its start record)."
	fi
	if grep -Eq 'Unreleased reference|reference leak' "$_f"; then
		why reference "a record from bpf_ringbuf_reserve() (a reference)" \
			"was not released on some path: every reserved record must reach" \
			"bpf_ringbuf_submit() or bpf_ringbuf_discard(), even on an early" \
			"return. Filter before you reserve (stage 03's send_event())."
	fi
	if [ -z "$_null_path" ] && grep -Eq "invalid mem access '(scalar|inv)'" "$_f"; then
		why scalar "the program read memory through a plain number. A" \
			"kprobe's (or raw tracepoint's) arguments carry no type the" \
			"verifier trusts, nor does a pointer handed on as a number (a" \
			"__u64 argument or map value, as stage 02's walk hands on the" \
			"bios of a request): read kernel memory through them with" \
			"BPF_CORE_READ() (bio_dev_core() in common/disk.bpf.h), as every" \
			"stage's kprobe program does. fentry and tp_btf programs may load" \
			"the fields of their own typed arguments directly."
	fi
	if grep -Eq 'unknown func|program of this type cannot use helper|supported only for|helper call is not allowed|cannot call' "$_f"; then
		why helper "this program type may not call that helper: each" \
			"type (kprobe, tracepoint, fentry ...) has its own list. A" \
			"tracepoint has no traced function (bpf_get_func_ip(), fexit's" \
			"bpf_get_func_ret()); find another way, or another door."
	fi
	if grep -q 'BPF_STX uses reserved fields' "$_f"; then
		why atomic "this kernel's verifier has no BPF atomics (5.12): it knows" \
			"one atomic operation, an add whose result is not used. Using" \
			"__sync_fetch_and_add()'s value (or compare-and-swap, or" \
			"exchange) needs 5.12; a per-CPU counter needs no atomic at all."
	fi
	return 0
}
