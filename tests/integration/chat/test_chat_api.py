"""The chat API as the widget uses it: a scripted banking conversation with the demo assistant."""

from __future__ import annotations

import re
import uuid

import pytest
from django.test import Client

from orchestrator.assistants.services import assistant_create
from orchestrator.chat.models import ChatSession, Message, ShareAudit, TraceEvent
from orchestrator.chat.vault import state_open
from orchestrator.engine.runtime.masking import MASK

from .conftest import DEMO_KEY, DEMO_ORIGIN, Widget

SSN = "123-45-6789"


def _start(widget: Widget) -> str:
    answer = widget.start()
    assert answer.status_code == 201, answer.content
    body = answer.json()
    assert body["replies"][0]["kind"] == "text" and body["replies"][0]["text"].startswith("Hello!")
    return body["id"]


def _say(widget: Widget, session_id: str, text: str) -> list[dict]:
    answer = widget.send(session_id, text)
    assert answer.status_code == 200, answer.content
    assert answer["Access-Control-Allow-Origin"] == DEMO_ORIGIN
    return answer.json()["replies"]


@pytest.fixture
def loan(demo, widget) -> tuple[str, list[list[dict]]]:
    """A whole loan application, message by message; the session id and every turn's replies."""
    session_id = _start(widget)
    script = ["I'd like to apply for a loan", "ada@example.com", f"my ssn is {SSN}", "yes", "$20,000", "yes"]
    return session_id, [_say(widget, session_id, text) for text in script]


def test_a_loan_conversation_asks_asks_for_consent_and_reports(loan):
    _, turns = loan
    assert turns[0][-1] == {"kind": "question", "text": "What is your email address?", "element": "email",
                            "label": "your email address", "hint": "an email address, e.g. name@example.com"}
    assert turns[1][-1]["kind"] == "question" and turns[1][-1]["element"] == "ssn"
    consent = turns[2][-1]
    assert consent["kind"] == "consent" and consent["skill"] == "credit_check" and consent["elements"] == ["ssn"]
    assert consent["element_labels"] == ["your social security number"]
    assert consent["skill_label"].startswith("credit check")
    assert turns[3][-1]["element"] == "loan_amount"
    consent = turns[4][-1]
    assert consent["kind"] == "consent" and consent["skill"] == "submit_loan"
    assert set(consent["elements"]) == {"income", "credit_score"}
    result = next(r for r in turns[5] if r["kind"] == "result")
    assert result["goal"] == "apply_loan" and result["data"]["values"]["loan_status"] == "approved"
    assert turns[5][-1]["kind"] == "question" and turns[5][-1]["goal"] == "apply_credit_card"


def test_every_share_is_audited(loan):
    session_id, _ = loan
    rows = ShareAudit.objects.filter(session_id=session_id).order_by("pk")
    assert [(r.element, r.skill, r.consent) for r in rows] == [
        ("ssn", "credit_check", "credit_check"),
        ("income", "submit_loan", "submit_loan"),
        ("credit_score", "submit_loan", "submit_loan"),
    ]
    assert {r.assistant.key for r in rows} == {"demo-banking"}


def test_the_transcript_and_traces_hide_sensitive_values(loan, widget, studio_debug):
    session_id, _ = loan
    for answer in (widget.read(session_id), studio_debug(session_id)):
        assert answer.status_code == 200
        body = answer.json()
        typed = next(m for m in body["transcript"] if m["role"] == "user" and "ssn" in m["text"])
        assert typed["text"] == f"my ssn is {MASK}"
        for secret in (SSN, "712", "85000", "85,000"):  # the SSN, the credit score, the income
            # As a value of its own: session ids and timestamps may hold the digits by chance.
            assert not re.search(rf"(?<![\w.-]){re.escape(secret)}(?![\w.-])", answer.content.decode()), secret
    assert body["memory"]["ssn"]["value"] == MASK and body["memory"]["ssn"]["source"] == "user"
    assert body["memory"]["email"]["value"] == "ada@example.com"  # not sensitive: shown
    stored = [m.text for m in Message.objects.filter(session_id=session_id)]
    stored += [str(m.data) for m in Message.objects.filter(session_id=session_id)]
    stored += [str(e.data) for e in TraceEvent.objects.filter(session_id=session_id)]
    assert not any(SSN in text or "712" in text for text in stored)
    # The state keeps the real value (the runtime has to send it to the credit bureau), sealed at rest.
    stored_state = ChatSession.objects.get(pk=session_id).state
    assert SSN not in str(stored_state)
    assert state_open(stored_state).memory["ssn"].value == SSN


