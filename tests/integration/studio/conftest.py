"""Fixtures of the studio tests (the shared ones are in tests/integration/conftest.py)."""

from __future__ import annotations

import pytest
from django.test import Client

from catalog_app.models import Role, Workspace
from catalog_app.services import catalog_create, membership_set, user_create

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def admin(workspace):
    user = user_create(username="ada", password="secret-pass-1")
    membership_set(workspace=workspace, user=user, role=Role.ADMIN)
    return user


@pytest.fixture
def admin_client(admin) -> Client:
    client = Client()
    client.force_login(admin)
    return client


@pytest.fixture
def outsider(db) -> Client:
    """A user of another workspace."""
    other = Workspace.objects.create(name="Other", slug="other")
    user = user_create(username="otto", password="secret-pass-1")
    membership_set(workspace=other, user=user, role=Role.ADMIN)
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def empty(workspace, analyst):
    """A new, empty catalog, as the studio's "New catalog" makes it."""
    return catalog_create(workspace=workspace, slug="shop", title="Shop assistant", user=analyst)
