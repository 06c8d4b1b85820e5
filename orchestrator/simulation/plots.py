"""Result plots of simulation runs, drawn on the server as SVG (no script, no CDN).

Every plot is one kind of chart: horizontal bars, one row per category, one bar per run in the
row, so a single run and two runs side by side are drawn the same way. The text goes through
`html.escape`; the markup is safe to mark safe.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import Any

from orchestrator.engine.simulation.summary import PLANNER_BUCKETS

COLOURS = ("#1f6feb", "#d4731c")  # first run, second run
WIDTH, LABEL, BAR, GAP = 620, 170, 16, 10


@dataclass(frozen=True)
class Series:
    name: str
    values: list[float]


def bar_chart(title: str, categories: list[str], series: list[Series], unit: str = "", top: float | None = None,
              caption: str = "") -> str:
    if not categories:
        return f'<p class="muted">{escape(title)}: nothing to show.</p>'
    top = top or max((v for s in series for v in s.values), default=0) or 1
    row = BAR * len(series) + GAP
    height = row * len(categories) + 30 + (18 if len(series) > 1 else 0)
    room = WIDTH - LABEL - 70
    parts = [f'<svg role="img" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" '
             f'xmlns="http://www.w3.org/2000/svg"><title>{escape(title)}</title>']
    summary = "; ".join(f"{c}: " + ", ".join(f"{_fmt(s.values[i])}{unit}" for s in series)
                        for i, c in enumerate(categories))
    parts.append(f"<desc>{escape(summary)}</desc>")
    for i, category in enumerate(categories):
        y = 8 + i * row
        parts.append(f'<text x="{LABEL - 8}" y="{y + BAR * len(series) / 2 + 4:.0f}" text-anchor="end" '
                     f'font-size="12" font-family="monospace" fill="#1b1f24">{escape(category)}</text>')
        for j, one in enumerate(series):
            value = one.values[i]
            length = max(0.0, room * value / top)
            by = y + j * BAR
            parts.append(f'<rect x="{LABEL}" y="{by}" width="{length:.1f}" height="{BAR - 3}" rx="2" '
                         f'fill="{COLOURS[j % len(COLOURS)]}"><title>{escape(one.name)}: {_fmt(value)}{unit}'
                         f'</title></rect>')
            parts.append(f'<text x="{LABEL + length + 5:.1f}" y="{by + BAR - 5}" font-size="11" '
                         f'fill="#1b1f24">{_fmt(value)}{escape(unit)}</text>')
    if len(series) > 1:
        ly = height - 12
        for j, one in enumerate(series):
            x = LABEL + j * 200
            parts.append(f'<rect x="{x}" y="{ly - 9}" width="10" height="10" fill="{COLOURS[j % len(COLOURS)]}"/>'
                         f'<text x="{x + 14}" y="{ly}" font-size="11" fill="#1b1f24">{escape(one.name)}</text>')
    parts.append("</svg>")
    figure = "".join(parts)
    caption_html = f"<figcaption>{escape(caption)}</figcaption>" if caption else ""
    return f'<figure class="chart">{figure}{caption_html}</figure>'


def _fmt(value: float) -> str:
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.1f}"


def _histogram_rows(histograms: list[dict[str, int]], conversations: list[int]) -> tuple[list[str], list[list[float]]]:
    """Shares (percent of conversations) per value, over the union of values seen in every run."""
    keys = sorted({int(k) for h in histograms for k in h})
    values = [[round(100 * h.get(str(k), 0) / max(n, 1), 1) for k in keys] for h, n in zip(histograms, conversations,
                                                                                         strict=True)]
    return [str(k) for k in keys], values


def run_plots(runs: list[tuple[str, dict[str, Any]]]) -> list[dict[str, str]]:
    """The result plots of one run, or of two side by side: [{"title", "svg"}]."""
    names = [name for name, _ in runs]
    summaries = [summary for _, summary in runs]
    plots: list[dict[str, str]] = []

    intents = sorted({i for s in summaries for i in s["per_intent"]})
    success = [Series(n, [100 * s["per_intent"].get(i, {}).get("success_rate", 0) for i in intents])
               for n, s in zip(names, summaries, strict=True)]
    plots.append({"title": "Goal success per intent",
                  "svg": bar_chart("Goal success per intent", intents, success, unit="%", top=100,
                                   caption="Share of the conversations asking for each intent that reached it.")})
    for key, title, what in (("turns", "Turns per conversation", "user messages"),
                             ("questions", "Questions asked", "questions for a value"),
                             ("replans", "Replans", "plans given up for another"),
                             ("consents", "Consent prompts", "consent prompts")):
        labels, values = _histogram_rows([s[key]["histogram"] for s in summaries],
                                         [s["conversations"] for s in summaries])
        series = [Series(n, v) for n, v in zip(names, values, strict=True)]
        means = ", ".join(f"{n}: {s[key]['mean']:.2f}" for n, s in zip(names, summaries, strict=True))
        plots.append({"title": title, "svg": bar_chart(
            title, labels, series, unit="%", caption=f"Share of conversations by number of {what} (mean {means}).")})
    skills = sorted({k for s in summaries for k in s["skills"]})
    failures = [Series(n, [s["skills"].get(k, {}).get("failures", 0) for k in skills])
                for n, s in zip(names, summaries, strict=True)]
    plots.append({"title": "Failures per skill", "svg": bar_chart(
        "Failures per skill", skills, failures,
        caption="Calls that gave none of the outputs expected: errors, rejections, empty outcomes.")})
    buckets = [str(b) for b in PLANNER_BUCKETS]
    labels = [f"≥ {b} ms" for b in buckets]
    planner = [Series(n, [round(100 * s["planner_ms"]["histogram"].get(b, 0) / max(s["planner_ms"]["turns"], 1), 1)
                          for b in buckets]) for n, s in zip(names, summaries, strict=True)]
    keep = [i for i in range(len(buckets)) if any(p.values[i] for p in planner)]
    medians = ", ".join(f"{n}: median {s['planner_ms']['median']:.2f} ms, p95 {s['planner_ms']['p95']:.2f} ms"
                        for n, s in zip(names, summaries, strict=True))
    plots.append({"title": "Planner time per turn", "svg": bar_chart(
        "Planner time per turn", [labels[i] for i in keep], [Series(p.name, [p.values[i] for i in keep])
                                                              for p in planner],
        unit="%", caption=f"Share of turns by time spent planning ({medians}).")})
    return plots
