#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# page_dom.py FILE: what ctracer's page (tools/ctracer/tree_page.js) shows, read
# from the DOM Chromium dumped after the page's script ran, one fact a
# line, for a test to hold against the terminal's tree:
#   bar K SECTOR OP LEFT WIDTH  an overview bar: its bio, op, place (%)
#   sel K                       that bar is marked selected
#   bio K SECTOR OPEN SEL       a bio's <details>: open, selected (0/1)
#   span SECTOR WIDTH           its timeline's length (% of the scale)
#   phase SECTOR NAME US        a btt phase coloured in its timeline
#   dur SECTOR TEXT GAP         a row's duration in us ("-": none); GAP 1:
#                               the time to the bio's next event
#   axis LABEL|LABEL...         the overview axis's tick labels
#   key NAME...                 the key's entries
# Standard library only.
import re
import sys
from html.parser import HTMLParser


def pct(attrs, prop):
    m = re.search(r"(?:^|;)\s*" + prop + r":\s*([-0-9.e+]+)%", attrs.get("style") or "")
    return "%.4f" % float(m.group(1)) if m else "?"


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.sector = None	# the bio's <details> we are in
        self.text = None	# [tag, what, text] of an element being read
        self.axis = []
        self.key = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if tag == "a" and "ov-bar" in cls:
            k = a["href"].split("-")[-1]
            op = [c[3:] for c in cls if c.startswith("op-")] or ["?"]
            print("bar", k, a.get("data-sector"), op[0], pct(a, "left"), pct(a, "width"))
            if "sel" in cls:
                print("sel", k)
        elif tag == "details":
            self.sector = a.get("data-sector")
            print("bio", a["id"].split("-")[-1], self.sector, int("open" in a),
                  int("sel" in cls))
        elif "tick" in cls and self.sector is None:	# the overview's, above the bios
            self.text = [tag, "tick", ""]
        elif tag == "span" and "item" in cls:
            self.key.append(a.get("data-key") or "?")
        elif self.sector is None:
            pass
        elif "span" in cls:
            print("span", self.sector, pct(a, "width"))
        elif "seg" in cls:
            m = re.match(r"\w+ ([0-9.]+) us", a.get("title") or "")
            print("phase", self.sector, a.get("data-phase"), m.group(1) if m else "?")
        elif tag == "td" and "dur" in cls:
            self.text = [tag, "dur", "", int("gap" in cls)]

    def handle_data(self, data):
        if self.text:
            self.text[2] += data

    def handle_endtag(self, tag):
        if tag == "details":
            self.sector = None
        if not self.text or self.text[0] != tag:
            return
        t = self.text[2].strip()
        if self.text[1] == "tick":
            self.axis.append(t)
        else:
            print("dur", self.sector, re.sub(r" us$", "", t) or "-", self.text[3])
        self.text = None


p = Page()
p.feed(open(sys.argv[1], encoding="utf-8").read())
print("axis", "|".join(p.axis))
print("key", " ".join(p.key))
