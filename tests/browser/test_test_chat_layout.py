"""The docked test chat covers none of the editor's panes, at a laptop's width and at a phone's.

At 1440x900 the editor page reserves a column for the chat: its box meets no preview pane (plans, things
to check, PDDL), before and after the preview is scrolled. At 360x740 it starts closed, a bar at the
bottom, and the page leaves room below its last pane so every pane scrolls above the bar.
"""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from playwright.sync_api import Browser, Page, expect

from .test_studio_build import _log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

Box = dict[str, float]


@pytest.fixture
def demo_site(live_server) -> str:
    call_command("load_demo", stdout=StringIO())
    return live_server.url


def _editor(browser: Browser, base: str, width: int, height: int) -> Page:
    page = browser.new_context(viewport={"width": width, "height": height}).new_page()
    page.set_default_timeout(20_000)
    _log_in(page, base, "analyst", "analyst")
    page.goto(f"{base}/catalogs/banking/edit/?version=2")
    expect(page.locator("#lint-heading")).to_be_visible()
    expect(page.locator("#test-chat")).to_contain_text("Test chat")
    return page


def _box(page: Page, selector: str) -> Box:
    box = page.locator(selector).first.bounding_box()
    assert box is not None, f"{selector} is not drawn"
    return box


def _overlap(a: Box, b: Box) -> float:
    """The area two boxes share (viewport coordinates)."""
    wide = min(a["x"] + a["width"], b["x"] + b["width"]) - max(a["x"], b["x"])
    tall = min(a["y"] + a["height"], b["y"] + b["height"]) - max(a["y"], b["y"])
    return max(wide, 0) * max(tall, 0)


PANES = ("#preview .card:has(#lint-heading)", "#preview .card:has(#pddl-heading)", "#preview .plan-preview")


def test_at_1440_the_chat_has_its_own_column_beside_every_pane(browser: Browser, demo_site: str, artifacts: Path):
    page = _editor(browser, demo_site, 1440, 900)
    chat = page.locator("#test-chat")
    expect(chat).to_have_attribute("open", "")  # open by default where it has room
    expect(chat.get_by_label("Message to the test assistant")).to_be_visible()
    for scrolled in (False, True):
        if scrolled:  # the preview column scrolls on its own: its last pane comes up
            page.locator("#preview").evaluate("el => el.scrollTo(0, el.scrollHeight)")
            page.mouse.wheel(0, 5000)
        chat_box = _box(page, "#test-chat")
        for pane in PANES:
            assert _overlap(chat_box, _box(page, pane)) == 0, (pane, scrolled, chat_box, _box(page, pane))
    page.screenshot(path=str(artifacts / "test-chat-1440.png"))
    editor = _box(page, ".studio")
    assert editor["x"] + editor["width"] <= chat_box["x"]  # the editor and preview end where the chat begins
    assert chat_box["x"] + chat_box["width"] <= 1440


def test_on_a_phone_the_chat_starts_closed_and_every_pane_scrolls_above_it(browser: Browser, demo_site: str,
                                                                          artifacts: Path):
    page = _editor(browser, demo_site, 360, 740)
    chat = page.locator("#test-chat")
    expect(chat).not_to_have_attribute("open", "")
    chat_box = _box(page, "#test-chat")
    assert chat_box["height"] <= 0.1 * 740, chat_box  # a bar, not 45% of the screen
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")  # the page's very end
    last = _box(page, "#preview .card:has(#pddl-heading)")
    assert last["y"] + last["height"] <= _box(page, "#test-chat")["y"], "the last pane ends under the chat"
    page.screenshot(path=str(artifacts / "test-chat-360.png"))
    # Opened by the analyst, it stays open across the panel's reload after an edit (the tab remembers).
    chat.locator("summary").click()
    expect(chat.get_by_label("Message to the test assistant")).to_be_visible()
    page.evaluate("htmx.trigger(document.body, 'catalog-changed')")
    page.wait_for_timeout(1500)
    expect(page.locator("#test-chat").get_by_label("Message to the test assistant")).to_be_visible()
