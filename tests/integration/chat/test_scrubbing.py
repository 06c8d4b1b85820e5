"""No stored row, and no state served, holds a sensitive value in any spelling the user typed it,
nor personal data typed in free text (issue #11, masking holes)."""

from __future__ import annotations

import json

from orchestrator.chat.models import ChatSession, Message, ShareAudit, TraceEvent
from orchestrator.chat.vault import state_open

from .conftest import Widget

FORBIDDEN = [
    "123-45-6789", "123456789", "123 45 6789",  # the SSN, as typed at the wrong question and without dashes
    "85000", "85,000",  # the income (sensitive), however written
    "4111 1111 1111 1111", "4111111111111111",  # a card number in free text
    "+44 20 7946 0958", "7946 0958",  # a phone number in free text
    "bob@secret.org",  # someone's e-mail address in free text
]


def _stored(session_id: str, widget: Widget, studio_debug) -> str:
    rows = [
        *[(m.text, m.data) for m in Message.objects.filter(session_id=session_id)],
        *[e.data for e in TraceEvent.objects.filter(session_id=session_id)],
        *[(a.element, a.skill, a.consent) for a in ShareAudit.objects.filter(session_id=session_id)],
    ]
    served = [widget.read(session_id).json(), studio_debug(session_id).json()]  # public and studio views
    explained = [widget.client.get(f"/api/v1/sessions/{session_id}/explain", {"kind": kind, "element": "ssn"},
                                   headers={"Origin": widget.origin}).json() for kind in ("what", "how", "why")]
    return json.dumps([rows, served, explained], default=str)


def test_no_stored_row_or_served_state_holds_a_sensitive_value_in_any_spelling(demo, widget, studio_debug):
    session_id = widget.start().json()["id"]
    script = [
        "I'd like to apply for a loan",
        "123-45-6789",  # typed at the e-mail question
        "ada@example.com",
        "123 45 6789",  # the SSN with spaces: not read, hidden all the same
        "my ssn is 123456789 sorry, 123-45-6789",
        "yes",
        "$20,000, my card is 4111 1111 1111 1111, call me on +44 20 7946 0958 or write to bob@secret.org",
        "yes",
        "why did you need my ssn?",
        "my income is 85,000 by the way",
    ]
    for text in script:
        answer = widget.send(session_id, text)
        assert answer.status_code == 200, answer.content
    stored = _stored(session_id, widget, studio_debug)
    leaks = [value for value in FORBIDDEN if value in stored]
    assert leaks == []
    assert "ada@example.com" in stored  # a value the catalog does not mark sensitive stays readable


def test_a_scrubbed_value_stays_usable_by_the_session(demo, widget):
    session_id = widget.start().json()["id"]
    for text in ("I'd like to apply for a loan", "ada@example.com", "123-45-6789", "yes"):
        widget.send(session_id, text)
    state = state_open(ChatSession.objects.get(pk=session_id).state)  # stored encrypted
    assert state.memory["ssn"].value == "123-45-6789"  # the runtime still has it, unmasked
