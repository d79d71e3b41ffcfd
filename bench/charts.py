#!/usr/bin/env python3
"""Draws BENCHMARKS.md's charts from the benchmarks' JSON results.

Reads target/bench-results/{e2e,fanout,fanout-delivery,profiles,peers}.json
(written by `cargo bench -p mcp-profiles-bench --bench e2e|fanout|profiles|peers`,
and `FANOUT_RELIST=0` for fanout-delivery) and writes
bench/charts/*.svg. Plain SVG, no plotting library: Python 3 alone.

    python3 bench/charts.py [--results target/bench-results] [--out bench/charts]

A chart whose results file is missing is skipped, saying so.
"""

import argparse
import json
import math
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OURS, THEIRS = "#d62728", "#1f77b4"
FONT = 'font-family="DejaVu Sans, Helvetica, Arial, sans-serif"'


def nice_ticks(low, high, count=5):
    """Round tick values covering [low, high]."""
    if high <= low:
        high = low + 1
    raw = (high - low) / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    start = math.floor(low / step) * step
    ticks, value = [], start
    while value <= high + step * 1e-9:
        ticks.append(round(value, 10))
        value += step
    if ticks[-1] < high:
        ticks.append(round(ticks[-1] + step, 10))
    return ticks


def fmt(value):
    if value == int(value):
        return f"{int(value):,}"
    return f"{value:g}"


class Panel:
    """One plot: series of (x, y) points, x linear or log2, y linear from 0
    or log10 (for values orders of magnitude apart)."""

    def __init__(self, title, x_label, y_label, log_x=False, log_y=False):
        self.title, self.x_label, self.y_label, self.log_x = title, x_label, y_label, log_x
        self.log_y = log_y
        self.series = []  # (label, colour, dashed, [(x, y)])

    def add(self, label, colour, points, dashed=False):
        if points:
            self.series.append((label, colour, dashed, sorted(points)))

    def svg(self, left, top, width, height):
        xs = sorted({x for *_, points in self.series for x, _ in points})
        y_max = max((y for *_, points in self.series for _, y in points), default=1)
        if self.log_y:
            y_min = min((y for *_, points in self.series for _, y in points if y > 0), default=1)
            lo, hi = math.floor(math.log10(y_min)), math.ceil(math.log10(y_max))
            hi = max(hi, lo + 1)
            y_ticks = [10.0 ** e for e in range(lo, hi + 1)]
        else:
            y_ticks = nice_ticks(0, y_max)
        y_top = y_ticks[-1]
        tx = (lambda x: math.log2(x)) if self.log_x else (lambda x: x)
        x_lo, x_hi = tx(xs[0]), tx(xs[-1])
        if x_hi == x_lo:
            x_lo, x_hi = x_lo - 1, x_hi + 1
        plot_l, plot_r = left + 62, left + width - 24
        plot_t, plot_b = top + 28, top + height - 42

        def px(x):
            return plot_l + (tx(x) - x_lo) / (x_hi - x_lo) * (plot_r - plot_l)

        def py(y):
            if self.log_y:
                share = (math.log10(max(y, y_ticks[0])) - lo) / (hi - lo)
                return plot_b - share * (plot_b - plot_t)
            return plot_b - y / y_top * (plot_b - plot_t)

        out = [f'<text x="{left + width / 2}" y="{top + 16}" text-anchor="middle" font-size="13" font-weight="bold" {FONT}>{self.title}</text>']
        for tick in y_ticks:
            y = py(tick)
            out.append(f'<line x1="{plot_l}" y1="{y:.1f}" x2="{plot_r}" y2="{y:.1f}" stroke="#e5e5e5"/>')
            out.append(f'<text x="{plot_l - 6}" y="{y + 4:.1f}" text-anchor="end" font-size="11" {FONT}>{fmt(tick)}</text>')
        for x in xs:
            out.append(f'<line x1="{px(x):.1f}" y1="{plot_b}" x2="{px(x):.1f}" y2="{plot_b + 4}" stroke="#333"/>')
            out.append(f'<text x="{px(x):.1f}" y="{plot_b + 17}" text-anchor="middle" font-size="11" {FONT}>{fmt(x)}</text>')
        out.append(f'<line x1="{plot_l}" y1="{plot_b}" x2="{plot_r}" y2="{plot_b}" stroke="#333"/>')
        out.append(f'<line x1="{plot_l}" y1="{plot_t}" x2="{plot_l}" y2="{plot_b}" stroke="#333"/>')
        out.append(f'<text x="{(plot_l + plot_r) / 2}" y="{plot_b + 34}" text-anchor="middle" font-size="11" {FONT}>{self.x_label}</text>')
        mid = (plot_t + plot_b) / 2
        out.append(f'<text x="{left + 14}" y="{mid}" text-anchor="middle" font-size="11" transform="rotate(-90 {left + 14} {mid})" {FONT}>{self.y_label}</text>')
        for label, colour, dashed, points in self.series:
            path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in points)
            dash = ' stroke-dasharray="5,4"' if dashed else ""
            out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"{dash}/>')
            for x, y in points:
                out.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3" fill="{colour}"><title>{label}: {y:.3g} at {fmt(x)}</title></circle>')
        return out


