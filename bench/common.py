"""What the benchmark parts share: the demo catalog's path and the percentile they report."""

from __future__ import annotations

from pathlib import Path

BANKING = Path(__file__).resolve().parent.parent / "catalog_app" / "demo" / "banking.yaml"


def percentile(values: list[float], share: float) -> float:
    """A percentile by nearest rank (the 95th of 20 values: the 19th); NaN of no values."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))] if ordered else float("nan")


def p95(values: list[float]) -> float:
    return percentile(values, 0.95)
