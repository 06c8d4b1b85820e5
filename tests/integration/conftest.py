"""Fixtures shared by the Django tests: the default workspace, an analyst in it, the banking demo."""

from __future__ import annotations

import base64

import pytest
from django.test import Client

from catalog_app.models import CatalogVersion, Role, Workspace
from catalog_app.services import catalog_import, membership_set, user_create, workspace_get_or_create_default
from orchestrator.engine.catalog.spec import CatalogSpec

PASSWORD = "secret-pass-1"


@pytest.fixture
def workspace(db) -> Workspace:
    return workspace_get_or_create_default()


@pytest.fixture
def analyst(workspace):
    user = user_create(username="ana", password=PASSWORD)
    membership_set(workspace=workspace, user=user, role=Role.ANALYST)
    return user


@pytest.fixture
def admin(workspace):
    """An admin of the workspace, with a password for the API's basic auth."""
    user = user_create(username="ada", password=PASSWORD)
    membership_set(workspace=workspace, user=user, role=Role.ADMIN)
    return user


@pytest.fixture
def admin_auth(admin) -> dict[str, str]:
    token = base64.b64encode(f"{admin.username}:{PASSWORD}".encode()).decode()
    return {"HTTP_AUTHORIZATION": f"Basic {token}"}


@pytest.fixture
def banking(workspace, banking_spec: CatalogSpec) -> CatalogVersion:
    return catalog_import(workspace=workspace, spec=banking_spec)


@pytest.fixture
def logged_in(analyst) -> Client:
    """A client logged in through the session, as the studio's pages are."""
    client = Client()
    client.force_login(analyst)
    return client


@pytest.fixture
def basic_auth(analyst) -> dict[str, str]:
    """The headers of a script calling the API with the analyst's password."""
    token = base64.b64encode(f"{analyst.username}:{PASSWORD}".encode()).decode()
    return {"HTTP_AUTHORIZATION": f"Basic {token}"}
