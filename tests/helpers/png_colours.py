#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# png_colours.py FILE: print how many colours an 8-bit RGB(A) PNG holds,
# as Chromium's screenshots are. A blank page has one; a rendered page
# dozens. Standard library only: inflate the IDAT chunks, undo each
# row's filter (PNG spec, section 9), count the distinct RGB values.
import struct
import sys
import zlib

b = open(sys.argv[1], "rb").read()
assert b[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat = 8, b""
while pos < len(b):
    n, kind = struct.unpack(">I4s", b[pos:pos + 8])
    data = b[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", data[:10])
    elif kind == b"IDAT":
        idat += data
    pos += 12 + n
assert depth == 8 and ctype in (2, 6), (depth, ctype)
bpp = 3 if ctype == 2 else 4
raw, stride = zlib.decompress(idat), w * bpp
prev, seen, i = bytearray(stride), set(), 0
for y in range(h):
    f, row = raw[i], bytearray(raw[i + 1:i + 1 + stride])
    i += 1 + stride
    for x in range(stride):
        a = row[x - bpp] if x >= bpp else 0
        up = prev[x]
        c = prev[x - bpp] if x >= bpp else 0
        if f == 1:
            row[x] = (row[x] + a) & 255
        elif f == 2:
            row[x] = (row[x] + up) & 255
        elif f == 3:
            row[x] = (row[x] + (a + up) // 2) & 255
        elif f == 4:
            p = a + up - c
            pa, pb, pc = abs(p - a), abs(p - up), abs(p - c)
            row[x] = (row[x] + (a if pa <= pb and pa <= pc else up if pb <= pc else c)) & 255
    for x in range(0, stride, bpp):
        seen.add(bytes(row[x:x + 3]))
    prev = row
print(len(seen))
