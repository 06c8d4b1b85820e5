"""End users are told in their terms; the planner's reasons and the catalog's faults stay with the
studio (issue 24, finding 8)."""

from __future__ import annotations

import json
import logging

import pytest

from orchestrator.chat import runtime as chat_runtime
from orchestrator.chat import selectors as chat_selectors
from orchestrator.chat.end_user import NOT_ANSWERING
from orchestrator.chat.models import Message, TraceEvent, TraceKind
from orchestrator.engine.errors import Issue, SpecError

from .conftest import Widget

PLANNER_WORDS = ("no plan reaches", "nothing can establish", "reason")


def _said(widget: Widget, session_id: str, text: str) -> list[dict]:
    answer = widget.send(session_id, text)
    assert answer.status_code == 200, answer.content
    return answer.json()["replies"]


def test_a_goal_given_up_is_told_without_the_planners_reasoning(demo, widget):
    session_id = widget.start().json()["id"]
    _said(widget, session_id, "check my card application")
    _said(widget, session_id, "CC-000000")  # no such application: the other route needs a yes
    replies = _said(widget, session_id, "no")
    given_up = next(r for r in replies if r["text"].startswith("Sorry, I cannot check the status"))
    assert "data" not in given_up
    transcript = widget.read(session_id).json()["transcript"]
    for shown in (json.dumps(replies), json.dumps(transcript)):
        assert not any(words in shown for words in PLANNER_WORDS), shown
    # The studio keeps the reason: in the stored transcript and in the trace the inspector shows.
    stored = Message.objects.get(session_id=session_id, text=given_up["text"])
    assert stored.data["data"]["reason"].startswith("no plan reaches the goal")
    plans = TraceEvent.objects.filter(session_id=session_id, kind=TraceKind.PLAN).values_list("data", flat=True)
    assert any((plan.get("unsolvable") or "").startswith("no plan reaches the goal") for plan in plans)


def test_a_catalog_fault_is_not_the_end_users_to_read(demo, widget, caplog):
    session_id = widget.start().json()["id"]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(chat_runtime, "version_spec", _refuse)
        patch.setattr(chat_selectors, "version_spec", _refuse)
        with caplog.at_level(logging.ERROR, logger="orchestrator.chat.api"):
            answer = widget.send(session_id, "I'd like to apply for a loan")
            started = widget.start()
            explained = widget.client.get(f"/api/v1/sessions/{session_id}/explain?kind=what",
                                          headers={"Origin": widget.origin})
    for response in (answer, started, explained):
        assert response.status_code == 503 and response["Retry-After"].isdigit()
        assert response.json() == {"detail": NOT_ANSWERING, "errors": []}
        assert "problem" not in response.content.decode() and "ssn_v2" not in response.content.decode()
    assert "unknown element 'ssn_v2'" in caplog.text and session_id in caplog.text  # for the team


def _refuse(*, version):
    """The live version's catalog fails to load: a fault of the assistant, not of the user."""
    raise SpecError([Issue("skills[3].modes[0].inputs[0]", "unknown element 'ssn_v2'")])
