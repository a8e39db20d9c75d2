#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# arm64 (common/arch.mk, mk/cross.mk): what make would run on an arm64
# host and for make ARCH=arm64 (make -n, always); then, where the cross
# toolchain is installed (scripts/install-deps.sh --cross-arm64), the
# cross build itself: every program there, aarch64, static, and no x86
# file touched. Host only: it needs the repository and make.
# vm: skip builds on the host; the VM has no compiler
. "$(dirname "$0")/lib.sh"
[ -e "$ROOT/.git" ] || skip_all "host only: needs the git checkout (not in the VM)"
command -v make >/dev/null 2>&1 || skip_all "host only: needs make"
[ "$(uname -m)" = x86_64 ] || skip_all "cross-builds arm64 from x86-64; this host is $(uname -m)"
cd "$ROOT" || exit 1
A=build/arm64

# plan ARGS...: the commands make would run for stage 01, from scratch.
plan() {
	make -nB --no-print-directory -C stage01_submit_bio V=1 "$@" 2>&1
}

# --- the logic, without building: native arm64, cross, native x86
plan UNAME_M=aarch64 >"$T_TMP/native"
check "arm64 host: BPF for __TARGET_ARCH_arm64" grep -q -- '-target bpf .*-D__TARGET_ARCH_arm64' "$T_TMP/native"
check "arm64 host: the arm64 vmlinux.h, in build/" \
	grep -q "cp $ROOT/common/vmlinux/arm64/vmlinux.h $ROOT/build/vmlinux.h" "$T_TMP/native"
check "arm64 host: its own compiler, the program in the stage folder" \
	grep -Eq '^cc .* -static .* -o bio_trace$' "$T_TMP/native"
plan ARCH=arm64 >"$T_TMP/cross"
check "ARCH=arm64: BPF for __TARGET_ARCH_arm64 into $A" \
	grep -q -- "-D__TARGET_ARCH_arm64 -I$ROOT/$A " "$T_TMP/cross"
check "ARCH=arm64: aarch64-linux-gnu-gcc, the program in $A/stage01_submit_bio" \
	grep -Eq "^aarch64-linux-gnu-gcc .* -static .* -o $ROOT/$A/stage01_submit_bio/bio_trace\$" "$T_TMP/cross"
ARCH=arm64 plan >"$T_TMP/env"
check "ARCH in the environment is no cross build" grep -q -- '-D__TARGET_ARCH_x86 ' "$T_TMP/env"
make -n test ARCH=arm64 >"$T_TMP/test" 2>&1
check "make test ARCH=arm64 stops: the programs cannot run here" grep -q 'runs the programs' "$T_TMP/test"

# --- scripts/install-deps.sh's foreign architecture, with stand-ins for
# dpkg and apt-get that log their calls: --lab-arm64 installs no arm64
# package but fetches GRUB's arm64 .deb, so it adds arm64 to dpkg's
# architectures even when every package is already installed.
F=$T_TMP/fake
mkdir -p "$F"
cat >"$F/dpkg-query" <<'FAKE'
#!/bin/sh
echo "install ok installed"
FAKE
cat >"$F/dpkg" <<'FAKE'
#!/bin/sh
case "$1" in
--print-architecture) echo amd64 ;;
--print-foreign-architectures) cat "$FAKE_DIR/archs" 2>/dev/null ;;
*) echo "dpkg $*" >>"$FAKE_DIR/calls"; echo "$2" >>"$FAKE_DIR/archs" ;;
esac
FAKE
cat >"$F/apt-get" <<'FAKE'
#!/bin/sh
echo "apt-get $*" >>"$FAKE_DIR/calls"
FAKE
chmod +x "$F/dpkg-query" "$F/dpkg" "$F/apt-get"
deps() {
	FAKE_DIR=$F PATH=$F:$PATH scripts/install-deps.sh "$@" >"$T_TMP/deps.out" 2>&1
}
if [ "$(id -u)" -eq 0 ]; then
	rm -f "$F/calls" "$F/archs"
	deps --lab-arm64
	is "$?" 0 "install-deps.sh --lab-arm64, all installed: exits 0"
	check "... and adds arm64 to dpkg's architectures" grep -qx 'dpkg --add-architecture arm64' "$F/calls"
	check "... refreshes the lists, so GRUB's arm64 .deb can be fetched" grep -q '^apt-get update' "$F/calls"
	! grep -q '^apt-get install' "$F/calls"
	ok $? "... and installs nothing"
	rm -f "$F/calls"
	deps --lab-arm64
	is "$?$(cat "$F/calls" 2>/dev/null)" 0 "run again: nothing to do, nothing run"
