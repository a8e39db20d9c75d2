#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The classroom VM: builds the image (scripts/vm/build.sh), boots each kernel
# of VM_KERNELS once under QEMU, and relays the guest's TAP (every test file
# in every door, then the fio overhead smoke check) prefixed with the kernel
# version; VM_TEST_KERNELS names them (default: all, below). Logs: <VM folder>/log/<kernel>/{results.tap,console.log}.
# VM_ARCH=arm64 (tests/vm_arm64.t): the aarch64 VM, its programs cross
# built first (make ARCH=arm64), its kernels Debian's cloud-arm64 ones.
# vm: skip it boots the VM
. "$(dirname "$0")/lib.sh"
. "$ROOT/scripts/vm/arch.sh"

command -v "$QEMU" >/dev/null 2>&1 ||
	skip_all "$QEMU is absent (scripts/install-deps.sh --vm${FOREIGN:+-$VM_ARCH} installs $QEMU_PKG)"

# One run per VM folder at a time: they share its images. The x86 and
# arm64 VMs may run together (tests/run.sh: two lanes).
mkdir -p "$VM"
exec 8>"$VM/.lock"
command -v flock >/dev/null 2>&1 && flock 8

# The guest's programs, built here first: mk/vm.mk's VM_PROGRAMS, what
# make test builds (a no-op when it or tests/cross.t did). An unbuilt
# tree would make a guest whose every test is a SKIP: a run that proves
# nothing.
if [ -n "$FOREIGN" ]; then
	"$ROOT/scripts/install-deps.sh" --check --cross-"$VM_ARCH" ||
		skip_all "no $VM_ARCH cross toolchain (scripts/install-deps.sh --vm-$VM_ARCH)"
	set -- ARCH="$VM_ARCH"
else
	set -- all helpers solutions bench-build
fi
make -C "$ROOT" --no-print-directory "$@" >"$T_TMP/make.log" 2>&1
rc=$?
ok $rc "make $*: the guest's programs build"
[ $rc -eq 0 ] || { tail -n 20 "$T_TMP/make.log" | sed 's/^/#   /'; done_testing; exit; }

