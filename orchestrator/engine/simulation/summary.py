"""The figures of a run, from its conversations' metrics: what the result plots and the CLI show."""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable
from typing import Any


def _percentile(values: list[float], share: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def _counts(values: Iterable[int]) -> dict[str, int]:
    """A histogram as {"value": count}, by increasing value (JSON keys are strings)."""
    counted = Counter(values)
    return {str(k): counted[k] for k in sorted(counted)}


def summarize(metrics: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(metrics)
    per_intent: dict[str, dict[str, Any]] = {}
    for intent in sorted({m["intent"] for m in metrics}):
        mine = [m for m in metrics if m["intent"] == intent]
        wins = sum(m["success"] for m in mine)
        per_intent[intent] = {
            "conversations": len(mine), "successes": wins, "success_rate": round(wins / len(mine), 4),
            "turns_mean": round(statistics.fmean(m["turns"] for m in mine), 2),
            "turns_to_success_mean": round(statistics.fmean(m["turns"] for m in mine if m["success"]), 2)
            if wins else None,
        }
    calls: Counter[str] = Counter()
    failures: Counter[str] = Counter()
    for m in metrics:
        calls.update(m["skill_calls"])
        failures.update(m["skill_failures"])
    planner_ms = [t for m in metrics for t in m["planner_ms"]]
    engine_ms = [t for m in metrics for t in m["engine_ms"]]
    wins = sum(m["success"] for m in metrics)

    def mean(key: str) -> float:
        return round(statistics.fmean(m[key] for m in metrics), 3) if metrics else 0.0

    explored = [m for m in metrics if m.get("explored")]
    experimentation = ({"used": True, "conversations": len(explored),
                        "probe_calls": sum(m.get("probes", 0) for m in explored),
                        "note": "simulation only: rejected skills were probed with every element the run could gather"}
                       if explored else {"used": False})
    return {
        "conversations": n,
        "experimentation": experimentation,
        "successes": wins,
        "success_rate": round(wins / n, 4) if n else 0.0,
        "outcomes": dict(Counter(m["outcome"] for m in metrics).most_common()),
        "per_intent": per_intent,
        "turns": {"mean": mean("turns"), "histogram": _counts(m["turns"] for m in metrics)},
        "questions": {"mean": mean("questions"), "histogram": _counts(m["questions"] for m in metrics)},
        "replans": {"mean": mean("replans"), "histogram": _counts(m["replans"] for m in metrics)},
        "consents": {"mean": mean("consents"), "histogram": _counts(m["consents"] for m in metrics),
                     "refused": sum(m["consents_refused"] for m in metrics)},
        "skills": {name: {"calls": calls[name], "failures": failures.get(name, 0),
                          "failure_rate": round(failures.get(name, 0) / calls[name], 4)}
                   for name in sorted(calls)},
        "planner_ms": {"turns": len(planner_ms), "median": round(_percentile(planner_ms, 0.5), 3),
                       "p95": round(_percentile(planner_ms, 0.95), 3), "max": round(max(planner_ms, default=0.0), 3),
                       "histogram": _counts(_bucket(t) for t in planner_ms)},
        "engine_ms": {"median": round(_percentile(engine_ms, 0.5), 3), "p95": round(_percentile(engine_ms, 0.95), 3)},
    }


PLANNER_BUCKETS = (0, 1, 2, 5, 10, 20, 50, 100, 200, 500)


def _bucket(ms: float) -> int:
    """The bucket of a planning time: the largest bound of PLANNER_BUCKETS it reaches."""
    return max(b for b in PLANNER_BUCKETS if ms >= b)
