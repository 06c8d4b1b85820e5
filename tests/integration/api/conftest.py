"""Fixtures of the API tests (the shared ones are in tests/integration/conftest.py)."""

from __future__ import annotations

import pytest
from django.test import Client


@pytest.fixture
def api(logged_in) -> Client:
    return logged_in