else
	skip "install-deps.sh --lab-arm64" "needs root (it would add an architecture)"
fi
deps --bogus
is "$?" 2 "install-deps.sh --bogus exits 2"

# --- the cross build
if ! command -v aarch64-linux-gnu-gcc >/dev/null 2>&1; then
	skip "make ARCH=arm64" "no aarch64-linux-gnu-gcc (scripts/install-deps.sh --cross-arm64)"
	done_testing
fi
if [ ! -f /usr/lib/aarch64-linux-gnu/libbpf.a ]; then
	skip "make ARCH=arm64" "no libbpf-dev:arm64 (scripts/install-deps.sh --cross-arm64)"
	done_testing
fi

# expected: every program the cross build must make, from the sources.
expected() {
	for mf in stage[0-9][0-9]_*/Makefile tools/*/Makefile bench/*/Makefile; do
		d=${mf%/Makefile}
		echo "$A/${d##*/}/$(sed -n 's/^APP := *//p' "$mf")"
	done
	# the answers (scripts/solution): the program of each one's stage
	for p in solutions/*.patch; do
		id=${p##*/}
		id=${id%.patch}
		st=$(sed -n 's/^STAGE=//p' "exercises/$id/spec")
		app=vload
		[ -n "$st" ] && app=$(sed -n 's/^APP := *//p' "$st/Makefile")
		echo "$A/solutions/$id/$app"
	done
	sed -n 's/^HELPERS := //p' tests/helpers/Makefile | grep -o '$(BIN)/[a-z_0-9][a-z_0-9]*' |
		sed "s|^\$(BIN)|$A/tests/bin|"
	for c in tests/helpers/*.c tests/unit/test_*.c; do
		n=${c##*/}
		echo "$A/tests/bin/${n%.c}"
	done
	sed -n 's/^all: //p' scripts/Makefile | tr ' ' '\n' | sed -n "s|^\$(OUT)|$A/scripts/|p"
}
expected | sort -u >"$T_TMP/want"
diag "$(wc -l <"$T_TMP/want") programs expected"

# x86_sums: the x86 programs' checksums, to see that the cross build
# leaves them be.
x86_sums() {
	for f in stage*/*_trace stage*/tracex3 stage*/ctracer tools/*/ctracer build/solutions/*/*_trace build/solutions/*/tracex3 build/solutions/*/ctracer \
		bench/*/bio_trace bench/floor/floor scripts/heatmap tests/bin/*; do
		[ -f "$f" ] && cksum "$f"
	done
}
x86_sums >"$T_TMP/x86.before"

# Programs left by an earlier build prove nothing: relink them all.
xargs rm -f <"$T_TMP/want"
start=$(date +%s)
make -j"$(nproc 2>/dev/null || echo 2)" ARCH=arm64 >"$T_TMP/build.log" 2>&1
rc=$?
is "$rc" 0 "make ARCH=arm64 exits 0 ($(($(date +%s) - start)) s)"
[ "$rc" -eq 0 ] || sed 's/^/#   /' "$T_TMP/build.log" | tail -n 20

# pg_read is dynamic on purpose: uftrace preloads its libmcount into it.
while read -r p; do
	if [ ! -f "$p" ]; then
		ok 1 "$p: built"
		continue
	fi
	is "$(od -An -t u2 -j 18 -N 2 "$p" | tr -d ' ')" 183 "$p: ELF e_machine 183 (AArch64)"
	case "$p" in
	*/pg_read) continue ;;
	esac
	! aarch64-linux-gnu-readelf -l "$p" | grep -q 'program interpreter'
	ok $? "$p: static (no program interpreter)"
done <"$T_TMP/want"

# The BPF side was built for arm64: its kprobe reads struct user_pt_regs.
O=$A/stage01_submit_bio/bio_trace.bpf.o
"${BPFTOOL:-bpftool}" btf dump file "$O" 2>/dev/null | grep -q "STRUCT 'user_pt_regs'"
ok $? "$O: its kprobe reads arm64's user_pt_regs"

x86_sums >"$T_TMP/x86.after"
cmp -s "$T_TMP/x86.before" "$T_TMP/x86.after"
ok $? "the x86 programs are as they were"
done_testing
