"""The analytics page as a studio user sees it: login required, own workspace only, nothing sensitive
shown, and a request not understood queued for review in one click."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from catalog_app.models import Role, Workspace
from catalog_app.services import membership_set, user_create
from orchestrator.learning.models import Refinement

pytestmark = pytest.mark.django_db

SSN = "123-45-6789"


def _url(demo, name: str = "orchestrator:analytics") -> str:
    return reverse(name, args=[demo.catalog_version.catalog.slug, demo.key])


@pytest.fixture
def analyst(demo) -> Client:
    client = Client()
    client.force_login(get_user_model().objects.get(username="analyst"))
    return client


@pytest.fixture
def chats(demo, widget):
    """A loan where the SSN is typed at the wrong question and a consent is refused, and an unread request."""
    session_id = widget.start().json()["id"]
    for text in ("I'd like to apply for a loan", SSN, "ada@example.com", f"my ssn is {SSN}", "no"):
        assert widget.send(session_id, text).status_code == 200
    session_id = widget.start().json()["id"]
    for text in ("blorp fizzle wug", f"my ssn is {SSN} blorp"):
        assert widget.send(session_id, text).status_code == 200
    return demo


def test_the_page_needs_a_login(demo):
    answer = Client().get(_url(demo))
    assert answer.status_code == 302 and "login" in answer["Location"]


def test_another_workspace_cannot_open_an_assistants_analytics(demo):
    other = Workspace.objects.create(name="Other", slug="other")
    user = user_create(username="eve", password="secret-pass-1")
    membership_set(workspace=other, user=user, role=Role.ANALYST)
    client = Client()
    client.force_login(user)
    assert client.get(_url(demo)).status_code == 404
    assert client.post(_url(demo, "orchestrator:analytics_example"),
                       {"text": "blorp", "intent": "apply_loan"}).status_code == 404
    assert not Refinement.objects.exists()


def test_the_page_shows_the_figures_and_never_a_sensitive_value(chats, analyst):
    page = analyst.get(_url(chats))
    assert page.status_code == 200
    html = page.content.decode()
    assert SSN not in html and "123456789" not in html
    assert "blorp fizzle wug" in html  # what was not understood, as stored
    assert "credit_check" in html  # the refused consent's skill
    assert 'id="chart-timeline-title"' in html and "<svg" in html


def test_the_assistants_page_links_to_each_assistants_analytics(demo, analyst):
    html = analyst.get(reverse("orchestrator:assistants", args=[demo.catalog_version.catalog.slug])).content.decode()
    assert f'href="{_url(demo)}"' in html


def test_a_bad_filter_is_said_on_the_page(demo, analyst):
    page = analyst.get(_url(demo), {"since": "yesterday", "version": "99"})
    assert page.status_code == 200
    html = page.content.decode()
    assert "is not a date" in html and "no conversation started on version" in html


def test_a_request_not_understood_is_queued_as_an_example_for_review(chats, analyst):
    answer = analyst.post(_url(chats, "orchestrator:analytics_example"),
                          {"text": "blorp fizzle wug", "intent": "apply_loan", "since": "2020-01-01"})
    assert answer.status_code == 302 and answer["Location"].endswith("?since=2020-01-01")
    [refinement] = Refinement.objects.all()
    assert (refinement.status, refinement.kind, refinement.source) == ("pending", "intent_example", "analytics")
    assert refinement.change == {"op": "add_example", "intent": "apply_loan", "value": "blorp fizzle wug"}
    again = analyst.post(_url(chats, "orchestrator:analytics_example"), {"text": "blorp fizzle wug",
                                                                         "intent": "apply_loan"})
    assert again.status_code == 302 and Refinement.objects.count() == 1  # queued once
    review = analyst.get(reverse("orchestrator:review", args=[chats.catalog_version.catalog.slug]))
    assert "blorp fizzle wug" in review.content.decode()


def test_a_masked_request_or_an_unknown_intent_is_refused_with_a_message(chats, analyst):
    for data in ({"text": "my ssn is •••• (hidden) blorp", "intent": "apply_loan"},
                 {"text": "blorp fizzle wug", "intent": "no_such_intent"}):
        answer = analyst.post(_url(chats, "orchestrator:analytics_example"), data, follow=True)
        assert answer.status_code == 200
        assert "cannot be an example" in answer.content.decode() or "unknown intent" in answer.content.decode()
    assert not Refinement.objects.exists()
