# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Stage 10, exercise 3: one read at sector 2048 traced with -r and
# --html. Each bio's "self" in the page's data must be the call whose own
# time (its duration minus its returned children's, per thread or
# interrupt) is the largest in the terminal's tree of the same bio.
ex_run() {
	start_prog -r -s 2048 -d "$DEV" --html "$T_TMP/page.html" || return 1
	io_or_fail "/dev/$DEV" 2048 || return 1
	stop_prog || return 1
	cp "$T_TMP/page.html" "$B/page.html" 2>/dev/null
	want_eq "$(tree_has_read "$T_TMP/out")" yes \
		"a tree of the read at sector 2048 with a call and its return (-r)" \
		"does the program still print each bio's tree, with -r in a function door?" ||
		return 1
	want_eq "$(page_self "$T_TMP/page.html")" "$(tree_self "$T_TMP/out")" \
		"per bio, the page's \"self\" (the call with the most time of its own, from the terminal tree)" \
		"does each bio's object in the page's data end with \"self\":{\"fn\":…,\"us\":…}, its duration minus its children's?" ||
		return 1
	say run "ok: each bio's largest self time, as the terminal tree gives it"
}

# tree_has_read FILE: yes if a tree's first row says sector=2048 and one
# of its rows has a duration
tree_has_read() {
	awk '/^[a-z]+ 0x[0-9a-f]+: [0-9]+ events/ { first = 1; next }
		first { first = 0; read = / sector=2048 / }
		read && / us  cpu/ && /(\(\)|\} [^ ]+)  [0-9]+\.[0-9][0-9][0-9] us/ { ok = 1 }
		END { print ok ? "yes" : "no" }' "$1"
}

# tree_self FILE: per tree, in order, its call with the largest own time
# (the first on a tie) as "name us", or "-"; ;-separated. The rows'
# function column follows the task's (padded to 22), two spaces a depth.
tree_self() {
	awk 'function flush() {
			if (n++)
				out = out ";"
			out = out (max < 0 ? "-" : fn " " sprintf("%d.%03d", int(max / 1000), max % 1000))
		}
		function ns(s) { sub(/\./, "", s); return s + 0 }
		/^[a-z]+ 0x[0-9a-f]+: [0-9]+ events/ { if (tree) flush(); tree = 1; max = -1; next }
		tree && match($0, /^ *[0-9]+\.[0-9]+ us  cpu[0-9]+ +[a-z]+ +/) {
			ctx = $4; task = $5
			rest = substr($0, RSTART + RLENGTH)
			pad = 22 - length(task)
			rest = substr(rest, length(task) + (pad > 0 ? pad : 0) + 2)
			match(rest, /^ */)
			d = RLENGTH / 2
			tid = task
			sub(/.*-/, "", tid)
			who = ctx == "task" && tid != 0 ? task : ctx "/" $3
			split(rest, t, " ")
			if (t[1] == "}") {
				dur = ns(t[3]); own = dur - kids[who, d + 1]; name = t[2]
			} else if (t[1] ~ /\(\)$/ && t[2] ~ /^[0-9]+\.[0-9]+$/) {
				dur = ns(t[2]); own = dur; name = substr(t[1], 1, length(t[1]) - 2)
			} else {
				if (t[2] == "{")
					kids[who, d + 1] = 0
				next
			}
			kids[who, d] += dur
			if (own > max) { max = own; fn = name }
		}
		END { if (tree) flush(); print out }' "$1"
}

# page_self FILE: per bio of the page's data, in order, its "self" as
# "name us", or "-"; ;-separated
page_self() {
	awk 'function flush() { if (n++) out = out ";"; out = out cur }
		/\{"bio":"0x/ { if (bio) flush(); bio = 1; cur = "-" }
		bio && match($0, /"self":\{"fn":"[^"]*","us":[0-9.]+\}/) {
			s = substr($0, RSTART + 14, RLENGTH - 15)
			sub(/","us":/, " ", s)
			cur = s
		}
		END { if (bio) flush(); print out }' "$1" 2>/dev/null
}
