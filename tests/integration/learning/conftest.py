"""Fixtures of the learning tests: an admin, the banking demo with a finished simulation run under its truths."""

from __future__ import annotations

import pytest
import yaml

from orchestrator.simulation.models import SimulationRun
from orchestrator.simulation.services import run_create, run_execute, scenario_save
from tests.conftest import ROOT

DEMO = ROOT / "catalog_app" / "demo"


@pytest.fixture
def run(workspace, banking) -> SimulationRun:
    """80 banking conversations with the planner, skills behaving as `banking-scenario.yaml` says."""
    scenario_save(catalog=banking.catalog, data=yaml.safe_load((DEMO / "banking-scenario.yaml").read_text()))
    created = run_create(workspace=workspace, version=banking, scenario="realistic", conversations=80, seed=3,
                         enqueue=False)
    return run_execute(run_id=created.pk)
