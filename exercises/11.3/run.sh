# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Stage 11, exercise 3: on a filesystem made on the check's device, a
# writer sw11 (a copy of tests/bin/shape_io) writes 4 pages, a pwrite()
# a page, then fsync(); then 1 MiB + 4 KiB in one pwrite() at that
# offset (not a large folio's boundary: many folios, so many
# folio_dirty and bio_queued lines of one sample), then fsync(). -s 1
# -c sw11 follows all 5. Each sample gets one waterfall line, right
# after its first rq_done line, whose three parts are the gaps between
# the first lines of its hops.
ex_run_fs() {
	writer_copy "$T_TMP/w" || return 1
	start_prog -s 1 -c sw11 -d "$DEV" || return 1
	"$T_TMP/w/sw11" pages "$CHECK_MNT/w" 1 4 $PAGE_BYTES &&
		"$T_TMP/w/sw11" pages "$CHECK_MNT/w1m" 1 1 1052672 || {
		say run "FAIL: the checker's own writer failed"
		stop_prog_quiet
		return 1
	}
	stop_after_rq_done 5 || return 1
	want_eq "$(grep '^Sampled: ' "$T_TMP/out")" "Sampled: 5 of 5 write() calls (1 in 1)" \
		"the Sampled: line (the writer's 5 pwrite() calls)" \
		"does the stage still follow every write() with -s 1?" &&
	want_eq "$(awk '$2 == "waterfall:" { print $1 }' "$T_TMP/out" | paste -sd' ' -)" \
		"#1 #2 #3 #4 #5" \
		"the samples of the waterfall lines, in the order printed" \
		"one line per sample, printed at its first rq_done only?" &&
	want_eq "$(awk '$2 == "waterfall:" { print prev } { prev = $4 }' "$T_TMP/out" |
		sort -u)" rq_done \
		"the line above each waterfall line" \
		"is the waterfall printed right after the sample's rq_done line?" &&
	want_eq "$(awk '
		/^#[0-9]/ && $4 ~ /^(folio_dirty|bio_queued|rq_issued|rq_done)$/ && !(($1, $4) in t) {
			t[$1, $4] = $2 }
		$2 == "waterfall:" && $3 " " $4 == "page cache" && $7 == "queued" && $10 == "device" {
			n++
			g[1] = t[$1, "bio_queued"] - t[$1, "folio_dirty"]
			g[2] = t[$1, "rq_issued"] - t[$1, "bio_queued"]
			g[3] = t[$1, "rq_done"] - t[$1, "rq_issued"]
			v[1] = $5; v[2] = $8; v[3] = $11
			for (i = 1; i <= 3; i++)
				if (v[i] < 0 || v[i] - g[i] > 0.0025 || g[i] - v[i] > 0.0025)
					printf "%s part %d: %s, its lines say %.3f; ", $1, i, v[i], g[i]
		}
		END { if (n != 5) printf "%d waterfall lines of the form asked", n }' "$T_TMP/out")" "" \
		"each part against its sample's lines (page cache: folio_dirty to bio_queued, queued: to rq_issued, device: to rq_done)" \
		"the gaps between the first line of each hop (a sample's later folios and bios have lines too), from the events' ts, in us?" || return 1
	say run "ok: 5 samples, a waterfall each from the first line of each hop"
}

ex_run() {
	fs_run ex_run_fs
}
