"""`load_demo` publishes the banking assistant once, and keeps it on the catalog's latest version."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from catalog_app.selectors import version_latest
from catalog_app.services import version_create_draft
from orchestrator.chat_services import assistant_create
from orchestrator.engine.errors import SpecError
from orchestrator.models import Assistant

pytestmark = pytest.mark.django_db


def test_load_demo_publishes_the_assistant_once(demo):
    out = StringIO()
    call_command("load_demo", stdout=out)
    assistant = Assistant.objects.get()
    assert assistant.key == "demo-banking" and assistant.mode == "planner"
    assert assistant.allowed_origins == ["http://127.0.0.1:8000", "http://localhost:8000"]
    assert assistant.catalog_version == version_latest(catalog=assistant.catalog_version.catalog)
    assert "assistant" not in out.getvalue().lower()  # nothing to do the second time


def test_a_new_banking_version_moves_the_assistant(demo):
    newer = version_create_draft(version=demo.catalog_version, user=None)
    out = StringIO()
    call_command("load_demo", stdout=out)
    assert Assistant.objects.get().catalog_version == newer
    assert f"Assistant 'demo-banking' now runs banking version {newer.number}." in out.getvalue()


@pytest.mark.parametrize(("origins", "path"), [
    (["shop.example.com"], "allowed_origins"),
    (["https://shop.example.com/page"], "allowed_origins"),
])
def test_origins_must_be_origins(demo, origins, path):
    with pytest.raises(SpecError) as error:
        assistant_create(workspace=demo.workspace, version=demo.catalog_version, key="shop", allowed_origins=origins)
    assert error.value.issues[0].path == path


def test_origins_are_stored_as_browsers_send_them(demo):
    assistant = assistant_create(workspace=demo.workspace, version=demo.catalog_version, key="shop",
                                 allowed_origins=["HTTPS://Shop.Example.com/", "https://shop.example.com:8443"])
    assert assistant.allowed_origins == ["https://shop.example.com", "https://shop.example.com:8443"]


def test_a_key_is_unique_and_slug_like(demo):
    for key in ("demo-banking", "not a slug"):
        with pytest.raises(SpecError) as error:
            assistant_create(workspace=demo.workspace, version=demo.catalog_version, key=key)
        assert error.value.issues[0].path == "key"
