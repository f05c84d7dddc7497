#!/usr/bin/env python3
"""Checks the first screen of an HTML report: a headless-Chromium screenshot
(PNG) and the DOM it dumped after the page script ran, both at the same
window size.

usage: check_first_screen.py DOM.html SCREENSHOT.png [--height 1000]
       [--mode density|ops] [--max-bytes N --page PAGE.html]

Asserts:
- the page script ran (<body data-render-ok="1">);
- every stream row and API-call row of the timeline lies inside the first
  HEIGHT pixels (the page's data-tl-top plus the row's y and height);
- each of those rows with items in the opening view is non-empty in the
  screenshot: its band holds pixels other than the row backgrounds;
- the time axis labels (text.tick) are at least 3 and all distinct;
- with --mode, every stream row is drawn that way (data-mode);
- with --max-bytes, PAGE.html is at most N bytes;
- with --hover, the hover texts a test script wrote into <body
  data-hover-texts> (JSON: per data row with an item in view, what hovering
  its first item shows) are there, an op's naming its stream, correlation
  id and submitting call, a call's naming its thread.
The PNG is read with zlib only (8-bit RGB/RGBA, not interlaced).
Prints one line of figures; exits 1 with reasons on failure.
"""
import argparse
import json
import os
import struct
import sys
import zlib
from html.parser import HTMLParser


def read_png(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise ValueError("unsupported PNG (depth %d, colour type %d)" % (depth, ctype))
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride = zlib.decompress(idat), width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


class Dom(HTMLParser):
    def __init__(self):
        super().__init__()
        self.body, self.rows, self.ticks, self.data, self.view = {}, {}, [], "", None
        self._in = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body":
            self.body = a
        if tag == "svg" and a.get("id") == "tl-svg":
            x0, _, w, _ = (float(v) for v in (a.get("viewbox") or a.get("viewBox")).split())
            self.view = (x0 * 1000, (x0 + w) * 1000)  # ns from the drawn window's start
        if tag == "g" and "data-row" in a:
            self.rows[int(a["data-row"])] = a
        if tag == "text" and "tick" in (a.get("class") or "").split():
            self._in = "tick"
            self.ticks.append("")
        if tag == "script" and a.get("id") == "tl-data":
            self._in = "data"

    def handle_endtag(self, tag):
        if tag in ("text", "script"):
            self._in = None

    def handle_data(self, d):
        if self._in == "tick":
            self.ticks[-1] += d
        elif self._in == "data":
            self.data += d


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dom")
    p.add_argument("png")
    p.add_argument("--height", type=int, default=1000)
    p.add_argument("--mode", choices=["density", "ops"])
    p.add_argument("--max-bytes", type=int, default=-1)
    p.add_argument("--page", default="")
    p.add_argument("--hover", action="store_true")
    args = p.parse_args()
    dom = Dom()
    with open(args.dom, encoding="utf-8", errors="replace") as f:
        dom.feed(f.read())
    failures = []
    if dom.body.get("data-render-ok") != "1":
        failures.append("the page script did not finish: %r" % dom.body.get("data-render-error"))
        print("\n".join("FAIL: " + x for x in failures))
        return 1
    top, left, tl_width = (int(dom.body["data-tl-" + k]) for k in ("top", "left", "width"))
    data = json.loads(dom.data)
    width, height, bpp, png = read_png(args.png)

    # Pixels of the drawing area that are neither row background: shapes
    # (a one-pixel op blends into its neighbours, so exact palette colours
    # are not required; the palette's own test keeps its colours apart).
    backgrounds = [(255, 255, 255), (0xf4, 0xf6, 0xf9), (0xe6, 0xea, 0xf0)]

    def coloured_pixels(y0, y1):
        n = 0
        for y in range(max(0, y0), min(height, y1)):
            line = png[y]
            for x in range(max(0, left), min(width, left + tl_width)):
                px = line[x * bpp:x * bpp + 3]
                if all(abs(px[0] - c[0]) + abs(px[1] - c[1]) + abs(px[2] - c[2]) > 24 for c in backgrounds):
                    n += 1
        return n

    checked = []
    for idx, attrs in sorted(dom.rows.items()):
        row = data["rows"][idx]
        if row["k"] not in ("op", "api"):
            continue
        y0, y1 = top + int(row["y"]), top + int(row["y"] + row["h"])
        name = row["l"]
        if y1 > args.height:
            failures.append("row '%s' ends at pixel %d, below the first screen (%d)" % (name, y1, args.height))
            continue
        n = coloured_pixels(y0, y1)
        checked.append("%s: %d px, %s" % (name, n, attrs.get("data-mode")))
        start, in_view = 0, False
        for delta, length in zip(row["s"], row["d"]):
            start += delta
            in_view |= start < dom.view[1] and start + length >= dom.view[0]
        if not in_view:
            checked[-1] += " (nothing in the view)"
            continue
        if n < 6:
            failures.append("row '%s' is empty in the screenshot (%d coloured pixels in rows %d..%d)" % (name, n, y0, y1))
        if args.mode and row["k"] == "op" and attrs.get("data-mode") != args.mode:
            failures.append("row '%s' is drawn as %s, expected %s" % (name, attrs.get("data-mode"), args.mode))
    if not checked:
        failures.append("no stream or API-call row on the first screen")
    if len(dom.ticks) < 3:
        failures.append("%d axis labels, expected at least 3" % len(dom.ticks))
    if len(set(dom.ticks)) != len(dom.ticks):
        failures.append("axis labels repeat: %s" % dom.ticks)
    if args.hover:
        texts = json.loads(dom.body.get("data-hover-texts") or "[]")
        if not texts or any(not t for t in texts):
            failures.append("hover texts missing or empty: %r" % texts)
        ops = [t for t in texts if "(stream " in t]
        calls = [t for t in texts if "(thread " in t and "(stream " not in t]
        if not any("correlation" in t and "submitted by call" in t for t in ops):
            failures.append("no op hover text names its correlation id and submitting call: %r" % ops)
        if not calls:
            failures.append("no API-call hover text: %r" % texts)
        checked.append("hover: %r" % texts[:2])
    size = os.path.getsize(args.page) if args.page else -1
    if args.max_bytes >= 0 and size > args.max_bytes:
        failures.append("the page is %d bytes, more than %d" % (size, args.max_bytes))
    print("first screen %s: timeline at y=%d; rows: %s; ticks: %s%s" % (
        args.png, top, "; ".join(checked), ", ".join(dom.ticks), "; page %d bytes" % size if size >= 0 else ""))
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
