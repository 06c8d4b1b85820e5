"""Presenting a trajectory analysis report (the plain data of `trajectory_io.report_to_data`):
figures, the failures-per-tool chart, and the standalone HTML page, for the pages and the CLI.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.template.defaultfilters import pluralize
from django.template.loader import render_to_string

from orchestrator.charts import Series, bar_chart

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
    """Failures per tool, the most first, as a bar chart (`chart.html`)."""
    items = _by_count(failures)[:limit]
    more = max(0, len(failures) - limit)
    caption = "Calls with at least one error, per tool" + (f" (and {more} more tool{pluralize(more)})" if more else "")
    return bar_chart("Failures per tool", [name for name, _ in items], [Series("failures", [c for _, c in items])],
                     caption=caption + ".", empty="No call failed: nothing to chart.", colours=("#a40e26",),
                     chart_id="chart")


def report_html(*, report: dict[str, Any], title: str, source: str, finished_at: datetime | None) -> str:
    """The whole report as one standalone HTML page (styles inline), to keep or send around."""
    context = {**report_context(report), "title": title, "source": source, "finished_at": finished_at}
    return render_to_string("orchestrator/analysis_report.html", context)
