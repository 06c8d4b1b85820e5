"""The studio's test chat on a draft: same runtime and storage as live chat, marked as a test."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from catalog_app.models import Role, Workspace
from catalog_app.selectors import version_latest
from catalog_app.services import membership_set, user_create
from orchestrator.assistants.models import Assistant
from orchestrator.chat.models import ChatSession

pytestmark = pytest.mark.django_db


@pytest.fixture
def analyst_client(demo) -> Client:
    client = Client()
    client.force_login(get_user_model().objects.get(username="analyst"))
    return client


def _say(client: Client, text: str, session: str = "", version: int = 2) -> str:
    answer = client.post("/catalogs/banking/test-chat/messages/",
                         {"text": text, "session": session, "version": version, "mode": "planner"})
    assert answer.status_code == 200, answer.content
    return answer.content.decode()


def test_the_panel_greets_without_storing_a_session(analyst_client, demo):
    page = analyst_client.get("/catalogs/banking/test-chat/?version=2").content.decode()
    assert "Hello!" in page and "v2 draft · not published" in page
    assert not ChatSession.objects.exists()  # reloaded after every edit: nothing stored until one speaks


def test_the_panel_on_a_live_version_says_which_assistant_runs_it(analyst_client, demo):
    live = demo.catalog_version.number  # load_demo publishes version 1 as the banking assistant
    page = analyst_client.get(f"/catalogs/banking/test-chat/?version={live}").content.decode()
    assert "not published" not in page
    assert f"v{live} promoted · live as {demo.name}" in page
    Assistant.objects.filter(pk=demo.pk).update(enabled=False)  # switched off: no longer live
    page = analyst_client.get(f"/catalogs/banking/test-chat/?version={live}").content.decode()
    assert "not published" in page


def test_a_test_conversation_runs_the_draft_with_its_plans(analyst_client, demo):
    first = _say(analyst_client, "I'd like to apply for a loan")
    session = ChatSession.objects.get()
    assert session.is_test and session.assistant.catalog_version == version_latest(catalog=demo.catalog_version
                                                                                   .catalog)
    assert session.assistant.catalog_version.is_draft
    assert f'id="tc-session" value="{session.pk}" hx-swap-oob="true"' in first
    assert "asks <code>email</code>" in first and "ask(ssn)" in first  # the question and the turn's plan
    second = _say(analyst_client, "ada@example.com", session=str(session.pk))
    assert "lookup_customer" in second  # the skill call of that turn
    third = _say(analyst_client, "123-45-6789", session=str(session.pk))
    assert re.search(r"share <code>ssn</code> with <code>credit_check</code>", third)
    assert "Don&#x27;t allow" in third or "Don't allow" in third
    why = analyst_client.get(f"/catalogs/banking/test-chat/explain/?session={session.pk}&kind=why&element=ssn")
    assert why.status_code == 200 and "kind-explanation" in why.content.decode()
    assert ChatSession.objects.count() == 1
    assert Assistant.objects.get(pk=session.assistant_id).studio_test  # a test assistant: never served publicly


def test_another_workspace_cannot_use_the_session(analyst_client, demo):
    _say(analyst_client, "I'd like to apply for a loan")
    session = ChatSession.objects.get()
    stranger = user_create(username="stranger", password="a-long-pass-9")
    space = Workspace.objects.create(slug="other", name="Other")
    membership_set(workspace=space, user=stranger, role=Role.ADMIN)
    client = Client()
    client.force_login(stranger)
    answer = client.post("/catalogs/banking/test-chat/messages/", {"text": "hi", "session": str(session.pk)})
    assert answer.status_code == 404
