"""Conversation tests in Chromium: an admin saves a test-chat conversation as a test, runs it (pass),
breaks it in its form (fail, with the first difference), requires the tests on the Promotion page,
and sees the promotion of the version refused for it."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.cache import cache
from playwright.sync_api import Page, expect

from catalog_app.models import Role
from catalog_app.services import catalog_import, membership_set, user_create, workspace_get_or_create_default
from tests.browser.steps import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

REPLY = 20_000  # a turn plans with Fast Downward: seconds on a busy machine


def test_save_run_break_and_gate_a_conversation_test(live_server, page: Page, artifacts: Path, banking_spec):
    workspace = workspace_get_or_create_default()
    membership_set(workspace=workspace, user=user_create(username="ada", password="ada-pass-1"), role=Role.ADMIN)
    catalog_import(workspace=workspace, spec=banking_spec)
    cache.clear()
    log_in(page, f"{live_server.url}/accounts/login/", "ada", "ada-pass-1")

    page.goto(f"{live_server.url}/catalogs/banking/edit/?version=1")
    chat = page.locator("#test-chat")
    log = chat.get_by_role("list", name="Test conversation")
    expect(log).to_contain_text("Hello!")
    for text, shown in (("I'd like to apply for a loan", "asks email"), ("ada@example.com", "asks ssn")):
        chat.get_by_label("Message to the test assistant").fill(text)
        chat.get_by_role("button", name="Send").click()
        expect(log).to_contain_text(shown, timeout=REPLY)
    chat.get_by_label("Save the conversation as a test").fill("loan start")
    chat.get_by_role("button", name="Save as test").click()
    expect(chat.locator("#tc-saved")).to_contain_text("Saved as test loan start (2 turns)", timeout=REPLY)

    page.get_by_role("link", name="Tests", exact=True).click()
    page.get_by_role("button", name="Run all 1 on v1").click()
    expect(page.locator("#tests-summary")).to_contain_text("v1: 1 passed, 0 failed", timeout=REPLY)

    # Break it: the first turn now expects the SSN to be asked first.
    page.locator("#tests-results").get_by_role("link", name="loan start").click()
    page.get_by_label("Turn 1: asked for").fill("ssn")
    page.get_by_role("button", name="Save the test").click()
    page.get_by_role("button", name="Run all 1 on v1").click()
    expect(page.locator("#tests-summary")).to_contain_text("v1: 0 passed, 1 failed", timeout=REPLY)
    expect(page.locator("#tests-results")).to_contain_text("asked for: expected ssn, got email")
    page.screenshot(path=str(artifacts / "conversation-tests.png"), full_page=True)

    # The Promotion page shows the tests; the admin makes them required; promotion is refused.
    page.get_by_role("link", name="Promote", exact=True).click()
    gate = page.locator("#conversation-tests-gate")
    expect(gate).to_contain_text("0 passed, 1 failed")
    gate.get_by_label("Require the conversation tests to pass").check()
    gate.get_by_role("button", name="Save").click()
    expect(page.locator("#tests-required")).to_contain_text("requires every conversation test to pass")
    page.get_by_role("link", name="Versions").click()
    page.get_by_role("link", name="Promote v1").click()  # the summary before promoting shows the tests too
    expect(page.locator("#conversation-tests-gate")).to_contain_text("0 passed, 1 failed")
    page.get_by_role("button", name="Promote v1 now").click()
    expect(page.get_by_text("1 of 1 conversation tests fail on version 1")).to_be_visible(timeout=REPLY)
