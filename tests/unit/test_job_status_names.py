"""One name for a job's status: `JobStatus` (orchestrator.jobs). The per-feature aliases it replaced are gone,
so no module reads a status under a name that looks like a vocabulary of its own."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OLD = re.compile(r"\b(AnalysisStatus|SimulationStatus)\b")


def test_no_module_uses_the_old_status_names():
    users = [str(path.relative_to(ROOT)) for folder in ("orchestrator", "catalog_app", "bench", "tests")
             for path in (ROOT / folder).rglob("*.py") if path != Path(__file__).resolve()
             and OLD.search(path.read_text(encoding="utf-8"))]
    assert users == []


def test_the_aliases_are_not_importable():
    from orchestrator.simulation import models as simulation
    from orchestrator.validation import models as validation

    assert not hasattr(simulation, "SimulationStatus") and not hasattr(validation, "AnalysisStatus")
