#!/usr/bin/env python3
"""Checks the DOM of an HTML report as headless Chromium dumped it.

usage: check_report_dom.py DOM.html [--streams 13,14,15] [--min-overlap N]
       [--min-ops N] [--min-marks N] [--min-stream-rows N] [--max-overlap N]
       [--console LOG] [--min-gpu-view-share F] [--primary-text TEXT]
       [--view-ns START,END]

Asserts: the page script finished (<body data-render-ok="1">, no
data-render-error), the timeline has a row (g.stream-row) for each expected
stream with ops in it, at least N overlap marks (rect.ovl), op rects and hidden-sync markers
(line.mark),
and, with --console, that Chromium logged no uncaught script error.
--min-gpu-view-share F: the GPU ops (from the first op rect's start to the
last one's end) cover at least F of the timeline's opening view (the svg's
viewBox after the script ran). --primary-text: the primary finding of the
diagnosis (li.finding.primary) contains TEXT. --view-ns: the page opened on
the window [START, END) ns (data-view-start-ns/-end-ns).
Prints one line of counts; exits 1 with a reason on failure.
"""
import argparse
import sys
from html.parser import HTMLParser


class Counter(HTMLParser):
    def __init__(self):
        super().__init__()
        self.body = None
        self.stream_stack = []
        self.ops_per_stream = {}
        self.stream_rows = set()
        self.ovl = 0
        self.gaps = 0
        self.marks = 0
        self.ops = 0
        self.depth_g = 0
        self.svg = None
        self.op_lo = None
        self.op_hi = None
        self.in_primary = 0
        self.primary_text = ""

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if tag == "body":
            self.body = a
        if tag == "svg" and a.get("id") == "tl-svg":
            self.svg = a
        if tag == "li" and "primary" in cls:
            self.in_primary = 1
        elif self.in_primary and tag == "li":
            self.in_primary += 1
        if tag == "g":
            self.depth_g += 1
            if "stream-row" in cls:
                key = (a.get("data-timeline"), a.get("data-stream"))
                self.stream_rows.add(key)
                self.stream_stack.append((self.depth_g, a.get("data-stream")))
        if tag == "rect":
            if "op" in cls:
                self.ops += 1
                try:
                    x, w = float(a.get("x", "0")), float(a.get("width", "0"))
                    self.op_lo = x if self.op_lo is None else min(self.op_lo, x)
                    self.op_hi = x + w if self.op_hi is None else max(self.op_hi, x + w)
                except ValueError:
                    pass
                if self.stream_stack:
                    s = self.stream_stack[-1][1]
                    self.ops_per_stream[s] = self.ops_per_stream.get(s, 0) + 1
            if "ovl" in cls:
                self.ovl += 1
            if "gap" in cls:
                self.gaps += 1
        if tag == "line" and "mark" in cls:
            self.marks += 1

    def handle_data(self, data):
        if self.in_primary:
            self.primary_text += data

    def handle_endtag(self, tag):
        if tag == "li" and self.in_primary:
            self.in_primary -= 1
        if tag == "g":
            if self.stream_stack and self.stream_stack[-1][0] == self.depth_g:
                self.stream_stack.pop()
            self.depth_g -= 1


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dom")
    p.add_argument("--streams", default="")
    p.add_argument("--min-overlap", type=int, default=0)
    p.add_argument("--min-ops", type=int, default=1)
    p.add_argument("--min-marks", type=int, default=0)
    p.add_argument("--min-stream-rows", type=int, default=0)
    p.add_argument("--max-overlap", type=int, default=-1)
    p.add_argument("--console", default="")
    p.add_argument("--min-gpu-view-share", type=float, default=-1)
    p.add_argument("--primary-text", default="")
    p.add_argument("--view-ns", default="")
    args = p.parse_args()
    c = Counter()
    with open(args.dom, encoding="utf-8", errors="replace") as f:
        c.feed(f.read())
    failures = []
    if c.body is None:
        failures.append("no <body> in the dumped DOM")
    else:
        if c.body.get("data-render-error"):
            failures.append("script error: " + c.body["data-render-error"])
        if c.body.get("data-render-ok") != "1":
            failures.append("the page script did not finish (data-render-ok=%r)" % c.body.get("data-render-ok"))
    for s in [x for x in args.streams.split(",") if x]:
        if c.ops_per_stream.get(s, 0) == 0:
            failures.append("no ops drawn in a row for stream %s (rows: %s)" % (s, sorted(c.ops_per_stream)))
    if c.ovl < args.min_overlap:
        failures.append("%d overlap marks, expected at least %d" % (c.ovl, args.min_overlap))
    busy_rows = len([s for s, n in c.ops_per_stream.items() if n > 0])
    if busy_rows < args.min_stream_rows:
        failures.append("%d streams with ops drawn, expected at least %d" % (busy_rows, args.min_stream_rows))
    if args.max_overlap >= 0 and c.ovl > args.max_overlap:
        failures.append("%d overlap marks, expected at most %d" % (c.ovl, args.max_overlap))
    if c.marks < args.min_marks:
        failures.append("%d hidden-sync markers, expected at least %d" % (c.marks, args.min_marks))
    if c.ops < args.min_ops:
        failures.append("%d op rects, expected at least %d" % (c.ops, args.min_ops))
    gpu_share = None
    if args.min_gpu_view_share >= 0:
        box = (c.svg or {}).get("viewbox") or (c.svg or {}).get("viewBox") or ""
        parts = box.split()
        if len(parts) != 4 or c.op_lo is None:
            failures.append("no timeline view (viewBox %r) or no op rects" % box)
        else:
            x0, w = float(parts[0]), float(parts[2])
            lo, hi = max(x0, c.op_lo), min(x0 + w, c.op_hi)
            gpu_share = max(0.0, hi - lo) / w if w > 0 else 0.0
            if gpu_share < args.min_gpu_view_share:
                failures.append("the GPU ops span %.1f%% of the opening view [%g, %g] us, expected at least %.0f%%"
                                % (100 * gpu_share, x0, x0 + w, 100 * args.min_gpu_view_share))
    if args.primary_text and args.primary_text not in c.primary_text:
        failures.append("the primary finding does not say %r: %r" % (args.primary_text, c.primary_text.strip()[:300]))
    if args.view_ns:
        want = args.view_ns
        got = "%s,%s" % ((c.svg or {}).get("data-view-start-ns"), (c.svg or {}).get("data-view-end-ns"))
        if got != want:
            failures.append("the page opened on [%s) ns, the report's window is [%s) ns" % (got, want))
    if args.console:
        with open(args.console, encoding="utf-8", errors="replace") as f:
            for line in f:
                if "Uncaught" in line or ("CONSOLE" in line and "error" in line.lower()):
                    failures.append("console: " + line.strip())
    print("dom %s: %d op rects, streams %s, %d overlap marks, %d gap rects, %d markers%s"
          % (args.dom, c.ops, dict(sorted(c.ops_per_stream.items())), c.ovl, c.gaps, c.marks,
             "" if gpu_share is None else ", GPU ops span %.1f%% of the opening view" % (100 * gpu_share)))
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
