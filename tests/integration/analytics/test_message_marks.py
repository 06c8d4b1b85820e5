"""The turns the analytics page counts ("not understood", "consent refused") are marked when they are written,
from the engine's typed reply, and the page counts the marks, not the replies' wording; migration 0013 marks
the lines written before it by the text the page matched until then."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from orchestrator.analytics.selectors import Period, analytics_consents, analytics_not_understood
from orchestrator.chat.models import ChatSession, Message, MessageMark

from .test_selectors import REFUSED, _lines, _session, _talk

pytestmark = pytest.mark.django_db


def test_the_chat_service_marks_a_reply_not_understood_and_a_refused_consent(demo, widget):
    unread = _talk(widget, ["blorp fizzle wug"])
    refused = _talk(widget, REFUSED)
    loan = _talk(widget, ["I'd like to apply for a loan"])
    marked = {(str(m.session_id), m.mark) for m in Message.objects.exclude(mark="")}
    assert marked == {(unread, MessageMark.NOT_UNDERSTOOD), (refused, MessageMark.CONSENT_REFUSED)}
    line = Message.objects.get(session_id=unread, mark=MessageMark.NOT_UNDERSTOOD)
    assert line.role == "assistant" and line.position == 2  # the reply to the user's words, not the words
    assert "mark" not in line.data  # stored beside the reply, not in the body the API gives
    assert not Message.objects.filter(session_id=loan).exclude(mark="").exists()


def test_the_page_counts_marks_not_wording(demo):
    reworded = _session(demo)
    _lines(reworded, [("assistant", "text", "Hello!", {}), ("user", "user", "wug wug", {}),
                      ("assistant", "text", "Hmm, that went past me.", {})])
    Message.objects.filter(session=reworded, position=2).update(mark=MessageMark.NOT_UNDERSTOOD)
    consent = ("assistant", "consent", "May I send your SSN to credit check?", {"skill": "credit_check"})
    per_element = _session(demo)  # a catalog with per-element privacy words its refusal otherwise
    _lines(per_element, [consent, ("user", "user", "no", {}),
                         ("assistant", "text", "Understood: I will not share your social security number.", {})])
    Message.objects.filter(session=per_element, position=2).update(mark=MessageMark.CONSENT_REFUSED)
    unmarked = _session(demo)  # the old words without the mark: not counted
    _lines(unmarked, [("user", "user", "zork", {}),
                      ("assistant", "text", "Sorry, I did not understand that. I can help.", {})])
    period = Period(assistant=demo)
    assert analytics_not_understood(period=period).top == [("wug wug", 1)]
    assert [(c.skill, c.asked, c.refused) for c in analytics_consents(period=period)] == [("credit_check", 1, 1)]


BEFORE = ("orchestrator", "0014_simulation_explore")
AFTER = ("orchestrator", "0015_message_marks")


def _migrate(target: tuple[str, str]):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate([target])
    return executor.loader.project_state([target]).apps


@pytest.mark.django_db(transaction=True)  # migrations run outside a test transaction
def test_migration_0015_marks_the_lines_written_before_it(demo):
    old = _migrate(BEFORE)
    try:
        session = old.get_model("orchestrator", "ChatSession").objects.create(
            assistant_id=demo.pk, catalog_version_id=demo.catalog_version_id, mode="planner", message_count=7)
        lines = [("assistant", "text", "Hello! I can help you apply for a loan."),
                 ("user", "user", "Sorry, I did not understand that."),  # the user's words: never marked
                 ("assistant", "text", "Sorry, I did not understand that. I can help you apply for a loan."),
                 ("assistant", "consent", "May I send your SSN to credit check?"),
                 ("user", "user", "no"),
                 ("assistant", "text", "Understood: I will not share it with credit check."),
                 ("assistant", "text", "Understood: I will not share your social security number.")]
        old.get_model("orchestrator", "Message").objects.bulk_create(
            old.get_model("orchestrator", "Message")(session_id=session.pk, position=i, role=role, kind=kind,
                                                     text=text, data={})
            for i, (role, kind, text) in enumerate(lines))
    finally:
        _migrate(AFTER)
    marks = list(Message.objects.filter(session_id=session.pk).order_by("position").values_list("mark", flat=True))
    assert marks == ["", "", "not_understood", "", "", "consent_refused", "consent_refused"]
    assert ChatSession.objects.filter(pk=session.pk).exists()
