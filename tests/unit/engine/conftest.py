from pathlib import Path

import pytest

from orchestrator.engine.planner import Planner
from orchestrator.engine.spec import CatalogSpec
from orchestrator.engine.spec_io import load_catalog

BANKING_YAML = Path(__file__).resolve().parents[3] / "catalog_app" / "demo" / "banking.yaml"


@pytest.fixture(scope="session")
def banking() -> CatalogSpec:
    return load_catalog(BANKING_YAML.read_text())


@pytest.fixture(scope="session")
def banking_planner(banking: CatalogSpec) -> Planner:
    return Planner.for_spec(banking)
