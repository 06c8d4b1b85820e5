"""A process's first plan runs Fast Downward's binary without importing unified-planning (issue 24):
the binary is found where the up-fast-downward package lies, not by importing it (1.5 s of imports
that the first chat turn of every worker paid)."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import BANKING_YAML, ROOT

FIRST_PLAN = f"""
import sys
from pathlib import Path
from orchestrator.engine.catalog.spec import Goal
from orchestrator.engine.catalog.spec_io import load_catalog
from orchestrator.engine.planning.planner import Planner

plan = Planner.for_spec(load_catalog(Path({str(BANKING_YAML)!r}).read_text())).plan(Goal(known=("loan_status",)))
print(plan.cost, "unified_planning" in sys.modules)
"""


def test_a_fresh_process_plans_a_loan_without_importing_unified_planning():
    done = subprocess.run([sys.executable, "-c", FIRST_PLAN], cwd=ROOT, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["20", "False"]
