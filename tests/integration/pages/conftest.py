"""Fixtures of the page tests (the shared ones are in tests/integration/conftest.py)."""

from __future__ import annotations

import pytest
from django.test import Client


@pytest.fixture
def studio(logged_in) -> Client:
    return logged_in
