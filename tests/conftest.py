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


def database_url() -> str:
    """The URL of the database the tests run on, for a subprocess (a worker, a command) to share."""
    from django.db import connection

    db = connection.settings_dict
    return f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
