"""Fixtures of the conversation tests: the banking draft, an admin, a loan conversation saved as a test."""

from __future__ import annotations

import pytest

from catalog_app.editing import element_updated, version_edit
from catalog_app.models import CatalogVersion
from catalog_app.services import version_create_draft, version_promote
from orchestrator.chat.models import ChatSession
from orchestrator.chat.studio_services import studio_message_post
from orchestrator.conversation_tests.models import ConversationTest
from orchestrator.conversation_tests.services import conversation_test_from_session

LOAN = ["I'd like to apply for a loan", "ada@example.com", "123-45-6789", "yes"]


def talk(version: CatalogVersion, texts: list[str]) -> ChatSession:
    """A test-chat conversation on `version`, as the studio's panel has it."""
    session = None
    for text in texts:
        session, _ = studio_message_post(session=session, version=version, mode="planner", text=text)
    assert session is not None
    return session


@pytest.fixture
def loan_test(banking, analyst) -> ConversationTest:
    return conversation_test_from_session(session=talk(banking, LOAN), name="loan with consent", user=analyst)


def ssn_not_sensitive(version: CatalogVersion, user) -> CatalogVersion:
    """A new draft after `version` in which the SSN is no longer sensitive: no consent is asked for it."""
    draft = version_create_draft(version=version_promote(version=version, user=user), user=user)
    version_edit(version=draft, change=lambda spec: element_updated(spec, name="ssn", sensitive=False), user=user)
    return draft