def test_the_debug_view_has_goals_plans_and_history(demo, widget, studio_debug):
    session_id = _start(widget)
    _say(widget, session_id, "I'd like to apply for a loan")
    _say(widget, session_id, "ada@example.com")
    body = studio_debug(session_id).json()
    assert [m["role"] for m in body["transcript"]] == ["assistant", "user", "assistant", "assistant", "user",
                                                       "assistant"]
    assert [m["position"] for m in body["transcript"]] == list(range(6))
    assert [g["intent"] for g in body["goals"]] == ["apply_loan"]
    assert body["pending"]["element"] == "ssn"
    assert body["plan"][0] == "ask(ssn)"
    assert [e["skill"] for e in body["executions"]] == ["lookup_customer"] == [h["skill"] for h in body["history"]]
    assert body["plans"] and all("lines" in p and "reason" in p for p in body["plans"])


def test_an_unreadable_answer_to_a_sensitive_question_is_hidden_whole(demo, widget):
    session_id = _start(widget)
    _say(widget, session_id, "I'd like to apply for a loan")
    _say(widget, session_id, "ada@example.com")
    replies = _say(widget, session_id, "123456789")  # no dashes: not read as an SSN
    assert replies[-1]["element"] == "ssn"
    typed = Message.objects.filter(session_id=session_id, role="user").order_by("position").last()
    assert typed.text == MASK


def test_an_ssn_typed_with_spaces_is_read_in_the_catalogs_form_and_masked(demo, widget):
    session_id = _start(widget)
    _say(widget, session_id, "I'd like to apply for a loan")
    _say(widget, session_id, "ada@example.com")
    replies = _say(widget, session_id, "it's 123 45 6789")
    assert replies[-1]["kind"] == "consent" and replies[-1]["elements"] == ["ssn"]
    state = state_open(ChatSession.objects.get(pk=session_id).state)
    assert state.memory["ssn"].value == SSN  # stored as the pattern writes it, for the skills
    stored = " ".join(m.text for m in Message.objects.filter(session_id=session_id))
    assert "6789" not in stored and "123 45" not in stored


def test_a_denied_consent_shares_nothing(demo, widget):
    session_id = _start(widget)
    for text in ("I'd like to apply for a loan", "ada@example.com", SSN):
        _say(widget, session_id, text)
    replies = _say(widget, session_id, "no")
    assert "without your consent" in replies[-1]["text"]
    assert not ShareAudit.objects.filter(session_id=session_id).exists()


def test_a_browser_on_another_site_is_refused(demo, client):
    other = Widget(client, origin="https://evil.example")
    answer = other.start()
    assert answer.status_code == 403
    assert answer.json()["detail"] == "origin 'https://evil.example' is not allowed for assistant 'demo-banking'"
    session_id = _start(Widget(client))
    assert other.send(session_id, "hello").status_code == 403
    assert other.read(session_id).status_code == 403
    assert not Message.objects.filter(session_id=session_id, role="user").exists()


def test_no_origin_is_server_side_use_and_allowed(demo, client):
    server = Widget(client, origin=None)
    answer = server.start()
    assert answer.status_code == 201
    assert "Access-Control-Allow-Origin" not in answer
    assert server.send(answer.json()["id"], "hello").status_code == 200


def test_the_widget_asks_whether_it_may_show_on_the_page_before_showing_its_launcher(demo, client):
    url = f"/api/v1/assistants/{DEMO_KEY}/widget"
    allowed = client.get(url, headers={"Origin": DEMO_ORIGIN})
    assert allowed.status_code == 200
    assert allowed.json() == {"key": DEMO_KEY, "title": demo.name}
    assert allowed["Access-Control-Allow-Origin"] == DEMO_ORIGIN
    refused = client.get(url, headers={"Origin": "https://evil.example"})
    assert refused.status_code == 403 and "Access-Control-Allow-Origin" not in refused
    assert client.get("/api/v1/assistants/nosuch/widget", headers={"Origin": DEMO_ORIGIN}).status_code == 404
    assert not ChatSession.objects.exists()  # asking starts no conversation


