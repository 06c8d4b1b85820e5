"""An imported OpenAPI operation is stored as an HTTP skill and read back the same."""

from __future__ import annotations

import json

import pytest

from catalog_app.selectors import version_spec
from catalog_app.services import catalog_import
from orchestrator.engine.catalog.spec import CatalogSpec
from orchestrator.engine.catalog.spec_io import catalog_to_data, parse_catalog
from orchestrator.engine.catalog.toolspec import apply_proposal, load_tools, propose
from tests.unit.engine.test_http_adapter import PETSTORE

pytestmark = pytest.mark.django_db


def test_the_http_binding_survives_storage_and_export(workspace):
    proposal = propose(load_tools(json.dumps(PETSTORE)))
    spec = apply_proposal(CatalogSpec(catalog="pets"), proposal, skills=[s.name for s in proposal.skills])

    stored = version_spec(version=catalog_import(workspace=workspace, spec=spec))

    assert stored.skill("get_pet").http == spec.skill("get_pet").http
    assert stored.skill("get_pet").endpoint == "https://pets.example.com/v1/pets/{petId}"
    assert parse_catalog(catalog_to_data(stored)) == stored
