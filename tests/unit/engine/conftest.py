import pytest

from orchestrator.engine.planner import Planner
from orchestrator.engine.spec import CatalogSpec


@pytest.fixture(scope="session")
def banking(banking_spec: CatalogSpec) -> CatalogSpec:
    return banking_spec


@pytest.fixture(scope="session")
def banking_planner(banking: CatalogSpec) -> Planner:
    return Planner.for_spec(banking)
