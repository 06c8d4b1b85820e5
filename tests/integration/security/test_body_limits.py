"""Request bodies are limited per route: small for the chat anyone may call, large for catalog
imports, 2 MB elsewhere (issue 24, finding 8). Refused with 413 before anything reads them."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client

from catalog_app.models import Catalog
from orchestrator.engine.catalog.spec_io import dump_catalog

from .test_bad_input import assert_json_error

MESSAGE = json.dumps({"text": "x" * 100_000})  # a 100 kB message: far over a chat message, far under 25 MB


@pytest.fixture
def demo_session(db) -> str:
    call_command("load_demo", stdout=StringIO())
    return Client().post("/api/v1/assistants/demo-banking/sessions").json()["id"]


def test_a_large_chat_message_is_refused_before_it_is_read(demo_session, settings):
    response = Client().post(f"/api/v1/sessions/{demo_session}/messages", MESSAGE, content_type="application/json")
    body = assert_json_error(response, 413)
    assert body["detail"] == f"the request body is larger than {settings.CONCERTO_CHAT_MAX_BODY_BYTES:,} bytes"


def test_a_session_start_with_a_large_body_is_refused(demo_session):
    response = Client().post("/api/v1/assistants/demo-banking/sessions", MESSAGE, content_type="application/json")
    assert_json_error(response, 413)


def test_the_studio_test_chat_is_as_small(demo_session, logged_in):
    response = logged_in.post("/catalogs/banking/test-chat/messages/", {"text": "x" * 100_000})
    assert response.status_code == 413


def test_a_chat_message_of_full_length_is_read(demo_session, settings):
    # 2,000 characters of the widest JSON escapes (6 bytes each) fit: the limit never cuts a real message.
    text = "\u00e9" * 2000
    body = json.dumps({"text": text, "client_id": "x" * 64})
    assert len(body) > 12_000 and len(body) < settings.CONCERTO_CHAT_MAX_BODY_BYTES
    response = Client().post(f"/api/v1/sessions/{demo_session}/messages", body, content_type="application/json")
    assert response.status_code == 200


def test_other_routes_take_two_megabytes(basic_auth):
    body = json.dumps({"name": "x" * (3 * 1024 * 1024)})
    response = Client().patch("/api/v1/assistants/demo-banking", body, content_type="application/json", **basic_auth)
    assert_json_error(response, 413)


def test_a_catalog_import_takes_more_than_two_megabytes(basic_auth, banking_spec):
    text = dump_catalog(banking_spec) + "#" * (3 * 1024 * 1024) + "\n"
    response = Client().post("/api/v1/catalogs/import", text, content_type="application/yaml", **basic_auth)
    assert response.status_code == 201, response.content[:300]
    assert Catalog.objects.filter(slug="banking").exists()
