"""Hostile input is a clear 4xx in the API's JSON shape (or the page's form error), never a 500."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.contrib.sessions.backends.db import SessionStore
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.db import OperationalError
from django.test import Client

from catalog_app import api as catalog_api
from config import health
from orchestrator.engine.catalog.spec_io import catalog_to_data
from tests.integration.conftest import PASSWORD

DEEP_JSON = "[" * 100_000 + "]" * 100_000
DEEP_YAML = "[" * 100_000 + "]" * 100_000
DEEP_MAPPING_YAML = "{a: " * 20_000 + "1" + "}" * 20_000
DEEP_BLOCK_YAML = "- " * 20_000 + "x\n"
HUGE_INTEGER = '{"samples": [{"output": [{"name": "x", "arguments": {"n": ' + "9" * 5000 + "}}]}]}"


def assert_json_error(response, status: int | None = None) -> dict:
    assert 400 <= response.status_code < 500, (response.status_code, response.content[:300])
    if status is not None:
        assert response.status_code == status
    body = response.json()
    assert isinstance(body["detail"], str) and body["detail"] and isinstance(body["errors"], list)
    return body


@pytest.mark.parametrize(("body", "content_type"), [
    (DEEP_JSON, "application/json"),
    (DEEP_YAML, "application/yaml"),
    (DEEP_MAPPING_YAML, "application/yaml"),
    (DEEP_BLOCK_YAML, "application/yaml"),
    ("[" * 60 + "]" * 60, "application/json"),  # parses, but deeper than any catalog
    ('{"catalog": ' + "1" * 5000 + "}", "application/json"),
])
def test_catalog_import_of_hostile_documents(client, basic_auth, body, content_type):
    response = client.post("/api/v1/catalogs/import", body, content_type=content_type, **basic_auth)
    assert_json_error(response, 422)


@pytest.mark.parametrize("body", [DEEP_JSON, HUGE_INTEGER, '{"samples": ' + DEEP_JSON + "}"])
def test_trajectory_upload_of_hostile_json(client, basic_auth, body):
    response = client.post("/api/v1/validation/trajectories", body, content_type="application/json", **basic_auth)
    assert_json_error(response)


@pytest.mark.parametrize("text", [
    DEEP_JSON,
    HUGE_INTEGER,
    '{"output": []}\n' + DEEP_JSON,  # JSON Lines with one deep line
    '{"output": []}\n{"n": ' + "9" * 5000 + "}",
    '[{"output": [{"name": "lookup\\u0000", "arguments": {}}]}]',
    '[{"output": [{"name": "lookup", "arguments": {"x": "\\ud800"}}]}]',
])
def test_trajectory_page_upload_of_hostile_json(logged_in, text):
    upload = SimpleUploadedFile("calls.json", text.encode(), content_type="application/json")
    response = logged_in.post("/validation/analyses/", {"samples": upload})
    assert response.status_code == 422
    assert b"cannot be read" in response.content or b"contains a" in response.content


@pytest.mark.parametrize("text", [DEEP_JSON, DEEP_YAML, DEEP_MAPPING_YAML])
def test_tools_import_page_of_hostile_documents(logged_in, banking, text):
    response = logged_in.post("/catalogs/banking/tools/", {"tools-text": text})
    assert response.status_code == 422


@pytest.mark.parametrize("text", [DEEP_JSON, DEEP_YAML])
def test_catalog_import_page_of_hostile_documents(logged_in, text):
    response = logged_in.post("/catalogs/import/", {"import-text": text})
    assert response.status_code == 422


@pytest.mark.parametrize("text", ["hello\x00world", "\ud800"])
def test_chat_message_with_a_nul_or_a_lone_surrogate(client, demo_assistant_key, text):
    started = client.post(f"/api/v1/assistants/{demo_assistant_key}/sessions", HTTP_ORIGIN="http://127.0.0.1:8000")
    session = started.json()["id"]
    body = json.dumps({"text": text})  # ensure_ascii: the surrogate travels as \\ud800, as a client would send it
    response = client.post(f"/api/v1/sessions/{session}/messages", body, content_type="application/json",
                           HTTP_ORIGIN="http://127.0.0.1:8000")
    errors = assert_json_error(response, 422)["errors"]
    assert errors and errors[0]["path"] == "text"


@pytest.mark.parametrize("description", ["bank\x00", "bank\udc80"])
def test_catalog_with_a_nul_or_a_lone_surrogate_in_a_description(client, basic_auth, banking_spec, description):
    data = catalog_to_data(banking_spec)
    data["catalog"] = "nul"
    data["elements"][0]["description"] = description
    response = client.post("/api/v1/catalogs/import", json.dumps(data), content_type="application/json",
                           **basic_auth)
    body = assert_json_error(response, 422)
    assert any(e["path"] == "elements[0].description" for e in body["errors"])


def test_a_body_over_the_upload_limit_answers_in_the_json_shape(client, basic_auth, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    body = json.dumps({"samples": [{"output": []}] * 500})
    response = client.post("/api/v1/validation/trajectories", body, content_type="application/json", **basic_auth)
    assert_json_error(response, 413)


@pytest.fixture
def demo_assistant_key(db) -> str:
    call_command("load_demo", stdout=StringIO())
    return "demo-banking"


# --- errors raised outside the endpoints' handlers ----------------------------------------------

def _database_down(*args, **kwargs):
    raise OperationalError("connection to server at 127.0.0.1, port 5432 failed: Connection refused")


def test_a_database_outage_inside_an_endpoint_is_a_503_with_retry_after(client, basic_auth, monkeypatch):
    monkeypatch.setattr(catalog_api, "catalog_list", _database_down)
    response = client.get("/api/v1/catalogs/", **basic_auth)
    assert response.status_code == 503 and response["Retry-After"].isdigit()
    assert "database" in response.json()["detail"] and response.json()["errors"] == []


def test_a_database_outage_outside_the_handlers_is_a_503_in_the_api_shape(analyst, monkeypatch, settings):
    # The session is saved by its middleware after the endpoint answered: outside ninja's handlers.
    settings.SESSION_SAVE_EVERY_REQUEST = True
    client = Client(raise_request_exception=False)
    client.login(username=analyst.username, password=PASSWORD)
    monkeypatch.setattr(SessionStore, "save", _database_down)
    response = client.get("/api/v1/catalogs/")
    assert response.status_code == 503 and response["Retry-After"].isdigit()
    assert response.json() == {"detail": "the database is not reachable; try again shortly", "errors": []}


def test_a_database_outage_on_a_page_is_a_503_page(analyst, monkeypatch):
    # The page reads the session to know the user: Django's own error handling answers.
    client = Client(raise_request_exception=False)
    client.login(username=analyst.username, password=PASSWORD)
    monkeypatch.setattr(SessionStore, "load", _database_down)
    response = client.get("/")
    assert response.status_code == 503 and response["Retry-After"].isdigit()


def test_an_unknown_api_path_answers_in_the_json_shape(client):
    assert_json_error(client.get("/api/v1/no-such-thing"), 404)


def test_health_says_ok_with_the_database_up(db, client, settings):
    settings.ALLOWED_HOSTS = ["studio.example.com"]
    settings.SECURE_SSL_REDIRECT = True
    response = client.get("/health", HTTP_HOST="10.0.0.7:8000")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "cache": "ok", "broker": "ok"}


def test_health_says_503_with_the_database_down(client, monkeypatch):
    monkeypatch.setattr(health.connection, "cursor", _database_down)
    response = client.get("/health")
    assert response.status_code == 503 and response["Retry-After"].isdigit()
