"""What the benchmark parts share: the demo catalog's path and the percentile they report."""

from __future__ import annotations

from pathlib import Path

BANKING = Path(__file__).resolve().parent.parent / "catalog_app" / "demo" / "banking.yaml"


def p95(values: list[float]) -> float:
    """The 95th percentile, nearest rank (with 20 values: the 19th)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
