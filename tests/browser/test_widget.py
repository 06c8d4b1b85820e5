"""The chat widget on a "customer site" served from another origin than the API, in Chromium.

The demo host page (`orchestrator.chat.widget_demo`, what `manage.py run_widget_demo` serves) runs on
a free port of 127.0.0.1; the studio (API and widget.js) is the live server on localhost. The
assistant allows the page's origin, as `load_demo` allows the demo site's.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from datetime import timedelta
from io import StringIO

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.utils import timezone
from playwright.sync_api import Browser, Page, Route, expect

from catalog_app.permissions import OPERATOR
from orchestrator.assistants.models import Assistant
from orchestrator.assistants.services import assistant_set_origins
from orchestrator.chat.models import ChatSession, Message
from orchestrator.chat.widget_demo import demo_page, demo_server, serve_in_thread
from tests.browser.steps import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

KEY = "demo-banking"


def _site(live_server, key: str = KEY, allow: bool = True, extra: str = "") -> Iterator[str]:
    server = demo_server(host="127.0.0.1", port=0, page=demo_page(api=live_server.url, key=key, extra=extra))
    serve_in_thread(server)
    url = f"http://127.0.0.1:{server.server_port}"
    if allow:
        assistant = Assistant.objects.get(key=key)
        assistant_set_origins(user=OPERATOR, assistant=assistant, allowed_origins=[*assistant.allowed_origins, url])
    try:
        yield url
    finally:
        server.shutdown()
        server.server_close()


def test_a_message_to_a_busy_session_is_sent_again_after_the_409(site, page: Page, settings):
    """The session's lease is held (a previous turn still running): the server answers 409 with
    Retry-After, the widget waits as told and sends the same message again (issue 10)."""
    settings.CONCERTO_CHAT_LEASE_WAIT = 0.3
    dialog = _chat(page, site)
    session = ChatSession.objects.get()
    ChatSession.objects.filter(pk=session.pk).update(lease_token=uuid.uuid4(),
                                                     lease_until=timezone.now() + timedelta(seconds=60))
    answers: list[int] = []

    def free_after_the_first_409(route: Route) -> None:
        response = route.fetch()
        answers.append(response.status)
        if response.status == 409:
            assert response.headers["retry-after"] == "1"
            ChatSession.objects.filter(pk=session.pk).update(lease_token=None, lease_until=None)  # the turn ended
        route.fulfill(response=response)

    page.route(re.compile(r".*/messages$"), free_after_the_first_409)
    _say(dialog, "I'd like to apply for a loan")
    _reply(dialog, "What is your email address?")
    assert answers == [409, 200]
    users = Message.objects.filter(session=session, role="user")
    assert users.count() == 1
    expect(dialog.locator(".msg.bot.question")).to_have_count(1)


def test_a_busy_server_is_said_and_the_message_can_be_sent_again(site, page: Page, settings):
    """The server answers 503 with Retry-After (here: the rate limits' cache is down and the
    deployment refuses then; the same answer as skills too busy): the widget says the assistant is
    busy and keeps the message with a Retry button, which sends it again (issue 24)."""
    dialog = _chat(page, site)
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                                   "LOCATION": "redis://127.0.0.1:1/0"}}
    settings.CONCERTO_CHAT_RATE_WHEN_DOWN = "refuse"
    _say(dialog, "I'd like to apply for a loan")
    expect(dialog.locator(".note")).to_contain_text("The assistant is busy right now; please try again")
    expect(dialog.locator(".msg.user.failed")).to_have_count(1)
    settings.CONCERTO_CHAT_RATE_WHEN_DOWN = "open"  # the deployment lets the chat through again
    dialog.get_by_role("button", name="Retry").click()
    _reply(dialog, "What is your email address?")
    assert Message.objects.filter(session=ChatSession.objects.get(), role="user").count() == 1


@pytest.fixture
def demo_assistant(db) -> Assistant:
    call_command("load_demo", stdout=StringIO())
    cache.clear()  # rate-limit counters of earlier tests
    return Assistant.objects.get(key=KEY)


@pytest.fixture
def site(live_server, demo_assistant) -> Iterator[str]:
    yield from _site(live_server)


def _chat(page: Page, url: str):
    page.goto(url)
    page.get_by_role("button", name="Chat with us").click()
    dialog = page.get_by_role("dialog", name="Assistant")
    expect(dialog.get_by_role("log")).to_contain_text("Hello!")
    return dialog


def _say(dialog, text: str) -> None:
    dialog.get_by_label("Your message").fill(text)
    dialog.get_by_role("button", name="Send").click()


def _last_bot(dialog):
    return dialog.locator(".msg.bot").last


def _reply(dialog, text: str, timeout: int = 20_000) -> None:
    """The assistant's last message says `text`; a turn's planning may take seconds on a busy machine."""
    expect(_last_bot(dialog)).to_contain_text(text, timeout=timeout)


def _to_consent(dialog) -> None:
    _say(dialog, "I'd like to apply for a loan")
    _reply(dialog, "What is your email address?")
    _reply(dialog, "Expected: an email address")
    _say(dialog, "ada@example.com")
    _reply(dialog, "social security number")
    _say(dialog, "123-45-6789")
    _reply(dialog, "Shares: your social security number with")


def test_a_whole_loan_conversation_through_the_widget(site, page: Page, artifacts):
    dialog = _chat(page, site)
    _to_consent(dialog)
    dialog.get_by_role("button", name="Allow", exact=True).last.click()
    _reply(dialog, "the amount you want to borrow")
    _say(dialog, "$20,000")
    _reply(dialog, "Shares:")
    dialog.get_by_role("button", name="Allow", exact=True).last.click()
    expect(dialog.get_by_role("log")).to_contain_text("approved", timeout=20_000)
    # The offer of a credit card: yes, then the card type offered as buttons (an enum).
    dialog.get_by_role("button", name="Yes").last.click()
    card = dialog.get_by_role("button", name="gold")
    expect(card).to_be_visible()
    page.screenshot(path=str(artifacts / "widget-desktop.png"))
    session = ChatSession.objects.get()
    assert session.assistant.key == KEY
    assert session.shares.filter(skill="credit_check").exists()
    assert "123-45-6789" not in str(list(session.messages.values_list("text", flat=True)))


def test_refused_consent_shares_nothing(site, page: Page):
    dialog = _chat(page, site)
    _to_consent(dialog)
    dialog.get_by_role("button", name="Don't allow").click()
    _reply(dialog, "without your consent")
    expect(dialog.get_by_role("button", name="Allow", exact=True)).to_be_disabled()  # an answered prompt is closed
    assert not ChatSession.objects.get().shares.exists()


def test_an_explanation_opens_with_an_expandable_how_tree(site, page: Page, artifacts):
    dialog = _chat(page, site)
    _to_consent(dialog)
    dialog.get_by_role("button", name="Allow", exact=True).last.click()
    _reply(dialog, "the amount you want to borrow")
    _say(dialog, "$20,000")
    _reply(dialog, "Shares:")
    dialog.get_by_role("button", name="Allow", exact=True).last.click()
    expect(dialog.get_by_role("log")).to_contain_text("approved", timeout=20_000)
    dialog.get_by_role("button", name="How? loan status").click()
    explanation = dialog.locator(".msg.explanation").last
    expect(explanation).to_contain_text("I got the decision on your loan from submit loan")
    branch = explanation.locator("details").first
    expect(branch).not_to_have_attribute("open", "")
    branch.locator("> summary").click()
    expect(branch.locator("> ul")).to_be_visible()
    expect(explanation).to_contain_text("from you")
    dialog.get_by_role("button", name="What did you do?").click()
    expect(dialog.locator(".msg.explanation")).to_have_count(2)
    page.screenshot(path=str(artifacts / "widget-explanation.png"))


def test_a_reload_in_the_middle_continues_the_conversation(site, page: Page):
    dialog = _chat(page, site)
    _say(dialog, "I'd like to apply for a loan")
    _reply(dialog, "What is your email address?")
    page.reload()
    dialog = page.get_by_role("dialog", name="Assistant")  # it was open: it opens again
    expect(dialog.get_by_role("log")).to_contain_text("What is your email address?", timeout=20_000)
    expect(dialog.locator(".msg.user")).to_have_count(1)
    _say(dialog, "ada@example.com")
    _reply(dialog, "social security number")
    assert ChatSession.objects.count() == 1


def test_a_resend_after_a_lost_answer_runs_one_turn(site, page: Page):
    dialog = _chat(page, site)
    lost: list[str] = []

    def lose_the_first_answer(route: Route) -> None:
        if not lost:
            route.fetch()  # the server runs the turn...
            lost.append(route.request.post_data or "")
            route.abort("connectionreset")  # ...and its answer never arrives
        else:
            route.continue_()

    page.route(re.compile(r".*/messages$"), lose_the_first_answer)
    _say(dialog, "I'd like to apply for a loan")
    _reply(dialog, "What is your email address?")
    assert lost
    session = ChatSession.objects.get()
    users = Message.objects.filter(session=session, role="user")
    assert users.count() == 1 and users.get().client_id  # one turn, though sent twice
    expect(dialog.locator(".msg.bot.question")).to_have_count(1)


def test_a_page_whose_origin_is_not_allowed_shows_no_launcher(live_server, demo_assistant, page: Page):
    for url in _site(live_server, allow=False):
        # The widget asks before showing anything; the answer (403, no CORS headers) never reaches the page.
        with page.expect_request(lambda r: r.url.endswith(f"/api/v1/assistants/{KEY}/widget")):
            page.goto(url)
        expect(page.locator("#concerto-chat")).to_have_count(0)  # and took itself away
        expect(page.get_by_role("button", name="Chat with us")).to_have_count(0)
    assert not ChatSession.objects.exists()


def test_the_embed_tag_is_copied_from_the_assistants_page_and_titles_the_panel(
        live_server, demo_assistant, browser: Browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    page = context.new_page()
    log_in(page, f"{live_server.url}/accounts/login/", "analyst", "analyst")
    page.goto(f"{live_server.url}/catalogs/banking/assistants/")
    card = page.locator(f"#assistant-{KEY}")
    card.get_by_role("button", name=re.compile("Copy the tag")).click()
    expect(card.get_by_role("status")).to_have_text("Copied.")
    tag = page.evaluate("navigator.clipboard.readText()")
    assert tag == card.get_by_label("Embed it on a page").input_value()
    assert f'data-assistant="{KEY}"' in tag and f'data-title="{demo_assistant.name}"' in tag
    context.close()
    # The copied tag, pasted into a page the assistant is published on: the panel bears its name.
    title = re.search(r'data-title="([^"]*)"', tag).group(1)
    for url in _site(live_server, extra=f' data-title="{title}"'):
        site_page = browser.new_page()
        site_page.goto(url)
        site_page.get_by_role("button", name="Chat with us").click()
        expect(site_page.get_by_role("dialog", name=demo_assistant.name, exact=True)).to_be_visible()
        site_page.close()


def test_without_data_title_the_panel_bears_the_assistants_name(site, page: Page):
    page.goto(site)
    page.get_by_role("button", name="Chat with us").click()
    expect(page.get_by_role("dialog", name="Banking assistant (demo)", exact=True)).to_be_visible()


def test_keyboard_only(site, page: Page):
    page.goto(site)
    launcher = page.get_by_role("button", name="Chat with us")
    for _ in range(10):  # tab through the page until the launcher has the focus
        page.keyboard.press("Tab")
        if launcher.evaluate("b => b.getRootNode().activeElement === b"):
            break
    page.keyboard.press("Enter")
    dialog = page.get_by_role("dialog", name="Assistant")
    box = dialog.get_by_label("Your message")
    expect(box).to_be_focused()
    expect(dialog.get_by_role("log")).to_contain_text("Hello!")
    page.keyboard.type("I'd like to apply for a loan")
    page.keyboard.press("Enter")
    _reply(dialog, "What is your email address?")
    page.keyboard.type("ada@example.com")
    page.keyboard.press("Enter")
    _reply(dialog, "social security number")
    page.keyboard.type("123-45-6789")
    page.keyboard.press("Enter")
    allow = dialog.get_by_role("button", name="Allow", exact=True)
    expect(allow).to_be_visible()
    expect(box).to_be_focused()
    for _ in range(6):  # back from the message box: "What did you do?", then the prompt's buttons
        page.keyboard.press("Shift+Tab")
        if allow.evaluate("b => b.getRootNode().activeElement === b"):
            break
    expect(allow).to_be_focused()
    page.keyboard.press("Enter")
    _reply(dialog, "the amount you want to borrow")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(launcher).to_be_focused()
    expect(page.locator("#concerto-chat .log")).to_have_attribute("aria-live", "polite")  # new messages are announced


def test_on_a_360_px_phone(live_server, demo_assistant, browser: Browser, artifacts):
    context = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True)
    try:
        phone = context.new_page()
        for url in _site(live_server):
            dialog = _chat(phone, url)
            _say(dialog, "I'd like to apply for a loan")
            _reply(dialog, "What is your email address?")
            box = dialog.bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 360
            send = dialog.get_by_role("button", name="Send").bounding_box()
            assert send is not None and send["x"] + send["width"] <= 360
            phone.screenshot(path=str(artifacts / "widget-phone.png"))
    finally:
        context.close()


def test_themed_translated_and_isolated_from_the_page_styles(live_server, demo_assistant, page: Page):
    extra = ' data-lang="fr" data-title="Acme, votre banque" data-position="left" data-greeting="Bonjour et bienvenue"'
    for url in _site(live_server, extra=extra):
        page.goto(url)
        launcher = page.get_by_role("button", name="Discuter avec nous")
        # The page's --concerto-accent (#0b6e4f) colours it; its `button {background: hotpink}` does not.
        expect(launcher).to_have_css("background-color", "rgb(11, 110, 79)")
        page_button = page.get_by_role("button", name=re.compile("A button of the page"))
        expect(page_button).to_have_css("background-color", "rgb(255, 105, 180)")
        box = launcher.bounding_box()
        assert box is not None and box["x"] < 100  # data-position="left"
        launcher.click()
        dialog = page.get_by_role("dialog", name="Acme, votre banque")
        expect(dialog.get_by_role("log")).to_contain_text("Bonjour et bienvenue")
        expect(dialog.get_by_role("button", name="Envoyer")).to_be_visible()
        expect(dialog.get_by_label("Votre message")).to_be_focused()


def test_a_new_conversation_ends_the_old_one_and_drops_its_values(site, page: Page):
    dialog = _chat(page, site)
    _to_consent(dialog)
    old = ChatSession.objects.get()
    assert old.state != {"purged": True}
    dialog.get_by_role("button", name="New conversation").click()
    expect(dialog.get_by_role("log")).to_contain_text("Hello!")
    for _ in range(50):
        old.refresh_from_db()
        if old.state == {"purged": True}:
            break
        page.wait_for_timeout(100)
    assert old.state == {"purged": True}
    assert ChatSession.objects.count() == 2
    assert Message.objects.filter(session=old).exists()  # the transcript stays
