"""Fixtures of the learning tests: an admin, the banking demo with a finished simulation run under its truths."""

from __future__ import annotations

import base64

import pytest
import yaml

from catalog_app.models import Role
from catalog_app.services import membership_set, user_create
from orchestrator.simulation.models import SimulationRun
from orchestrator.simulation.services import run_create, run_execute, scenario_save
from tests.conftest import ROOT
from tests.integration.conftest import PASSWORD

DEMO = ROOT / "catalog_app" / "demo"


@pytest.fixture
def admin(workspace):
    user = user_create(username="ada", password=PASSWORD)
    membership_set(workspace=workspace, user=user, role=Role.ADMIN)
    return user


@pytest.fixture
def admin_auth(admin) -> dict[str, str]:
    token = base64.b64encode(f"{admin.username}:{PASSWORD}".encode()).decode()
    return {"HTTP_AUTHORIZATION": f"Basic {token}"}


@pytest.fixture
def run(workspace, banking) -> SimulationRun:
    """80 banking conversations with the planner, skills behaving as `banking-scenario.yaml` says."""
    scenario_save(catalog=banking.catalog, data=yaml.safe_load((DEMO / "banking-scenario.yaml").read_text()))
    created = run_create(workspace=workspace, version=banking, scenario="realistic", conversations=80, seed=3,
                         enqueue=False)
    return run_execute(run_id=created.pk)
