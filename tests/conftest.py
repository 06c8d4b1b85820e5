"""Shared fixtures. Django tests run on the database named by DATABASE_URL (PostgreSQL in CI)."""

from pathlib import Path

import pytest

from orchestrator.engine.spec import CatalogSpec
from orchestrator.engine.spec_io import load_catalog

ROOT = Path(__file__).resolve().parent.parent
BANKING_YAML = ROOT / "catalog_app" / "demo" / "banking.yaml"


@pytest.fixture(scope="session")
def banking_spec() -> CatalogSpec:
    return load_catalog(BANKING_YAML.read_text())
