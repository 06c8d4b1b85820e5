"""Learning from every pick, end to end: conversations over the chat API that "did you mean ...?" asks
about, the learning API reading the live sessions, and the review queue showing the proposals."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import Client

from catalog_app.services import version_promote
from orchestrator.assistants.services import assistant_create
from tests.integration.chat.conftest import Widget

ORIGIN = "https://shop.example"


@pytest.fixture
def widget(workspace, banking) -> Widget:
    cache.clear()  # the chat's rate limits live in the cache
    assistant_create(workspace=workspace, version=version_promote(version=banking, user=None), key="live",
                     allowed_origins=[ORIGIN])
    return Widget(Client(enforce_csrf_checks=True), origin=ORIGIN)


def talk(widget: Widget, *texts: str) -> list[list[dict]]:
    session = widget.start("live").json()["id"]
    answers = []
    for text in texts:
        response = widget.send(session, text)
        assert response.status_code == 200, response.content
        answers.append(response.json()["replies"])
    return answers


def test_picks_and_offers_turned_down_become_proposed_examples_in_the_review_queue(widget, admin_auth):
    for _ in range(2):  # asked about, the second picked: twice
        offer, pick = talk(widget, "a card", "the second")
        choices = offer[-1]["data"]["choices"]
        assert sorted(choices) == ["apply_credit_card", "check_card_status"]
        second = choices[1]
        assert pick[0]["goal"] == second
    offer, no, rephrased = talk(widget, "loan or card", "no", "I need a loan")  # turned down, then said
    assert offer[-1]["data"]["choices"] and not any(r.get("goal") for r in no)
    assert rephrased[0]["goal"] == "apply_loan"
    for answer in ("the first", "the second"):  # the same words picked for two intents: never proposed
        offer, pick = talk(widget, "I want to borrow on a card", answer)
        assert {"apply_credit_card", "apply_loan"} <= set(offer[-1]["data"]["choices"])
        assert pick[0]["goal"] in offer[-1]["data"]["choices"]

    client = Client()
    learned = client.post("/api/v1/catalogs/banking/refinements/learn", {"sessions": True},
                          content_type="application/json", **admin_auth)
    assert learned.status_code == 200, learned.json()
    queue = client.get("/api/v1/catalogs/banking/refinements", **admin_auth).json()
    examples = {(r["change"]["intent"], r["change"]["value"]): r for r in queue if r["kind"] == "intent_example"}
    assert set(examples) == {(second, "a card"), ("apply_loan", "loan or card")}
    picked = examples[(second, "a card")]
    assert picked["evidence"]["picked"] == 2 and len(picked["evidence"]["conversations"]) == 2
    assert all(c.startswith("session:") for c in picked["evidence"]["conversations"])
    assert examples[("apply_loan", "loan or card")]["evidence"]["declined"] == 1

