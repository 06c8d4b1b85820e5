"""Presenting a trajectory analysis report (the plain data of `trajectory_io.report_to_data`):
figures, the failures-per-tool chart, and the standalone HTML page, for the pages and the CLI.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.template.loader import render_to_string

CHART_BARS = 12
TROUBLED_SHOWN = 100  # sequences whose diffs the studio page shows; the downloads have them all


def report_context(report: dict[str, Any]) -> dict[str, Any]:
    troubled = report["troubled"]
    figures = {
        "pass_percent": round(100 * report["pass_rate"], 1),
        "compression_percent": round(100 * report["compression_rate"], 1),
        "removed": report["calls"] - report["compressed_calls"],
        "troubled_shown": troubled[:TROUBLED_SHOWN],
        "troubled_more": max(0, len(troubled) - TROUBLED_SHOWN),
    }
    return {
        "report": report,
        "figures": figures,
        "troubled": [report["sequences"][i] for i in troubled[:TROUBLED_SHOWN]],
        "tools": _by_count(report["failures_per_tool"]),
        "kinds": _by_count(report["errors_per_type"]),
        "chart": failure_chart(report["failures_per_tool"]),
    }


def _by_count(counts: dict[str, int]) -> list[tuple[str, int]]:
    # Stored as JSONB, a dict comes back in PostgreSQL's key order, not the report's.
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


def failure_chart(failures: dict[str, int], limit: int = CHART_BARS) -> dict[str, Any]:
    """Geometry of a horizontal bar chart of failures per tool, drawn as inline SVG."""
    items = _by_count(failures)[:limit]
    top = max((count for _, count in items), default=0) or 1
    label, area, row = 230, 340, 28
    bars = [
        {"name": name if len(name) <= 30 else f"{name[:29]}…", "full_name": name, "count": count,
         "y": i * row + 4, "text_y": i * row + 20, "width": max(2, round(area * count / top))}
        for i, (name, count) in enumerate(items)
    ]
    return {"bars": bars, "label_width": label, "width": label + area + 50, "height": len(items) * row + 8,
            "more": max(0, len(failures) - limit)}


def report_html(*, report: dict[str, Any], title: str, source: str, finished_at: datetime | None) -> str:
    """The whole report as one standalone HTML page (styles inline), to keep or send around."""
    context = {**report_context(report), "title": title, "source": source, "finished_at": finished_at}
    return render_to_string("orchestrator/analysis_report.html", context)
