"""Say what really happens: world-changing skills off the agreed route are confirmed first, and a resumed
goal does not reuse what was produced for another (issue #11)."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.engine.catalog.spec_io import load_catalog

from .test_conversation_words import Chat

REPORTS = Path(__file__).resolve().parents[2] / "data" / "reports.yaml"


@pytest.fixture
def status_check(banking, banking_planner):
    chat = Chat(banking, banking_planner)
    chat.say("check my card application")
    replies = chat.say("CC-000000")  # no such application: the status mode gives nothing
    return chat, replies


def test_a_world_changing_call_off_the_requested_route_is_asked_about_first(status_check):
    chat, replies = status_check
    assert replies[-1].kind == "question" and "Shall I go ahead?" in replies[-1].text
    assert replies[-1].data == {"confirm": "submit_credit_card-apply"}
    assert chat.called == ["submit_credit_card"]  # only the status call so far


def test_refusing_it_files_nothing_and_claims_nothing(status_check):
    chat, _ = status_check
    replies = chat.say("no")
    assert chat.called == ["submit_credit_card"]
    assert not any(r.kind == "result" for r in replies)
    assert "Sorry, I cannot check the status" in replies[-1].text


def test_agreeing_goes_the_other_route(status_check):
    chat, _ = status_check
    replies = chat.say("yes, go ahead")
    assert replies[-1].element == "email"


def test_the_requested_route_needs_no_confirmation(banking, banking_planner):
    chat = Chat(banking, banking_planner)
    for text in ("I'd like to apply for a loan", "ada@example.com", "123-45-6789", "yes", "$20,000"):
        chat.say(text)
    replies = chat.say("yes")
    assert any(r.kind == "result" and r.goal == "apply_loan" for r in replies)


def test_a_resumed_goal_does_not_reuse_what_another_goal_produced():
    spec = load_catalog(REPORTS.read_text(), filename="reports.yaml")
    chat = Chat(spec)
    chat.say("I need the salary report")
    chat.say("publish the sales chart")  # a digression
    replies = chat.say("q1")
    published = [inputs["chart"] for name, _, inputs in chat.skills.calls if name == "publish"]
    assert published == ["sales.png", "salaries.png"]
    results = [r for r in replies if r.kind == "result"]
    assert [r.goal for r in results] == ["sales_chart", "salary_report"]
    assert chat.state.memory["sales_chart"].goal == "sales_chart"
    assert chat.state.memory["salary_chart"].goal == "salary_report"
