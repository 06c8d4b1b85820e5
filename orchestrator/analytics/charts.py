"""The analytics page's plots, drawn with the project's one chart (`orchestrator.charts`)."""

from __future__ import annotations

from typing import Any

from orchestrator.analytics.selectors import Report
from orchestrator.charts import Series, bar_chart


def analytics_charts(report: Report) -> dict[str, dict[str, Any]]:
    days = [b.start.isoformat() for b in report.timeline]
    per = f"per {report.unit} (the {report.unit} a conversation started)"
    return {
        "timeline": bar_chart(
            f"Conversations and goals reached {per}", days,
            [Series("conversations", [b.conversations for b in report.timeline]),
             Series("goal reached", [b.reached for b in report.timeline])],
            empty="No conversation in this period.", chart_id="chart-timeline"),
        "modes": bar_chart(
            f"Orchestrator {per}", days,
            [Series("planner", [b.planner for b in report.timeline]),
             Series("S3", [b.s3 for b in report.timeline])],
            empty="No conversation in this period.", chart_id="chart-modes",
            caption="Conversations from before the orchestrator was recorded count in neither bar."),
        "last_question": bar_chart(
            "Conversations without a goal, by the last question asked",
            [label for label, _ in report.unfinished.last_question],
            [Series("conversations", [n for _, n in report.unfinished.last_question])],
            empty="Every conversation reached a goal.", chart_id="chart-last-question"),
        "failed_skill": bar_chart(
            "Conversations without a goal, by the last skill that failed",
            [label for label, _ in report.unfinished.failed_skill],
            [Series("conversations", [n for _, n in report.unfinished.failed_skill])],
            empty="Every conversation reached a goal.", chart_id="chart-failed-skill"),
        "latency": bar_chart(
            "Turns by the time taken to answer", [label for label, _ in report.latency.buckets],
            [Series("turns", [n for _, n in report.latency.buckets])],
            empty="No turn time recorded in this period.", chart_id="chart-latency"),
    }
