"""The session inspector: analysts follow a conversation's transcript, goals, plans and skill calls."""

from __future__ import annotations

import pytest
from django.test import Client

from catalog_app.models import Role, Workspace
from catalog_app.services import membership_set, user_create
from orchestrator.chat.services import message_post, session_create
from orchestrator.engine.runtime.masking import MASK

pytestmark = pytest.mark.django_db


@pytest.fixture
def session(demo):
    session, _ = session_create(assistant=demo)
    for text in ("I'd like to apply for a loan", "ada@example.com", "123-45-6789"):
        message_post(session_id=session.pk, text=text)
    return session


def test_the_list_shows_recent_sessions_per_assistant(logged_in, session):
    page = logged_in.get("/sessions/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "demo-banking" in html and f"/sessions/{session.pk}/" in html
    assert 'href="/sessions/"' in html  # the nav link


def test_the_inspector_shows_transcript_goals_plan_and_history(logged_in, session):
    page = logged_in.get(f"/sessions/{session.pk}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'hx-trigger="every 2s"' in html
    assert "I&#x27;d like to apply for a loan" in html and "What is your email address?" in html
    assert "<strong>apply_loan</strong>" in html  # the goal stack
    assert "<code>authorize(credit_check)</code>" in html  # the current plan
    assert "<code>lookup_customer.m1</code>" in html  # the execution history
    assert "123-45-6789" not in html and MASK in html


def test_the_poll_gets_the_inspector_only_and_sees_new_messages(logged_in, session):
    message_post(session_id=session.pk, text="yes")
    fragment = logged_in.get(f"/sessions/{session.pk}/", headers={"HX-Request": "true"})
    html = fragment.content.decode()
    assert fragment.status_code == 200
    assert html.lstrip().startswith('<div id="inspector"') and "<html" not in html
    assert "<code>credit_check.m1</code>" in html and "What is the amount you want to borrow?" in html


def test_another_workspace_cannot_see_the_session(session):
    other = Workspace.objects.create(name="Other", slug="other")
    user = user_create(username="eve", password="secret-pass-1")
    membership_set(workspace=other, user=user, role=Role.ANALYST)
    client = Client()
    client.force_login(user)
    assert client.get(f"/sessions/{session.pk}/").status_code == 404
    assert "demo-banking" not in client.get("/sessions/").content.decode()


def test_the_inspector_needs_a_login(session, client):
    page = client.get(f"/sessions/{session.pk}/")
    assert page.status_code == 302 and page["Location"].startswith("/accounts/login/")
