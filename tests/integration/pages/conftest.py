"""Fixtures of the page tests: an analyst, logged in, with the banking demo in their workspace."""

from __future__ import annotations

import pytest
from django.test import Client

from catalog_app.models import CatalogVersion, Role, Workspace
from catalog_app.services import catalog_import, membership_set, user_create, workspace_get_or_create_default
from orchestrator.engine.spec import CatalogSpec


@pytest.fixture
def workspace(db) -> Workspace:
    return workspace_get_or_create_default()


@pytest.fixture
def analyst(workspace):
    user = user_create(username="ana", password="secret-pass-1")
    membership_set(workspace=workspace, user=user, role=Role.ANALYST)
    return user


@pytest.fixture
def banking(workspace, banking_spec: CatalogSpec) -> CatalogVersion:
    return catalog_import(workspace=workspace, spec=banking_spec)


@pytest.fixture
def studio(analyst) -> Client:
    client = Client()
    client.force_login(analyst)
    return client
