"""Horizontal bar charts drawn on the server as SVG (no script, no CDN), for every page that plots.

One kind of chart: one row per category, one bar per series in the row, so a single run, two runs side
by side and the failures of an analysis are drawn the same way. This module computes the geometry;
`templates/orchestrator/chart.html` draws it, escaping every name as any template does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

COLOURS = ("#1f6feb", "#d4731c")  # first series, second series
WIDTH, BAR, GAP = 640, 20, 10
LABEL_CHARS = 30  # longer category names are cut (the whole name stays in the chart's description)
CHAR_WIDTH = 8  # of the 13 px monospace labels


@dataclass(frozen=True)
class Series:
    name: str
    values: list[float]


def bar_chart(title: str, categories: list[str], series: list[Series], *, unit: str = "", top: float | None = None,
              caption: str = "", empty: str = "", colours: tuple[str, ...] = COLOURS,
              chart_id: str = "") -> dict[str, Any]:
    """The geometry of a chart for `chart.html`; `empty` is what it says when there is no category."""
    top = top or max((v for s in series for v in s.values), default=0) or 1
    label_width = min(LABEL_CHARS, max((len(c) for c in categories), default=0)) * CHAR_WIDTH + 16
    room = WIDTH - label_width - 70
    row = BAR * len(series) + GAP
    rows = []
    for i, category in enumerate(categories):
        y = 8 + i * row
        bars = []
        for j, one in enumerate(series):
            length = max(0.0, room * one.values[i] / top)
            by = y + j * BAR
            bars.append({"y": by, "width": round(length, 1), "colour": colours[j % len(colours)], "name": one.name,
                         "value": f"{_fmt(one.values[i])}{unit}", "text_x": round(label_width + length + 5, 1),
                         "text_y": by + BAR - 6})
        shown = category if len(category) <= LABEL_CHARS else f"{category[:LABEL_CHARS - 1]}…"
        rows.append({"label": shown, "text_y": round(y + BAR * len(series) / 2 + 5), "bars": bars})
    legend_height = 22 if len(series) > 1 else 0
    height = row * len(categories) + 16 + legend_height
    legend = [{"x": label_width + j * 200, "y": height - 14, "colour": colours[j % len(colours)], "name": one.name}
              for j, one in enumerate(series)] if legend_height else []
    desc = "; ".join(f"{c}: " + ", ".join(f"{_fmt(s.values[i])}{unit}" for s in series)
                     for i, c in enumerate(categories))
    return {"id": chart_id, "title": title, "desc": desc, "rows": rows, "legend": legend, "caption": caption,
            "empty": empty or f"{title}: nothing to show.", "width": WIDTH, "height": height,
            "label_width": label_width, "label_x": label_width - 8, "bar_height": BAR - 3}


def _fmt(value: float) -> str:
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.1f}"
