"""Workspace roles never grant instance rights, and the demo's public logins exist only on request."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.test import Client

from catalog_app.models import Role, Workspace
from catalog_app.services import catalog_import, membership_set, user_create

PASSWORD = "a-long-pass-phrase-1"


@pytest.fixture
def two_workspaces(db, banking_spec):
    a = Workspace.objects.create(slug="a", name="A")
    b = Workspace.objects.create(slug="b", name="B")
    catalog_import(workspace=a, spec=banking_spec)
    admin_b = user_create(username="bea", password=PASSWORD)
    membership_set(workspace=b, user=admin_b, role=Role.ADMIN)
    analyst_a = user_create(username="abe", password=PASSWORD)
    membership_set(workspace=a, user=analyst_a, role=Role.ANALYST)
    return a, b, admin_b, analyst_a


def test_a_workspace_admin_is_neither_staff_nor_superuser(two_workspaces):
    _, _, admin_b, _ = two_workspaces
    admin_b.refresh_from_db()
    assert not admin_b.is_staff and not admin_b.is_superuser


def test_a_workspace_admin_cannot_open_the_django_admin_or_change_other_users(two_workspaces):
    _, _, admin_b, analyst_a = two_workspaces
    client = Client()
    client.force_login(admin_b)

    assert client.get("/admin/").status_code == 302  # sent to the admin's login, not let in
    assert client.get("/admin/catalog_app/catalog/").status_code == 302
    response = client.post(f"/admin/auth/user/{analyst_a.pk}/change/",
                           {"username": analyst_a.username, "is_staff": "on", "is_superuser": "on"})
    assert response.status_code == 302
    analyst_a.refresh_from_db()
    assert not analyst_a.is_staff and not analyst_a.is_superuser


def test_an_instance_operator_still_has_the_django_admin(db):
    operator = get_user_model().objects.create_superuser("op", "op@example.com", PASSWORD)
    client = Client()
    client.force_login(operator)
    assert client.get("/admin/").status_code == 200


def test_user_creation_runs_the_password_validators(db):
    with pytest.raises(ValidationError):
        user_create(username="weak", password="weak")
    assert not get_user_model().objects.filter(username="weak").exists()


def test_the_deployment_demo_step_creates_no_public_logins_unless_asked(db, monkeypatch):
    monkeypatch.delenv("LOAD_DEMO", raising=False)
    out = StringIO()
    call_command("load_demo", "--only-if-asked", stdout=out)
    assert not get_user_model().objects.filter(username__in=["admin", "analyst"]).exists()
    assert "LOAD_DEMO=1" in out.getvalue()

    monkeypatch.setenv("LOAD_DEMO", "1")
    call_command("load_demo", "--only-if-asked", stdout=StringIO())
    assert get_user_model().objects.filter(username="admin", is_superuser=False).exists()