def figure(panels, columns, legend, caption, panel_size=(330, 250)):
    """An SVG document: panels in a grid, one shared legend, a caption."""
    width = panel_size[0] * columns
    rows = math.ceil(len(panels) / columns)
    legend_top = rows * panel_size[1] + 8
    height = legend_top + 24 * math.ceil(len(legend) / 2) + 30
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}">',
           f'<rect width="{width}" height="{height}" fill="white"/>']
    for index, panel in enumerate(panels):
        out += panel.svg((index % columns) * panel_size[0], (index // columns) * panel_size[1], *panel_size)
    for index, (label, colour, dashed) in enumerate(legend):
        x = 20 + (index % 2) * (width / 2)
        y = legend_top + 24 * (index // 2) + 10
        dash = ' stroke-dasharray="5,4"' if dashed else ""
        out.append(f'<line x1="{x}" y1="{y}" x2="{x + 28}" y2="{y}" stroke="{colour}" stroke-width="2"{dash}/>')
        out.append(f'<text x="{x + 36}" y="{y + 4}" font-size="12" {FONT}>{label}</text>')
    out.append(f'<text x="{width / 2}" y="{height - 10}" text-anchor="middle" font-size="11" fill="#555" {FONT}>{caption}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def load(results, name):
    path = os.path.join(results, f"{name}.json")
    if not os.path.exists(path):
        print(f"skipped {name}: no {path} (run `cargo bench -p mcp-profiles-bench --bench {name}`)", file=sys.stderr)
        return None
    with open(path) as f:
        return json.load(f)


SERVERS = (("profiled", "mcp-profiles", OURS), ("plain", "rmcp #[tool_handler]", THEIRS))


def latency_chart(results):
    """Latency against concurrent clients: one panel per (era, operation)."""
    cells = results["cells"]
    panels = []
    for era in sorted({c["era"] for c in cells}):
        for op in sorted({c["op"] for c in cells}):
            panel = Panel(f"{op}, {era}", "concurrent clients", "latency (ms)", log_x=True)
            mine = [c for c in cells if c["era"] == era and c["op"] == op]
            for key, label, colour in SERVERS:
                for quantile, dashed in (("p50_us", False), ("p99_us", True)):
                    points = [(c["clients"], c["servers"][key][quantile]["median"] / 1e3)
                              for c in mine if key in c["servers"]]
                    panel.add(f"{label} {quantile[:3]}", colour, points, dashed)
            panels.append(panel)
    legend = [(f"{label} {q}", colour, q == "p99") for q in ("p50", "p99") for _, label, colour in SERVERS]
    return figure(panels, 2, legend,
                  "streamable HTTP on 127.0.0.1, server in a child process; medians of interleaved rounds (bench/benches/e2e)")


def fanout_chart(results, delivery):
    """In process: the last notification heard (clients only counting) and
    the last re-list answered (clients re-listing), against sessions."""
    panels = []
    for data, measure, title in ((delivery, "heard_us", "last list_changed heard (delivery alone)"),
                                 (results, "relisted_us", "every session re-listed")):
        if data is None:
            continue
        cases = [c for c in data["cases"] if c["transport"] == "in-process"]
        panel = Panel(title, "sessions (in process)", "ms from the change")
        for side, colour in (("mcp-profiles", OURS), ("rmcp", THEIRS)):
            panel.add(side, colour, [(c["sessions"], c["sides"][side]["median_us"][measure] / 1e3) for c in cases])
        panels.append(panel)
    legend = [("mcp-profiles: one replace", OURS, False), ("rmcp: a router per session", THEIRS, False)]
    return figure(panels, 2, legend, "clients in the same process; medians of interleaved rounds (bench/benches/fanout)")


def replacement_chart(rows):
    """Replacement cost against registry size (needs the synthetic feature)."""
    rows = [r for r in rows if r["name"] == "replacement"]
    sizes = {r["size"] for r in rows}
    if len(sizes) < 2:
        print("skipped replacement-scaling: one registry size (run with --features synthetic)", file=sys.stderr)
        return None
    panel = Panel("replacement", "tools in the registry", "time per replacement (µs)")
    panel.add("mcp-profiles replace", OURS, sorted({(int(r["size"]), r["a_ns"] / 1e3) for r in rows}))
    for side, dashed in (("rmcp rebuild router", False), ("rmcp merge routers", True)):
        panel.add(side, THEIRS, [(int(r["size"]), r["b_ns"] / 1e3) for r in rows if r["b"] == side], dashed)
    legend = [("mcp-profiles replace", OURS, False), ("rmcp rebuild router", THEIRS, False), ("rmcp merge routers", THEIRS, True)]
    return figure([panel], 1, legend, "medians of interleaved batches (bench/benches/profiles.rs)", (560, 320))


PEERS = (("ours", "mcp-profiles", OURS), ("ts-sdk", "TypeScript SDK", THEIRS),
         ("ts-sdk-debounced", "TypeScript SDK, debounced", "#9467bd"),
         ("ts-sdk-low-level", "TypeScript SDK, low-level Server, cached list", "#ff7f0e"),
         ("fastmcp", "FastMCP", "#2ca02c"))


def peers_chart(results):
    """Ours against the TypeScript SDK and FastMCP: latency and throughput
    against clients, and switch -> re-listed against sessions."""
    load, switch = results["load"], results["switch"]
    if isinstance(load, dict):  # since the response-bytes report: {"cells", "bytes"}
        load = load["cells"]
    panels = []
    for op in ("tools/list", "tools/call"):
        panel = Panel(f"{op} latency", "concurrent clients", "latency (ms, log)", log_x=True, log_y=True)
        cells = [c for c in load if c["op"] == op]
        for key, label, colour in PEERS:
            for quantile, dashed in (("p50_us", False), ("p99_us", True)):
                points = [(c["clients"], c["servers"][key][quantile]["median"] / 1e3)
                          for c in cells if key in c["servers"]]
                panel.add(f"{label} {quantile[:3]}", colour, points, dashed)
        panels.append(panel)
    panel = Panel("throughput (list solid, call dashed)", "concurrent clients", "requests/s (log)",
                  log_x=True, log_y=True)
    for key, label, colour in PEERS:
        for op, dashed in (("tools/list", False), ("tools/call", True)):
            points = [(c["clients"], c["servers"][key]["rps"]["median"])
                      for c in load if c["op"] == op and key in c["servers"]]
            panel.add(f"{label} {op}", colour, points, dashed)
    panels.append(panel)
    panel = Panel("switch → every session re-listed", "sessions", "ms from the switch (log)",
                  log_x=True, log_y=True)
    for key, label, colour in PEERS:
        points = [(c["sessions"], c["servers"][key]["relisted_us"]["median"] / 1e3)
                  for c in switch if key in c["servers"] and c["servers"][key]["relisted_us"]]
        panel.add(label, colour, points)
    panels.append(panel)
    present = {k for c in load for k in c["servers"]} | {k for c in switch for k in c["servers"]}
    legend = [(label, colour, False) for key, label, colour in PEERS if key in present]
    legend.append(("p99 (latency panels)", "#777", True))
    return figure(panels, 2, legend,
                  "streamable HTTP on 127.0.0.1, 2025-11-25 sessions, servers in child processes; "
                  "medians of interleaved rounds (bench/benches/peers)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", default=os.path.join(ROOT, "target", "bench-results"))
    parser.add_argument("--out", default=os.path.join(ROOT, "bench", "charts"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    charts = [("e2e", "latency-vs-clients.svg", latency_chart),
              ("fanout", "fanout-vs-sessions.svg", fanout_chart),
              ("profiles", "replacement-scaling.svg", replacement_chart),
              ("peers", "peers.svg", peers_chart)]
    for name, file, draw in charts:
        results = load(args.results, name)
        if name == "fanout":
            svg = draw(results, load(args.results, "fanout-delivery")) if results else None
        else:
            svg = draw(results) if results else None
        if svg:
            path = os.path.join(args.out, file)
            with open(path, "w") as f:
                f.write(svg)
            print(f"wrote {os.path.relpath(path, ROOT)}")


if __name__ == "__main__":
    main()
