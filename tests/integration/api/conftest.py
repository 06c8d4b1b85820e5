"""Fixtures of the API tests (the shared ones are in tests/integration/conftest.py)."""

from __future__ import annotations

import base64

import pytest
from django.test import Client

from tests.integration.conftest import PASSWORD


@pytest.fixture
def api(logged_in) -> Client:
    return logged_in


@pytest.fixture
def basic_auth(analyst) -> dict[str, str]:
    token = base64.b64encode(f"{analyst.username}:{PASSWORD}".encode()).decode()
    return {"HTTP_AUTHORIZATION": f"Basic {token}"}
