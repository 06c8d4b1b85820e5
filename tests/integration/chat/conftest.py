"""Fixtures of the chat tests: the demo assistant, and a client that talks to it as the widget does."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.test import Client

from orchestrator.assistants.models import Assistant

DEMO_KEY = "demo-banking"
DEMO_ORIGIN = "http://127.0.0.1:8000"


@pytest.fixture(autouse=True)
def _fresh_rate_limits():
    """Rate-limit counters live in the cache, which outlives a test; every test starts at zero."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def demo(db) -> Assistant:
    """The banking assistant exactly as `load_demo` publishes it."""
    call_command("load_demo", stdout=StringIO())
    return Assistant.objects.get(key=DEMO_KEY)


class Widget:
    """The calls the chat widget makes, from the demo page's origin; answers are parsed JSON."""

    def __init__(self, client: Client, origin: str | None = DEMO_ORIGIN):
        self.client, self.origin = client, origin

    def _headers(self) -> dict[str, str]:
        return {"Origin": self.origin} if self.origin else {}

    def start(self, key: str = DEMO_KEY) -> Any:
        return self.client.post(f"/api/v1/assistants/{key}/sessions", headers=self._headers())

    def send(self, session_id: str, text: str) -> Any:
        return self.client.post(f"/api/v1/sessions/{session_id}/messages", {"text": text},
                                content_type="application/json", headers=self._headers())

    def read(self, session_id: str) -> Any:
        return self.client.get(f"/api/v1/sessions/{session_id}", headers=self._headers())


@pytest.fixture
def widget() -> Widget:
    # CSRF enforced as in production: the widget has no cookie and no token.
    return Widget(Client(enforce_csrf_checks=True))


@pytest.fixture
def studio_debug(demo) -> Any:
    """Reads the debug view of a session as a logged-in studio user of the demo's workspace."""
    from django.contrib.auth import get_user_model

    client = Client()
    client.force_login(get_user_model().objects.get(username="analyst"))
    return lambda session_id: client.get(f"/api/v1/sessions/{session_id}/debug")
