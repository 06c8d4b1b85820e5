"""Issue #11's defects as a new user meets them, over the chat API with the demo assistant."""

from __future__ import annotations

import pytest

from orchestrator.chat.models import ChatSession
from orchestrator.chat.vault import state_open

from .conftest import Widget


def _chat(widget: Widget, script: list[str]) -> tuple[str, list[list[dict]]]:
    session_id = widget.start().json()["id"]
    turns = []
    for text in script:
        answer = widget.send(session_id, text)
        assert answer.status_code == 200, answer.content
        turns.append(answer.json()["replies"])
    return session_id, turns


def _memory(session_id: str) -> dict[str, str]:
    state = state_open(ChatSession.objects.get(pk=session_id).state)  # stored encrypted
    return {name: item.value for name, item in state.memory.items()}


LOAN_TO_CONSENT = ["I'm after some financing for a vehicle", "ada@example.com", "123-45-6789"]


@pytest.mark.parametrize("yes", ["I don't mind", "no problem, go ahead", "sure, why not?", "fine by me", "absolutely"])
def test_everyday_yes_to_a_consent(demo, widget, yes):
    _, turns = _chat(widget, [*LOAN_TO_CONSENT, yes])
    assert turns[-1][-1]["kind"] == "question" and turns[-1][-1]["element"] == "loan_amount"


@pytest.mark.parametrize("no", ["I'd rather not", "please don't share it"])
def test_everyday_no_to_a_consent(demo, widget, no):
    _, turns = _chat(widget, [*LOAN_TO_CONSENT, no])
    assert "without your consent" in turns[-1][-1]["text"]


def test_a_platinum_visa_is_a_card_and_a_personal_lone_a_loan(demo, widget):
    said = (("I'd like a platinum visa", "apply_credit_card"), ("Could I get a personal lone?", "apply_loan"))
    for text, intent in said:
        session_id, turns = _chat(widget, [text])
        reply = turns[0][-1]
        if reply["kind"] == "question" and reply["data"].get("choices"):  # not sure: asked, the right one first
            assert reply["data"]["choices"][0] == intent
            turns = [widget.send(session_id, "the first").json()["replies"]]
        assert turns[0][0]["goal"] == intent and turns[0][-1]["kind"] == "question"  # started: its first question


def test_two_amounts_in_one_message_go_where_their_words_say(demo, widget):
    session_id, _ = _chat(widget, [*LOAN_TO_CONSENT, "yes", "my income is $85,000 and I want 20000 dollars"])
    assert _memory(session_id)["loan_amount"] == "20000.00"


def test_an_invalid_card_reference_files_no_application_without_asking(demo, widget):
    _, turns = _chat(widget, ["what is the status of my card application", "CC-000000", "no"])
    assert "Shall I go ahead?" in turns[1][-1]["text"]
    assert not any(r["kind"] == "result" for turn in turns for r in turn)


def test_what_did_you_do_after_a_refused_request(demo, widget):
    _, turns = _chat(widget, [*LOAN_TO_CONSENT, "yes", "20000 dollars", "no", "what did you do?"])
    assert "credit check with your social security number (scored)" in turns[-1][-1]["text"]


def test_why_did_you_ask_for_my_email_address(demo, widget):
    _, turns = _chat(widget, ["I need a loan", "ada@example.com", "why did you ask for my email address?"])
    explanation = next(r for r in turns[-1] if r["kind"] == "explanation")
    assert explanation["element"] == "email"
