"""`load_demo` publishes the banking assistant once, on a promoted version (never a draft)."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from catalog_app.models import VersionStatus
from catalog_app.permissions import OPERATOR
from catalog_app.selectors import version_latest, version_spec
from catalog_app.services import version_update
from orchestrator.assistants.models import Assistant
from orchestrator.assistants.services import assistant_create, assistant_set_version
from orchestrator.chat.selectors import session_public
from orchestrator.chat.services import message_post, session_create
from orchestrator.engine.errors import SpecError

pytestmark = pytest.mark.django_db


def test_load_demo_publishes_the_assistant_once(demo):
    out = StringIO()
    call_command("load_demo", stdout=out)
    assistant = Assistant.objects.get()
    assert assistant.key == "demo-banking" and assistant.mode == "planner"
    assert assistant.allowed_origins == ["http://127.0.0.1:8000", "http://localhost:8000",
                                         "http://127.0.0.1:8001", "http://localhost:8001"]
    assert assistant.catalog_version.status == VersionStatus.PROMOTED
    latest = version_latest(catalog=assistant.catalog_version.catalog)
    assert latest.is_draft and latest.number == assistant.catalog_version.number + 1  # the analysts' draft
    assert "assistant" not in out.getvalue().lower()  # nothing to do the second time


def test_an_edit_of_the_demo_draft_does_not_reach_the_live_assistant(demo):
    """Hardening #10 item 4: unticking 'sensitive' on ssn in the draft changed live behaviour."""
    draft = version_latest(catalog=demo.catalog_version.catalog)
    spec = version_spec(version=draft)
    elements = tuple(e.model_copy(update={"sensitive": False}) if e.name == "ssn" else e for e in spec.elements)
    version_update(version=draft, spec=spec.model_copy(update={"elements": elements}))

    session, _ = session_create(assistant=Assistant.objects.get(key="demo-banking"))
    for text in ("I'd like to apply for a loan", "ada@example.com"):
        message_post(session_id=session.pk, text=text)
    replies = message_post(session_id=session.pk, text="123-45-6789")
    assert replies[-1]["kind"] == "consent" and replies[-1]["elements"] == ["ssn"]  # still asked
    assert "123-45-6789" not in str(session_public(session=session))  # still masked


def test_an_assistant_refuses_a_draft(demo):
    draft = version_latest(catalog=demo.catalog_version.catalog)
    with pytest.raises(SpecError, match="is a draft; promote it"):
        assistant_create(workspace=demo.workspace, version=draft, key="drafty")
    with pytest.raises(SpecError, match="is a draft; promote it"):
        assistant_set_version(user=OPERATOR, assistant=demo, version=draft)
    demo.refresh_from_db()
    assert demo.catalog_version.status == VersionStatus.PROMOTED


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
