import pytest

from orchestrator.engine.catalog.spec import CatalogSpec
from orchestrator.engine.catalog.spec_io import load_catalog
from orchestrator.engine.planning.planner import Planner
from orchestrator.engine.simulation.scenario import Scenario, load_scenario
from tests.conftest import ROOT

DEMO = ROOT / "catalog_app" / "demo"


@pytest.fixture(scope="session")
def banking_planner(banking_spec: CatalogSpec) -> Planner:
    return Planner.for_spec(banking_spec)


@pytest.fixture(scope="session")
def realistic(banking_spec: CatalogSpec) -> Scenario:
    return load_scenario((DEMO / "banking-scenario.yaml").read_text(), banking_spec)


@pytest.fixture(scope="session")
def thin_spec() -> CatalogSpec:
    return load_catalog((DEMO / "banking-thin.yaml").read_text())
