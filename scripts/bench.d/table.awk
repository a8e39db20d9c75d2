# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The overhead table from scripts/bench's records:
#   configs    name|marker|command        (the order of the rows)
#   runs.tsv   seq round config iops ios  (seq: position in the whole run)
#   progs.tsv  round config prog type run_time_ns run_cnt
#   doors.tsv  config door
#   cpu.tsv    seq config tracer_cpu_ns   (optional: the tracer process's
#              CPU time during that run: from stage 03 on, a printing
#              run's events are formatted there, not in BPF)
# A traced run is compared with the mean of the baseline runs right
# before and after it; the median over rounds is shown, with the range.
# Rounds 1..timed (-v timed=N, default 1) run with bpf_stats on and give
# the BPF time: ns per I/O per round, shown as the median (and range) over
# those rounds, and the ratio to biolatency's ns in the same round, also
# as a median. IOPS come from the other rounds (bpf_stats off), or from
# the timed ones if every round was timed. The tracer's CPU ns per I/O is
# the median over every round.

function median(list,    a, n, i, j, t) {
	n = split(list, a, " ")
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
	if (n == 0)
		return ""
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}

function range(list, fmt,    a, n, i, lo, hi) {
	n = split(list, a, " ")
	lo = hi = a[1]
	for (i = 2; i <= n; i++) {
		if (a[i] + 0 < lo + 0) lo = a[i]
		if (a[i] + 0 > hi + 0) hi = a[i]
	}
	return sprintf(fmt " … " fmt, lo, hi)
}

BEGIN { if (timed < 1) timed = 1 }

# by name: an empty file has no first line to count
FILENAME ~ /configs$/ { split($0, f, "|"); order[++nconf] = f[1]; next }
FILENAME ~ /runs.tsv$/ {
	split($0, f, "\t")
	conf[f[1]] = f[3]; iops[f[1]] = f[4]; ios[f[1]] = f[5]; rnd[f[1]] = f[2]
	if (f[1] > nseq) nseq = f[1]
	if (f[2] > maxround) maxround = f[2]
	next
}
FILENAME ~ /progs.tsv$/ {
	split($0, f, "\t")
	k = f[2] SUBSEP f[3]
	if (!(k in rt)) progs[f[2]] = progs[f[2]] " " f[3]
	rt[k] += f[5]; cnt[k] += f[6]; round_rt[f[2], f[1]] += f[5]
	next
}
FILENAME ~ /doors.tsv$/ { split($0, f, "\t"); door[f[1]] = f[2]; next }
FILENAME ~ /cpu.tsv$/ { split($0, f, "\t"); cpu[f[1]] = f[3]; next }

END {
	for (s = 1; s <= nseq; s++) {
		c = conf[s]
		if (iops[s] == 0)
			continue
		if ((s in cpu) && ios[s] > 0)
			cpuio[c] = cpuio[c] " " sprintf("%.1f", cpu[s] / ios[s])
		# timed rounds have bpf_stats on: their IOPS count only if all are
		timing = rnd[s] <= timed
		if (timing) {
			sum_ios[c] += ios[s]
			round_ios[c, rnd[s]] += ios[s]
		}
		if (timing && maxround > timed)
			continue
		if (c == "baseline") {
			vals["baseline"] = vals["baseline"] " " iops[s]
			continue
		}
		n = b = 0
		if (conf[s - 1] == "baseline" && iops[s - 1] > 0) { b += iops[s - 1]; n++ }
		if (conf[s + 1] == "baseline" && iops[s + 1] > 0) { b += iops[s + 1]; n++ }
		if (!n)
			continue
		vals[c] = vals[c] " " iops[s]
		drops[c] = drops[c] " " sprintf("%.2f", (iops[s] / (b / n) - 1) * 100)
	}
	# ns per I/O per timed round; the ratio to biolatency's, same round
	for (r = 1; r <= timed; r++) {
		b = round_ios["biolatency", r] ? round_rt["biolatency", r] / round_ios["biolatency", r] : 0
		for (i = 1; i <= nconf; i++) {
			c = order[i]
			if (!round_ios[c, r])
				continue
			ns = round_rt[c, r] / round_ios[c, r]
			nsl[c] = nsl[c] " " sprintf("%.1f", ns)
			if (b)
				ratios[c] = ratios[c] " " sprintf("%.4f", ns / b)
		}
	}

	print "| configuration | door | IOPS | IOPS vs baselines, % (range) | BPF ns per I/O | × biolatency | tracer process CPU ns per I/O | per program: ns per run (runs per I/O) |"
	print "| --- | --- | ---: | --- | ---: | ---: | ---: | --- |"
	printf "| baseline | — | %.0f | — | — | — | — | — |\n", median(vals["baseline"])
	for (i = 1; i <= nconf; i++) {
		c = order[i]
		if (vals[c] == "") {
			printf "| %s | %s | failed | | | | | |\n", c, door[c] ? door[c] : "?"
			continue
		}
		per = ""
		np = split(progs[c], p, " ")
		for (j = 1; j <= np; j++) {
			k = c SUBSEP p[j]
			if (!cnt[k])
				continue	# attached, never fired on this device
			per = per sprintf("%s`%s` %.0f (%.2f)", per == "" ? "" : "<br>", p[j],
					  rt[k] / cnt[k], cnt[k] / sum_ios[c])
		}
		nsio = nsl[c] == "" ? "—" : sprintf("%.0f", median(nsl[c]))
		if (split(nsl[c], t, " ") > 1)
			nsio = nsio " (" range(nsl[c], "%.0f") ")"
		printf "| %s | %s | %.0f | %+.1f (%s) | %s | %s | %s | %s |\n", c, door[c],
		       median(vals[c]), median(drops[c]), range(drops[c], "%+.1f"), nsio,
		       ratios[c] == "" ? "—" : sprintf("%.2f", median(ratios[c])),
		       cpuio[c] == "" ? "—" : sprintf("%.0f", median(cpuio[c])), per
	}
}
