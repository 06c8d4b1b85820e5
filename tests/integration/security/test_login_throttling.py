"""Guessing passwords is slowed down: after a few failures a user name is locked out from that address.

The same lockout covers the studio's login form and HTTP basic auth on the API (django-axes).
"""

from __future__ import annotations

import base64

import pytest
from django.test import Client

from tests.integration.conftest import PASSWORD


def _form_login(client: Client, username: str, password: str):
    return client.post("/accounts/login/", {"username": username, "password": password})


def _basic(client: Client, username: str, password: str):
    token = base64.b64encode(f"{username}:{password}".encode()).decode()
    return client.get("/api/v1/catalogs/", HTTP_AUTHORIZATION=f"Basic {token}")


@pytest.fixture
def limit(settings) -> int:
    return settings.AXES_FAILURE_LIMIT


def test_the_studio_login_locks_a_name_out_after_the_failure_limit(analyst, limit):
    client = Client()
    for _ in range(limit - 1):
        assert _form_login(client, analyst.username, "wrong").status_code == 200  # the form, with its error
    locked = _form_login(client, analyst.username, "wrong")
    assert locked.status_code == 429 and int(locked["Retry-After"]) > 0
    # Even the right password is refused while the lockout lasts.
    assert _form_login(client, analyst.username, PASSWORD).status_code == 429


def test_basic_auth_locks_a_name_out_after_the_failure_limit(client, analyst, limit):
    for _ in range(limit - 1):
        assert _basic(client, analyst.username, "wrong").status_code == 401
    answer = _basic(client, analyst.username, "wrong")
    assert answer.status_code == 429 and int(answer["Retry-After"]) > 0
    assert answer.json() == {"detail": "too many failed logins; try again in 15 minutes", "errors": []}
    assert _basic(client, analyst.username, PASSWORD).status_code == 429


def test_failures_on_the_form_and_on_basic_auth_add_up(client, analyst, limit):
    for _ in range(limit - 1):
        _form_login(client, analyst.username, "wrong")
    assert _basic(client, analyst.username, "wrong").status_code == 429


def test_a_lockout_holds_one_name_from_one_address_only(client, analyst, limit):
    for _ in range(limit):
        _basic(client, analyst.username, "wrong")
    assert _basic(client, analyst.username, PASSWORD).status_code == 429
    # From elsewhere the user still gets in: a stranger cannot lock them out.
    token = base64.b64encode(f"{analyst.username}:{PASSWORD}".encode()).decode()
    elsewhere = client.get("/api/v1/catalogs/", HTTP_AUTHORIZATION=f"Basic {token}", REMOTE_ADDR="203.0.113.9")
    assert elsewhere.status_code == 200


def test_a_studio_login_before_the_limit_starts_the_count_again(analyst, limit):
    # (Basic auth authenticates each call without logging in, so only a studio login resets the count.)
    client = Client()
    for _ in range(limit - 1):
        _form_login(client, analyst.username, "wrong")
    assert _form_login(client, analyst.username, PASSWORD).status_code == 302
    Client().post("/accounts/logout/")
    for _ in range(limit - 1):
        assert _form_login(Client(), analyst.username, "wrong").status_code == 200
