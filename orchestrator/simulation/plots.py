"""Result plots of simulation runs: one bar chart per figure (`orchestrator.charts`), a series per run,
so a single run and two runs side by side are drawn the same way."""

from __future__ import annotations

from typing import Any

from orchestrator.charts import Series, bar_chart
from orchestrator.engine.simulation.summary import PLANNER_BUCKETS


def _histogram_rows(histograms: list[dict[str, int]], conversations: list[int]) -> tuple[list[str], list[list[float]]]:
    """Shares (percent of conversations) per value, over the union of values seen in every run."""
    keys = sorted({int(k) for h in histograms for k in h})
    values = [[round(100 * h.get(str(k), 0) / max(n, 1), 1) for k in keys] for h, n in zip(histograms, conversations,
                                                                                         strict=True)]
    return [str(k) for k in keys], values


def run_plots(runs: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """The result plots of one run, or of two side by side: [{"title", "chart"}]."""
    names = [name for name, _ in runs]
    summaries = [summary for _, summary in runs]
    plots: list[dict[str, Any]] = []

    intents = sorted({i for s in summaries for i in s["per_intent"]})
    success = [Series(n, [100 * s["per_intent"].get(i, {}).get("success_rate", 0) for i in intents])
               for n, s in zip(names, summaries, strict=True)]
    plots.append({"title": "Goal success per intent",
                  "chart": bar_chart("Goal success per intent", intents, success, unit="%", top=100,
                                   caption="Share of the conversations asking for each intent that reached it.")})
    for key, title, what in (("turns", "Turns per conversation", "user messages"),
                             ("questions", "Questions asked", "questions for a value"),
                             ("replans", "Replans", "plans given up for another"),
                             ("consents", "Consent prompts", "consent prompts")):
        labels, values = _histogram_rows([s[key]["histogram"] for s in summaries],
                                         [s["conversations"] for s in summaries])
        series = [Series(n, v) for n, v in zip(names, values, strict=True)]
        means = ", ".join(f"{n}: {s[key]['mean']:.2f}" for n, s in zip(names, summaries, strict=True))
        plots.append({"title": title, "chart": bar_chart(
            title, labels, series, unit="%", caption=f"Share of conversations by number of {what} (mean {means}).")})
    skills = sorted({k for s in summaries for k in s["skills"]})
    failures = [Series(n, [s["skills"].get(k, {}).get("failures", 0) for k in skills])
                for n, s in zip(names, summaries, strict=True)]
    plots.append({"title": "Failures per skill", "chart": bar_chart(
        "Failures per skill", skills, failures,
        caption="Calls that gave none of the outputs expected: errors, rejections, empty outcomes.")})
    buckets = [str(b) for b in PLANNER_BUCKETS]
    labels = [f"≥ {b} ms" for b in buckets]
    planner = [Series(n, [round(100 * s["planner_ms"]["histogram"].get(b, 0) / max(s["planner_ms"]["turns"], 1), 1)
                          for b in buckets]) for n, s in zip(names, summaries, strict=True)]
    keep = [i for i in range(len(buckets)) if any(p.values[i] for p in planner)]
    medians = ", ".join(f"{n}: median {s['planner_ms']['median']:.2f} ms, p95 {s['planner_ms']['p95']:.2f} ms"
                        for n, s in zip(names, summaries, strict=True))
    plots.append({"title": "Planner time per turn", "chart": bar_chart(
        "Planner time per turn", [labels[i] for i in keep], [Series(p.name, [p.values[i] for i in keep])
                                                              for p in planner],
        unit="%", caption=f"Share of turns by time spent planning ({medians}).")})
    return plots
