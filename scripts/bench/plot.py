#!/usr/bin/env python3
"""Plot latency and throughput against concurrency as an SVG.

usage: scripts/bench/plot.py RESULTS_DIR OUTPUT.svg

Reads curve_<c>.json (email-mcp-bench compare results: MCP and raw
alternately at c clients) from RESULTS_DIR. Left panel: p50 (solid) and p95 (dashed)
latency in ms; right panel: successful calls per second. The x axis is the
number of concurrent clients on a log2 scale. Python 3 standard library
only: the SVG is written by hand.
"""

import glob
import json
import math
import os
import re
import sys

W, H = 920, 380
PANEL_W, PANEL_H = 360, 260
MARGIN_L, MARGIN_T = 70, 50
GAP = 100
SERIES = {"mcp": ("#1f77b4", "email-mcp (MCP, pool 3)"), "raw": ("#d62728", "raw go-imap (3 connections)")}


def load(results):
    """Return {side: {c: summary}} from the curve_<c>.json comparisons that
    did not fail."""
    data = {"mcp": {}, "raw": {}}
    for path in glob.glob(os.path.join(results, "curve_*.json")):
        m = re.search(r"curve_(\d+)\.json$", path)
        if not m:
            continue
        with open(path) as f:
            cmp = json.load(f)
        if cmp.get("failed"):
            continue
        for side in data:
            data[side][int(m.group(1))] = cmp[side]
    return data


def nice_max(v):
    """A round number at or above v for the top of an axis."""
    if v <= 0:
        return 1
    exp = 10 ** math.floor(math.log10(v))
    for step in (1, 2, 2.5, 5, 10):
        if v <= step * exp:
            return step * exp
    return 10 * exp


def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class Panel:
    """One chart: x is log2(concurrency), y is linear from 0."""

    def __init__(self, x0, title, ylabel, cs, ymax):
        self.x0, self.title, self.ylabel = x0, title, ylabel
        self.cs, self.ymax = cs, nice_max(ymax)
        self.lo, self.hi = math.log2(min(cs)), math.log2(max(cs))

    def px(self, c):
        span = (self.hi - self.lo) or 1
        return self.x0 + (math.log2(c) - self.lo) / span * PANEL_W

    def py(self, v):
        return MARGIN_T + PANEL_H - v / self.ymax * PANEL_H

    def axes(self):
        out = ['<text x="%d" y="%d" font-size="14" font-weight="bold">%s</text>' % (self.x0, MARGIN_T - 18, esc(self.title))]
        for i in range(6):
            v = self.ymax * i / 5
            y = self.py(v)
            out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>' % (self.x0, y, self.x0 + PANEL_W, y))
            out.append('<text x="%d" y="%.1f" font-size="11" text-anchor="end">%g</text>' % (self.x0 - 6, y + 4, round(v, 2)))
        for c in self.cs:
            x = self.px(c)
            out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#eee"/>' % (x, MARGIN_T, x, MARGIN_T + PANEL_H))
            out.append('<text x="%.1f" y="%d" font-size="11" text-anchor="middle">%d</text>' % (x, MARGIN_T + PANEL_H + 16, c))
        out.append('<text x="%.1f" y="%d" font-size="12" text-anchor="middle">concurrent clients</text>'
                   % (self.x0 + PANEL_W / 2, MARGIN_T + PANEL_H + 34))
        out.append('<text x="%d" y="%d" font-size="12" text-anchor="middle" transform="rotate(-90 %d %d)">%s</text>'
                   % (self.x0 - 48, MARGIN_T + PANEL_H // 2, self.x0 - 48, MARGIN_T + PANEL_H // 2, esc(self.ylabel)))
        out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#999"/>' % (self.x0, MARGIN_T, PANEL_W, PANEL_H))
        return out

    def line(self, points, color, dashed=False):
        if not points:
            return []
        d = " ".join("%.1f,%.1f" % (self.px(c), self.py(v)) for c, v in points)
        dash = ' stroke-dasharray="6 4"' if dashed else ""
        out = ['<polyline points="%s" fill="none" stroke="%s" stroke-width="2"%s/>' % (d, color, dash)]
        out += ['<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>' % (self.px(c), self.py(v), color) for c, v in points]
        return out


def svg(data):
    cs = sorted(set(data["mcp"]) | set(data["raw"]))
    if not cs:
        return None
    lat = lambda s, k: s["latency_ms"][k]
    ymax_lat = max(lat(s, "p95") for side in data.values() for s in side.values())
    ymax_tp = max(s["throughput_per_s"] for side in data.values() for s in side.values())
    left = Panel(MARGIN_L, "Latency of search_emails (limit 50), 10,000 messages", "ms (solid p50, dashed p95)", cs, ymax_lat)
    right = Panel(MARGIN_L + PANEL_W + GAP, "Throughput", "successful calls per second", cs, ymax_tp)
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif">' % (W, H),
           '<rect width="100%" height="100%" fill="white"/>']
    out += left.axes() + right.axes()
    for side, (color, _) in SERIES.items():
        pts = sorted(data[side].items())
        out += left.line([(c, lat(s, "p50")) for c, s in pts], color)
        out += left.line([(c, lat(s, "p95")) for c, s in pts], color, dashed=True)
        out += right.line([(c, s["throughput_per_s"]) for c, s in pts], color)
    for i, (side, (color, label)) in enumerate(SERIES.items()):
        x = MARGIN_L + i * 300
        out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="3"/>' % (x, H - 14, x + 24, H - 14, color))
        out.append('<text x="%d" y="%d" font-size="12">%s</text>' % (x + 30, H - 10, esc(label)))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        sys.exit(2)
    doc = svg(load(sys.argv[1]))
    if doc is None:
        print("plot.py: no curve_*.json results", file=sys.stderr)
        sys.exit(1)
    with open(sys.argv[2], "w") as f:
        f.write(doc)


if __name__ == "__main__":
    main()