# The kernels (VM_TEST_KERNELS; "all": every one scripts/vm/build.sh
# knows for this architecture, from 5.10 to 7.2, docs/kernels.md). By
# default, to keep make test, and so CI, within its hour, the two
# architectures share them: x86 boots 5.10 and 6.12, arm64 those and
# 6.1 (cloud) and 7.2 as 7.2-16k (the same kernel, with 16 KiB pages).
# Every test file in every door on each, but for the kernels
# in VM_SMOKE_KERNELS (default: all but 6.12): they run the stage tests
# only (VM_SMOKE_TESTS: each stage in each door it has, refusals
# included; a file that costs minutes one check per door, TEST_SMOKE). make
# vm-test runs the whole suite on all of them (VM_SMOKE_KERNELS empty).
case $VM_ARCH in
arm64) all="5.10 cloud 6.12 7.2 7.2-16k" ci="5.10 cloud 6.12 7.2-16k" ;;
*) all="5.10 cloud 6.12 7.2" ci="5.10 6.12" ;;
esac
kernels=${VM_TEST_KERNELS:-$ci}
[ "$kernels" = all ] && kernels=$all
VM_SMOKE_KERNELS=${VM_SMOKE_KERNELS-5.10 cloud 7.2 7.2-16k}
VM_SMOKE_TESTS=${VM_SMOKE_TESTS:-stage00 stage01 stage02 stage03 stage04 stage05 stage06 stage07 stage08 stage09 stage10 stage11}
# The two full suites (6.12) run every stage; the other files, once
# between them (VM_FULL_SKIP: each leaves out the other's), so the two
# VM lanes of make test end together. A file in neither list runs on
# both. A full suite may take its VM longer than run.sh's 3000 s on a
# slow host: 4500 s (VM_TIMEOUT). iofollow is x86's: in the arm64 6.12
# VM a run once saw none of a writer's calls (docs/kernels.md: TCG and
# the system-call path, which /init now holds).
on_x86="check ctracer ctracer_jsonl shapes solutions array_map docs heatmap iofollow overhead"
on_arm64="cli robust ctracer_stacked ctracer_split ctracer_btt ctracer_view uftrace"
case $VM_ARCH in
arm64) VM_FULL_SKIP=${VM_FULL_SKIP-$on_x86} ;;
*) VM_FULL_SKIP=${VM_FULL_SKIP-$on_arm64} ;;
esac
full=
if [ -n "$VM_FULL_SKIP" ]; then
	for n in $(cd "$ROOT/tests" && ls -- *.t | sed 's/\.t$//') overhead; do
		case " $VM_FULL_SKIP " in *" $n "*) continue ;; esac
		full="$full $n"
	done
	full=${full# }
fi

# the commit the guest's files came from, for docs/kernels.md's run lines
wb=$(git -C "$ROOT" describe --always --dirty 2>/dev/null) || wb=unknown

for k in $kernels; do
	tests=${VM_TESTS:-} smoke=
	case " $VM_SMOKE_KERNELS " in
	*" $k "*) [ -n "$tests" ] || tests=$VM_SMOKE_TESTS smoke=wb.smoke=1 ;;
	*) [ -n "$tests" ] || tests=$full ;;
	esac
	"$ROOT/scripts/vm/build.sh" "$k" >"$T_TMP/build.log" 2>&1
	rc=$?
	if [ $rc -eq 3 ]; then
		skip "$VM_ARCH kernel $k" "cannot build its image here: $(tail -n 1 "$T_TMP/build.log")"
		continue
	fi
	if [ $rc -ne 0 ]; then
		ok 1 "$VM_ARCH kernel $k: the image builds (exit $rc: $(tail -n 1 "$T_TMP/build.log"))"
		sed 's/^/#   /' "$T_TMP/build.log"
		continue
	fi
	ok 0 "$VM_ARCH kernel $k: the image builds"
	kver=$(readlink "$VM/$k")
	out=$VM/log/$k
	if [ -n "$smoke" ] && [ -z "${VM_TESTS:-}" ]; then
		diag "$VM_ARCH kernel $k: the smoke set ($tests)"
	elif [ -n "$tests" ] && [ -z "${VM_TESTS:-}" ]; then
		diag "$VM_ARCH kernel $k: every file but $VM_FULL_SKIP"
	fi
	limit=${VM_TIMEOUT:-4500}	# a full suite's; the smoke set's: run.sh's own
	[ -n "$smoke" ] && limit=${VM_TIMEOUT:-3000}
	VM_TESTS=$tests VM_APPEND="${VM_APPEND:-} $smoke" VM_TIMEOUT=$limit \
		"$ROOT/scripts/vm/run.sh" -k "$k" -o "$out" test 2>"$T_TMP/run.err"
	rc=$?
	echo "# workbook $wb" >>"$out/results.tap"
	# the boot-to-first-test figure and the KVM probe's verdict: on
	# stderr, which prove shows even when it is not verbose
	cat "$T_TMP/run.err" >&2
	first=$(sed -n 's/.*: first test \([0-9.]*\) s after QEMU started.*/\1/p' "$T_TMP/run.err")
	tr -d '\r' <"$out/results.tap" >"$T_TMP/guest.tap"
	relay "$kver" "$T_TMP/guest.tap"
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$T_TMP/guest.tap")
	ran=$(grep -cE '^(not )?ok ' "$T_TMP/guest.tap")
	is "$rc ${plan:-none}" "0 $ran" \
		"$kver: the guest ran its whole plan ($ran tests) and powered off (first test ${first:-never} s after QEMU started)"
	if [ $rc -ne 0 ]; then
		tail -n 15 "$out/console.log" | sed 's/^/#   console: /'
		tail -n 4 "$out/console.log" | tr -d '\r' | while IFS= read -r l; do
			failed "console: $l"
		done
	fi

	# The doors this kernel let in and refused, each refusal's exact
	# line, are docs/kernels.md's (written by scripts/kernels-table from
	# such runs): for the test files that ran here and that its table has;
	# and some test file ran in some door (none: nothing was proven).
	"$ROOT/scripts/kernels-table" -r "$T_TMP/guest.tap" >"$T_TMP/got"
	"$ROOT/scripts/kernels-table" -d "$ROOT/docs/kernels.md" "$VM_ARCH" "$k" >"$T_TMP/said"
	if [ ! -s "$T_TMP/said" ]; then
		skip "$kver: the doors docs/kernels.md gives" "its $VM_ARCH table has no column for $k"
		continue
	fi
	awk 'NR == FNR { f[$1] = 1; next } $1 in f' "$T_TMP/said" "$T_TMP/got" >"$T_TMP/got.in"
	awk 'NR == FNR { f[$1] = 1; next } $1 in f' "$T_TMP/got" "$T_TMP/said" >"$T_TMP/said.in"
	diff "$T_TMP/said.in" "$T_TMP/got.in" | sed -n 's/^</#   docs:/p; s/^>/#   here:/p' >"$T_TMP/ddiff"
	cat "$T_TMP/ddiff"
	check "$kver: each door works or is refused as docs/kernels.md says ($(wc -l <"$T_TMP/got.in") file x door)" \
		sh -c 'test -s "$1" && cmp -s "$3" "$2"' sh "$T_TMP/got" "$T_TMP/got.in" "$T_TMP/said.in"
	head -n 4 "$T_TMP/ddiff" | while IFS= read -r l; do failed "$l"; done
done
done_testing
