"""The studio's test chat on a draft follows the draft's edits from the very next turn (cached by revision)."""

from __future__ import annotations

import pytest

from catalog_app.selectors import version_latest, version_spec
from catalog_app.services import version_update
from orchestrator.assistants.services import studio_test_assistant
from orchestrator.chat.services import message_post, session_create

pytestmark = pytest.mark.django_db


def test_an_edit_of_the_draft_shows_in_the_next_turn(demo):
    version = version_latest(catalog=demo.catalog_version.catalog)
    assert version.is_draft
    assistant = studio_test_assistant(version=version)
    session, _ = session_create(assistant=assistant)
    first = message_post(session_id=session.pk, text="I'd like to apply for a loan")
    assert first[-1]["element"] == "email"
    spec = version_spec(version=version)
    # The analyst makes the email unaskable: the next plan must go by the account number.
    elements = tuple(e.model_copy(update={"askable": False}) if e.name == "email" else e for e in spec.elements)
    revision = version.revision
    version_update(version=version, spec=spec.model_copy(update={"elements": elements}))
    version.refresh_from_db()
    assert version.revision == revision + 1
    second = message_post(session_id=session.pk, text="what can you do?")  # a side question, then the question again
    assert second[-1]["element"] == "email"  # the pending question stands
    third = message_post(session_id=session.pk, text="I don't know it")
    assert third[-1]["element"] == "account_number"
    other, _ = session_create(assistant=assistant)
    assert message_post(session_id=other.pk, text="I need a loan")[-1]["element"] == "account_number"