def test_preflight_answers_the_allowed_origin_only(demo, client):
    session_id = _start(Widget(client))
    url = f"/api/v1/sessions/{session_id}/messages"
    answer = client.options(url, headers={"Origin": DEMO_ORIGIN, "Access-Control-Request-Method": "POST"})
    assert answer.status_code == 204
    assert answer["Access-Control-Allow-Origin"] == DEMO_ORIGIN
    assert "POST" in answer["Access-Control-Allow-Methods"]
    assert client.options(url, headers={"Origin": "https://evil.example"}).status_code == 403


@pytest.mark.parametrize("session_id", [str(uuid.uuid4()), "not-a-uuid"])
def test_an_unknown_session_is_404(demo, widget, session_id):
    for answer in (widget.send(session_id, "hello"), widget.read(session_id)):
        assert answer.status_code == 404
        assert answer.json() == {"detail": f"unknown session '{session_id}'", "errors": []}


def test_an_unknown_key_is_404(demo, widget):
    answer = widget.start("no-such-assistant")
    assert answer.status_code == 404
    assert answer.json()["detail"] == "unknown assistant 'no-such-assistant'"


@pytest.mark.parametrize(("text", "message"), [
    ("x" * 2001, "the message is 2001 characters long; at most 2000 are read"),
    ("   ", "the message is empty"),
])
def test_an_oversized_or_empty_message_is_422(demo, widget, text, message):
    session_id = _start(widget)
    answer = widget.send(session_id, text)
    assert answer.status_code == 422
    assert answer.json() == {"detail": message, "errors": [{"path": "text", "message": message}]}
    assert answer["Access-Control-Allow-Origin"] == DEMO_ORIGIN  # the widget can show why
    assert not Message.objects.filter(session_id=session_id, role="user").exists()


def test_a_message_without_text_is_422(demo, widget):
    session_id = _start(widget)
    answer = widget.client.post(f"/api/v1/sessions/{session_id}/messages", {}, content_type="application/json")
    assert answer.status_code == 422
    assert answer.json()["errors"][0]["path"] == "body.text"


def test_messages_beyond_the_rate_are_429(demo, widget, settings):
    settings.CONCERTO_CHAT_RATE = 3
    session_id = _start(widget)
    assert [widget.send(session_id, "hello").status_code for _ in range(3)] == [200, 200, 200]
    answer = widget.send(session_id, "hello")
    assert answer.status_code == 429
    assert 0 < int(answer["Retry-After"]) <= 61
    assert Message.objects.filter(session_id=session_id, role="user").count() == 3


def test_session_starts_beyond_the_rate_are_429(demo, widget, settings):
    settings.CONCERTO_CHAT_RATE = 2
    assert [widget.start().status_code for _ in range(3)] == [201, 201, 429]


def test_session_starts_behind_a_proxy_are_limited_per_visitor(demo, settings):
    settings.CONCERTO_CHAT_RATE = 2
    settings.TRUSTED_PROXY_COUNT = 1

    def start(visitor: str) -> int:
        return Client().post(f"/api/v1/assistants/{DEMO_KEY}/sessions", headers={"Origin": DEMO_ORIGIN},
                             REMOTE_ADDR="10.0.0.5", HTTP_X_FORWARDED_FOR=visitor).status_code

    assert [start("203.0.113.1") for _ in range(3)] == [201, 201, 429]
    assert start("203.0.113.2") == 201  # another visitor behind the same proxy is not held up


def test_an_s3_assistant_runs_behind_the_same_api(demo, widget):
    assistant_create(workspace=demo.workspace, version=demo.catalog_version, key="banking-s3", mode="s3",
                     allowed_origins=[DEMO_ORIGIN])
    session_id = widget.start("banking-s3")
    assert session_id.status_code == 201
    session_id = session_id.json()["id"]
    replies = widget.send(session_id, "please look up my customer record").json()["replies"]
    assert "scores" not in replies[0].get("data", {})  # how S3 ranked its skills is for the studio only
    stored = Message.objects.filter(session_id=session_id, role="assistant").order_by("position")
    assert any(m.data.get("data", {}).get("scores") == {"lookup_customer": 1.0} for m in stored)  # the inspector's
    assert replies[-1]["element"] == "email"
    replies = widget.send(session_id, "ada@example.com").json()["replies"]
    assert replies[-1]["kind"] == "result" and replies[-1]["data"]["values"]["name"] == "Ada Lovelace"
