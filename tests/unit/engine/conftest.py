from pathlib import Path

import pytest

from orchestrator.engine.catalog.spec import CatalogSpec
from orchestrator.engine.catalog.spec_io import load_catalog
from orchestrator.engine.planning.planner import Planner


@pytest.fixture(scope="session")
def banking(banking_spec: CatalogSpec) -> CatalogSpec:
    return banking_spec


@pytest.fixture(scope="session")
def banking_planner(banking: CatalogSpec) -> Planner:
    return Planner.for_spec(banking)


DATA = Path(__file__).resolve().parents[3] / "bench" / "data"


def data_catalog(name: str) -> CatalogSpec:
    """A catalog written for the NLU benchmark and the conversation tests (bench/data)."""
    return load_catalog((DATA / f"{name}.yaml").read_text(), filename=f"{name}.yaml")


@pytest.fixture(scope="session")
def helpdesk() -> CatalogSpec:
    return data_catalog("helpdesk")


@pytest.fixture(scope="session")
def travel() -> CatalogSpec:
    return data_catalog("travel")


@pytest.fixture(scope="session")
def insurance() -> CatalogSpec:
    return data_catalog("insurance")
