"""The session inspector follows a live conversation: htmx polls it every 2 seconds."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.management import call_command
from playwright.sync_api import Page, expect

from orchestrator.assistants.models import Assistant
from orchestrator.chat.services import message_post, session_create
from tests.browser.steps import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_inspector_updates_as_the_conversation_goes(live_server, page: Page, artifacts):
    call_command("load_demo", stdout=StringIO())
    session, _ = session_create(assistant=Assistant.objects.get(key="demo-banking"))
    message_post(session_id=session.pk, text="I'd like to apply for a loan")

    log_in(page, f"{live_server.url}/accounts/login/?next=/sessions/", "analyst", "analyst")
    expect(page.get_by_role("heading", name="Chat sessions")).to_be_visible()
    page.get_by_role("link", name=str(session.pk)[:8]).click()
    expect(page).to_have_url(re.compile(rf"/sessions/{session.pk}/$"))
    expect(page.locator("#inspector .goal-stack")).to_contain_text("apply_loan")
    expect(page.locator("#inspector .transcript")).to_contain_text("What is your email address?")

    # The conversation goes on elsewhere; the open page catches up without a reload.
    for text in ("ada@example.com", "123-45-6789", "yes"):
        message_post(session_id=session.pk, text=text)
    expect(page.locator("#inspector .transcript")).to_contain_text("What is the amount you want to borrow?",
                                                                   timeout=6_000)
    expect(page.locator("#inspector table.history")).to_contain_text("credit_check.m1")
    expect(page.locator("#inspector")).not_to_contain_text("123-45-6789")
    expect(page.locator(".site-header")).to_have_count(1)  # fragments swapped, not whole pages
    page.screenshot(path=str(artifacts / "session-inspector.png"), full_page=True)
