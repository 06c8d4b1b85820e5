"""From an empty catalog to a live assistant, in Chromium, without a terminal.

An admin builds a small catalog through the forms, talks to the draft in the test chat beside
the editor (no publishing), sees it restart after an edit, promotes and publishes it on the
Assistants screen, and chats with it through the widget on a page of another origin.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.core.cache import cache
from playwright.sync_api import Locator, Page, expect

from catalog_app.models import Role
from catalog_app.services import membership_set, user_create, workspace_get_or_create_default
from orchestrator.assistants.models import Assistant
from orchestrator.chat.models import ChatSession
from orchestrator.chat.widget_demo import demo_page, demo_server, serve_in_thread
from tests.browser.steps import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

REPLY = 20_000  # a turn plans with Fast Downward: seconds on a busy machine


def _open(page: Page, summary: str) -> Locator:
    details = page.locator("details", has=page.locator("summary", has_text=summary)).last
    details.locator("summary").first.click()
    return details


def _build(page: Page) -> None:
    page.get_by_label("Short name").fill("shop")
    page.get_by_label("Title").fill("Shop assistant")
    page.get_by_role("button", name="Create").click()
    expect(page).to_have_url(re.compile(r"/catalogs/shop/edit/$"))
    form = _open(page, "Add an element")
    form.get_by_label("Name", exact=True).fill("order_status")
    form.get_by_label("The user can be asked for it").uncheck()
    form.get_by_role("button", name="Add element").click()
    expect(page.locator("#element-order_status")).to_be_visible()
    form = _open(page, "Add a skill")
    form.get_by_label("Name", exact=True).fill("lookup_order")
    form.get_by_label("Inputs").fill("order_id")
    form.get_by_label("Outputs when it succeeds").fill("order_status")
    form.get_by_label("Add a failure outcome (recommended)").uncheck()
    form.get_by_role("button", name="Add skill").click()
    # order_id is a new name: it becomes an element only when the analyst says so.
    page.get_by_role("button", name="Create element order_id and save").click()
    expect(page.locator("#skill-lookup_order")).to_be_visible()
    form = _open(page, "Add an intent")
    form.get_by_label("Name", exact=True).fill("track_order")
    form.get_by_label("Example utterances").fill("where is my order\nhas my parcel shipped")
    form.get_by_label("Goal: know these elements").fill("order_status")
    form.get_by_role("button", name="Add intent").click()
    expect(page.locator("#preview-plan-track_order")).to_contain_text("plan found", timeout=REPLY)


def _test_chat_say(chat: Locator, text: str) -> None:
    chat.get_by_label("Message to the test assistant").fill(text)
    chat.get_by_role("button", name="Send").click()


def test_from_an_empty_catalog_to_the_widget_without_a_terminal(live_server, page: Page, artifacts: Path):
    workspace = workspace_get_or_create_default()
    membership_set(workspace=workspace, user=user_create(username="ada", password="ada-pass-1"), role=Role.ADMIN)
    cache.clear()
    log_in(page, f"{live_server.url}/accounts/login/", "ada", "ada-pass-1")
    _build(page)

    # The test chat talks to the draft: no assistant is published.
    chat = page.locator("#test-chat")
    expect(chat).to_contain_text("v1 draft · not published")
    log = chat.get_by_role("list", name="Test conversation")
    expect(log).to_contain_text("Hello!")
    _test_chat_say(chat, "where is my order")
    expect(log).to_contain_text("asks order_id", timeout=REPLY)
    expect(log.locator(".tc-trace").last).to_contain_text("1 plan")
    log.locator(".tc-trace summary").last.click()
    expect(log.locator(".tc-plan").last).to_contain_text("ask(order_id)")
    _test_chat_say(chat, "A-123")
    expect(log.locator(".kind-result")).to_be_visible(timeout=REPLY)
    log.get_by_role("button", name="How: order_status").click()
    expect(log.locator(".kind-explanation")).to_contain_text("lookup", timeout=REPLY)
    page.screenshot(path=str(artifacts / "studio-test-chat.png"))
    assert not Assistant.objects.filter(studio_test=False).exists()
    assert ChatSession.objects.filter(assistant__studio_test=True).count() == 1

    # An edit restarts the conversation on the edited draft.
    form = _open(page, "Add an element")
    form.get_by_label("Name", exact=True).fill("order_date")
    form.get_by_role("button", name="Add element").click()
    expect(page.locator("#element-order_date")).to_be_visible()
    expect(log.locator(".tc-user")).to_have_count(0)
    expect(page.locator("#test-chat").get_by_role("list", name="Test conversation")).to_contain_text("Hello!")

    # Promote, then publish on the Assistants screen.
    page.get_by_role("link", name="Versions").click()
    page.get_by_role("link", name="Promote v1").click()  # a summary of what changes comes first
    page.get_by_role("button", name="Promote v1 now").click()
    expect(page.locator(".message-success")).to_contain_text("Version 1 is promoted")
    page.get_by_role("link", name="Assistants").click()
    expect(page.get_by_text("No assistant runs this catalog yet.")).to_be_visible()
    page.get_by_label("Key").fill("shop-bot")
    page.get_by_role("button", name="Publish").click()
    expect(page.locator(".message-success")).to_contain_text("Assistant 'shop-bot' is published")
    expect(page.locator("#assistant-shop-bot")).to_contain_text("live on v1")
    page.screenshot(path=str(artifacts / "studio-assistants.png"), full_page=True)

    # The customer's page, another origin: its origin allowed on the screen, then the widget.
    server = demo_server(host="127.0.0.1", port=0, page=demo_page(api=live_server.url, key="shop-bot"))
    serve_in_thread(server)
    site = f"http://127.0.0.1:{server.server_port}"
    try:
        page.get_by_label("Allowed origins", exact=True).first.fill(site)
        page.get_by_role("button", name="Save origins of shop-bot").click()
        expect(page.locator(".message-success")).to_contain_text(site)
        page.goto(site)
        page.get_by_role("button", name="Chat with us").click()
        widget = page.get_by_role("dialog", name="Assistant")
        widget.get_by_label("Your message").fill("where is my order")
        widget.get_by_role("button", name="Send").click()
        expect(widget.locator(".msg.bot").last).to_contain_text("order", timeout=REPLY)
        assert ChatSession.objects.filter(assistant__key="shop-bot").count() == 1
    finally:
        server.shutdown()
        server.server_close()
