"""Fixtures of the cold-start tests: the thin banking catalog (banking-thin) with its scenario, banking beside it."""

from __future__ import annotations

import pytest
import yaml

from catalog_app.models import CatalogVersion
from catalog_app.services import catalog_import
from orchestrator.engine.catalog.spec_io import load_catalog
from orchestrator.simulation.services import scenario_save
from tests.conftest import ROOT

DEMO = ROOT / "catalog_app" / "demo"


@pytest.fixture
def thin(workspace) -> CatalogVersion:
    """banking-thin version 1 (a draft) with the scenario 'realistic' (the real banking skills)."""
    version = catalog_import(workspace=workspace, spec=load_catalog((DEMO / "banking-thin.yaml").read_bytes(), "yaml"))
    scenario_save(catalog=version.catalog, data=yaml.safe_load((DEMO / "banking-thin-scenario.yaml").read_text()))
    return version


@pytest.fixture
def reference(banking) -> CatalogVersion:
    """The hand-written banking catalog with the same scenario name, the campaign's reference."""
    scenario_save(catalog=banking.catalog, data=yaml.safe_load((DEMO / "banking-scenario.yaml").read_text()))
    return banking
