"""Fixtures of the catalog tests: a workspace, a user, and two specs."""

from __future__ import annotations

from pathlib import Path

import pytest

from catalog_app.services import user_create
from orchestrator.engine.catalog.spec import CatalogSpec
from orchestrator.engine.catalog.spec_io import load_catalog, parse_catalog

from .specs import EVERY_FIELD

DEMO = Path(__file__).resolve().parents[3] / "catalog_app" / "demo" / "banking.yaml"


@pytest.fixture
def user(db):
    return user_create(username="ada", password="secret-pass-1")


@pytest.fixture
def banking_spec() -> CatalogSpec:
    return load_catalog(DEMO.read_bytes(), "yaml")


@pytest.fixture
def every_field_spec() -> CatalogSpec:
    return parse_catalog(EVERY_FIELD)
