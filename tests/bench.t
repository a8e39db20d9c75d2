#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The overhead lab's arithmetic: scripts/bench.d/table.awk turns the
# bench's raw records into the table in docs/overhead.md. Fed records
# whose answers are worked out by hand below, it must print them: ns per
# I/O per timed round and their median, the same-round ratio to
# biolatency, IOPS against the two baselines around each run, no IOPS
# from the rounds timed with bpf_stats on, and the tracer process's CPU
# time per I/O (where a ring buffer stage formats its printed events).
# Plus scripts/bench's option errors. The bench itself is run by hand (make bench), never here.
# vm: skip the bench's arithmetic needs no kernel
. "$(dirname "$0")/lib.sh"
command -v awk >/dev/null 2>&1 || skip_all "no awk"

D=$T_TMP/bench
mkdir -p "$D"
printf '%s\n' 'stageX quiet|Hit Ctrl-C|exec x' 'biolatency|Hit Ctrl-C|exec y' >"$D/configs"
printf 'stageX quiet\ttp_btf\nbiolatency\ttp_btf\n' >"$D/doors.tsv"

# runs.tsv: seq round config iops ios. Rounds 1-2 timed (bpf_stats on):
# their IOPS (9xxxx) must not show up anywhere.
tab=$(printf '\t')
cat >"$D/runs.tsv" <<EOF
1${tab}1${tab}baseline${tab}99999${tab}500000
2${tab}1${tab}stageX quiet${tab}91111${tab}450000
3${tab}1${tab}baseline${tab}99999${tab}500000
4${tab}1${tab}biolatency${tab}92222${tab}400000
5${tab}1${tab}baseline${tab}99999${tab}500000
6${tab}2${tab}baseline${tab}99999${tab}500000
7${tab}2${tab}biolatency${tab}93333${tab}500000
8${tab}2${tab}baseline${tab}99999${tab}500000
9${tab}2${tab}stageX quiet${tab}94444${tab}500000
10${tab}2${tab}baseline${tab}99999${tab}500000
11${tab}3${tab}baseline${tab}200000${tab}1000000
12${tab}3${tab}stageX quiet${tab}190000${tab}950000
13${tab}3${tab}baseline${tab}180000${tab}900000
14${tab}3${tab}biolatency${tab}171000${tab}855000
15${tab}3${tab}baseline${tab}180000${tab}900000
16${tab}4${tab}baseline${tab}100000${tab}500000
17${tab}4${tab}biolatency${tab}90000${tab}450000
18${tab}4${tab}baseline${tab}100000${tab}500000
19${tab}4${tab}stageX quiet${tab}96000${tab}480000
20${tab}4${tab}baseline${tab}100000${tab}500000
EOF
# progs.tsv: round config prog type run_time_ns run_cnt.
#   round 1: stageX 200 + 100 = 300 ns/I/O, biolatency 600 + 400 = 1000: 0.30
#   round 2: stageX 420 + 100 = 520 ns/I/O, biolatency 1000 + 250 = 1250: 0.416
# Rounds 3-4 ran with bpf_stats off: the counters did not move.
cat >"$D/progs.tsv" <<EOF
1${tab}stageX quiet${tab}progA${tab}tracing${tab}90000000${tab}450000
1${tab}stageX quiet${tab}progB${tab}tracing${tab}45000000${tab}450000
1${tab}biolatency${tab}progC${tab}tracing${tab}240000000${tab}400000
1${tab}biolatency${tab}progD${tab}tracing${tab}160000000${tab}400000
2${tab}biolatency${tab}progC${tab}tracing${tab}500000000${tab}500000
2${tab}biolatency${tab}progD${tab}tracing${tab}125000000${tab}500000
2${tab}stageX quiet${tab}progA${tab}tracing${tab}210000000${tab}500000
2${tab}stageX quiet${tab}progB${tab}tracing${tab}50000000${tab}500000
3${tab}stageX quiet${tab}progA${tab}tracing${tab}0${tab}0
3${tab}stageX quiet${tab}progB${tab}tracing${tab}0${tab}0
3${tab}biolatency${tab}progC${tab}tracing${tab}0${tab}0
3${tab}biolatency${tab}progD${tab}tracing${tab}0${tab}0
EOF

# cpu.tsv: seq config tracer_cpu_ns, over every round (bpf_stats or not):
#   stageX: 45e6/450000 = 100, 100e6/500000 = 200, 285e6/950000 = 300,
#   192e6/480000 = 400 ns per I/O: median 250. biolatency: no record, "—".
cat >"$D/cpu.tsv" <<EOF
2${tab}stageX quiet${tab}45000000
9${tab}stageX quiet${tab}100000000
12${tab}stageX quiet${tab}285000000
19${tab}stageX quiet${tab}192000000
EOF

table() {
	awk -v timed="$1" -f "$ROOT/scripts/bench.d/table.awk" "$D/configs" "$D/runs.tsv" \
		"$D/progs.tsv" "$D/doors.tsv" "$D/cpu.tsv"
}
row() { table "$1" | grep "^| $2 |"; }

# IOPS rounds 3-4: baselines 100000 100000 100000 180000 180000 200000.
#   stageX: 190000 vs (200000+180000)/2 = 0 %; 96000 vs 100000 = -4 %
#   biolatency: 171000 vs 180000 = -5 %; 90000 vs 100000 = -10 %
# Per program over both timed rounds: progA 300e6/950000 = 316 ns,
# progC 740e6/900000 = 822, progD 285e6/900000 = 317.
is "$(row 2 baseline)" "| baseline | — | 140000 | — | — | — | — | — |" \
	"baseline: median IOPS of the untimed rounds only"
is "$(row 2 'stageX quiet')" \
	"| stageX quiet | tp_btf | 143000 | -2.0 (-4.0 … +0.0) | 410 (300 … 520) | 0.36 | 250 | \`progA\` 316 (1.00)<br>\`progB\` 100 (1.00) |" \
	"stage row: IOPS vs neighbours, ns median and range, same-round ratio 0.36, tracer CPU per I/O 250"
is "$(row 2 biolatency)" \
	"| biolatency | tp_btf | 130500 | -7.5 (-10.0 … -5.0) | 1125 (1000 … 1250) | 1.00 | — | \`progC\` 822 (1.00)<br>\`progD\` 317 (1.00) |" \
	"biolatency row: its own ratio is 1.00, no CPU record"

# Only round 1 timed (the default -s 1): round 2's IOPS now count
# (94444 vs 99999: -5.56 %; 93333: -6.67 %), its counters do not.
is "$(row 1 'stageX quiet' | cut -d'|' -f4-7)" " 96000 | -4.0 (-5.6 … +0.0) | 300 | 0.30 " \
	"-s 1: round 2 gives IOPS, round 1 alone the ns (300, 0.30)"

# Every round timed: all four count. IOPS 91111 94444 96000 190000,
# drops -8.89 -5.56 -4 0: medians 95222 and -4.8.
is "$(row 4 'stageX quiet' | cut -d'|' -f4,5)" " 95222 | -4.8 (-8.9 … +0.0) " \
	"-s = -r: the timed rounds give the IOPS too"

# Option errors: one line, exit 2, before anything is touched.
for args in "-s 5 -r 2" "-s 0" "-r x" "-q" "-w -D /dev/loop0"; do
	# shellcheck disable=SC2086
	"$ROOT/scripts/bench" $args >"$T_TMP/out" 2>"$T_TMP/err"
	rc=$?
	is "$rc:$(wc -l <"$T_TMP/err" | tr -d ' ')" "2:1" "scripts/bench $args: exit 2, one line"
done
done_testing
