import pytest

from orchestrator.engine.catalog.spec import CatalogSpec
from orchestrator.engine.planning.planner import Planner


@pytest.fixture(scope="session")
def banking(banking_spec: CatalogSpec) -> CatalogSpec:
    return banking_spec


@pytest.fixture(scope="session")
def banking_planner(banking: CatalogSpec) -> Planner:
    return Planner.for_spec(banking)
