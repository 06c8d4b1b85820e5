"""Fixtures of the simulation tests: the banking demo with its stored scenario."""

from __future__ import annotations

import pytest
import yaml

from orchestrator.simulation.models import SimulationScenario
from orchestrator.simulation.services import scenario_save
from tests.conftest import ROOT

DEMO = ROOT / "catalog_app" / "demo"


@pytest.fixture
def scenario_data() -> dict:
    return yaml.safe_load((DEMO / "banking-scenario.yaml").read_text())


@pytest.fixture
def realistic(banking, scenario_data) -> SimulationScenario:
    return scenario_save(catalog=banking.catalog, data=scenario_data)
