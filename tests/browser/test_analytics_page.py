"""An analyst opens the analytics of a seeded assistant from the Assistants page, reads it, and queues a
request that was not understood as an intent example."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from playwright.sync_api import Page, expect

from orchestrator.assistants.models import Assistant
from orchestrator.chat.services import message_post, session_create
from orchestrator.learning.models import Refinement
from tests.browser.steps import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SSN = "123-45-6789"


def _talk(assistant: Assistant, script: list[str]) -> None:
    session, _ = session_create(assistant=assistant)
    for text in script:
        message_post(session_id=session.pk, text=text)


def test_analytics_of_a_seeded_assistant(live_server, page: Page, artifacts):
    call_command("load_demo", stdout=StringIO())
    assistant = Assistant.objects.get(key="demo-banking")
    _talk(assistant, ["I'd like to apply for a loan", "ada@example.com", f"my ssn is {SSN}", "yes", "$20,000", "yes"])
    _talk(assistant, ["I'd like to apply for a loan", "ada@example.com", f"my ssn is {SSN}", "no"])
    _talk(assistant, ["blorp fizzle wug"])
    slug = assistant.catalog_version.catalog.slug

    log_in(page, f"{live_server.url}/accounts/login/?next=/catalogs/{slug}/assistants/", "analyst", "analyst")
    page.get_by_role("link", name="Analytics of demo-banking").click()

    expect(page.get_by_role("heading", name="Analytics of")).to_be_visible()
    figures = page.locator("#analytics-figures")
    expect(figures).to_contain_text("3 (3 opened)")
    expect(figures).to_contain_text("33%")  # one goal reached of three conversations
    expect(page.get_by_role("img", name="Conversations and goals reached per day")).to_be_visible()
    expect(page.get_by_role("table", name="Consents asked and refused")).to_contain_text("credit_check")
    expect(page.locator("#analytics")).not_to_contain_text(SSN)

    unread = page.get_by_role("table", name="Requests not understood")
    expect(unread).to_contain_text("blorp fizzle wug")
    unread.get_by_label("Intent for “blorp fizzle wug”").select_option("apply_credit_card")
    unread.get_by_role("button", name="Add “blorp fizzle wug” as an example").click()
    expect(page.get_by_role("status")).to_contain_text("queued as an example of apply_credit_card")
    assert Refinement.objects.filter(status="pending", change__value="blorp fizzle wug").count() == 1
    page.screenshot(path=str(artifacts / "analytics.png"), full_page=True)
