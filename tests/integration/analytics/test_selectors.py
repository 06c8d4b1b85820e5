"""The analytics selectors on real conversations with the demo assistant, and on seeded rows for what a
short test cannot provoke reliably ("did you mean", a failed skill, days and versions)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from catalog_app.services import version_create_draft
from orchestrator.analytics.selectors import (
    Period,
    analytics_choices,
    analytics_consents,
    analytics_latency,
    analytics_not_understood,
    analytics_report,
    analytics_summary,
    analytics_timeline,
    analytics_unfinished,
    analytics_versions,
)
from orchestrator.chat.models import ChatSession, Message, TraceEvent

pytestmark = pytest.mark.django_db

LOAN = ["I'd like to apply for a loan", "ada@example.com", "my ssn is 123-45-6789", "yes", "$20,000", "yes"]
REFUSED = ["I'd like to apply for a loan", "ada@example.com", "my ssn is 123-45-6789", "no"]


def _talk(widget, script: list[str]) -> str:
    session_id = widget.start().json()["id"]
    for text in script:
        assert widget.send(session_id, text).status_code == 200
    return session_id


@pytest.fixture
def talked(demo, widget):
    """Three conversations (a loan granted, a consent refused, a request not understood) and one silent."""
    ids = {"loan": _talk(widget, LOAN), "refused": _talk(widget, REFUSED),
           "unread": _talk(widget, ["blorp fizzle wug", "blorp fizzle wug"]), "silent": _talk(widget, [])}
    return demo, ids


def test_conversations_goals_and_the_orchestrator_are_counted(talked):
    demo, _ = talked
    summary = analytics_summary(period=Period(assistant=demo))
    assert (summary.opened, summary.conversations, summary.reached) == (4, 3, 1)
    assert summary.by_mode["planner"] == 3 and summary.by_mode["s3"] == 0


def test_a_session_records_the_version_and_orchestrator_it_started_on_and_each_turn_its_time(talked):
    demo, ids = talked
    session = ChatSession.objects.get(pk=ids["loan"])
    assert (session.catalog_version_id, session.mode) == (demo.catalog_version_id, "planner")
    times = list(session.messages.filter(role="user").values_list("turn_ms", flat=True))
    assert len(times) == len(LOAN) and all(t is not None and t >= 0 for t in times)
    assert analytics_latency(period=Period(assistant=demo)).turns == len(LOAN) + len(REFUSED) + 2


def test_requests_not_understood_are_counted_by_their_words(talked):
    demo, _ = talked
    unread = analytics_not_understood(period=Period(assistant=demo))
    assert unread.total == 2
    assert unread.top == [("blorp fizzle wug", 2)]


def test_a_refused_consent_is_counted_against_its_skill(talked):
    demo, _ = talked
    consents = {c.skill: (c.asked, c.refused) for c in analytics_consents(period=Period(assistant=demo))}
    assert consents["credit_check"] == (2, 1)
    assert consents["submit_loan"] == (1, 0)


def test_conversations_without_a_goal_are_told_by_their_last_question(talked):
    demo, _ = talked
    unfinished = analytics_unfinished(period=Period(assistant=demo))
    assert unfinished.total == 2
    assert dict(unfinished.last_question).get("nothing asked") == 1  # the one never understood
    assert sum(n for _, n in unfinished.last_question) == 2


def _session(demo, *, days_ago: int = 0, version=None, mode: str = "planner") -> ChatSession:
    session = ChatSession.objects.create(assistant=demo, catalog_version=version or demo.catalog_version, mode=mode,
                                         message_count=1)
    ChatSession.objects.filter(pk=session.pk).update(created_at=timezone.now() - timedelta(days=days_ago))
    return session


def _lines(session: ChatSession, lines: list[tuple]) -> None:
    """Lines (role, kind, text, data[, mark]) stored as the chat service stores them."""
    Message.objects.bulk_create(Message(session=session, position=i, role=role, kind=kind, text=text, data=data,
                                        mark=mark[0] if mark else "")
                                for i, (role, kind, text, data, *mark) in enumerate(lines))
    ChatSession.objects.filter(pk=session.pk).update(message_count=len(lines))


HELLO = [("assistant", "text", "Hello!", {}), ("user", "user", "hi", {})]


def test_did_you_mean_offers_and_picks(demo):
    said = "Did you mean to apply for a loan, or to apply for a credit card?"
    offer = ("assistant", "question", said,  # stored as the chat service stores a reply: the whole reply
             {"kind": "question", "text": said, "data": {"choices": ["apply_loan", "apply_credit_card"]}})
    picked = _session(demo)
    _lines(picked, [offer, ("user", "user", "the first", {}),
                    ("assistant", "text", "Sure, let's apply for a loan.", {"goal": "apply_loan"}, "started")])
    declined = _session(demo)
    _lines(declined, [offer, ("user", "user", "no", {}), ("assistant", "text", "All right.", {})])
    [choice] = analytics_choices(period=Period(assistant=demo))
    assert choice.offered == ("apply_loan", "apply_credit_card")
    assert (choice.times, choice.picked, choice.none) == (2, {"apply_loan": 1}, 1)
    unfinished = analytics_unfinished(period=Period(assistant=demo))
    assert dict(unfinished.last_question) == {"a choice of requests": 2}


def test_a_pick_is_the_reply_marked_started_in_the_answers_turn_whatever_it_says(demo):
    said = "Did you mean to apply for a loan, or to apply for a credit card?"
    offer = ("assistant", "question", said,
             {"kind": "question", "text": said, "data": {"choices": ["apply_loan", "apply_credit_card"]}})
    reworded = _session(demo)  # another wording of the start: counted by its mark
    _lines(reworded, [offer, ("user", "user", "the second", {}),
                      ("assistant", "text", "OK, applying for a credit card.", {"goal": "apply_credit_card"},
                       "started")])
    later_in_turn = _session(demo)  # a value refused first, then the start: still the answer's turn
    _lines(later_in_turn, [offer, ("user", "user", "the first, for 10 million", {}),
                           ("assistant", "text", "I cannot use 10 million for the loan amount.", {}),
                           ("assistant", "text", "Sure, let's apply for a loan.", {"goal": "apply_loan"}, "started")])
    unmarked = _session(demo)  # a reply naming an intent that starts nothing (an offer): no pick
    _lines(unmarked, [offer, ("user", "user", "the second", {}),
                      ("assistant", "question", "Would you also like to apply for a credit card?",
                       {"goal": "apply_credit_card"})])
    next_turn = _session(demo)  # turned down, then a request started in the next turn: no pick
    _lines(next_turn, [offer, ("user", "user", "no", {}), ("assistant", "text", "All right.", {}),
                       ("user", "user", "a loan", {}),
                       ("assistant", "text", "Sure, let's apply for a loan.", {"goal": "apply_loan"}, "started")])
    [choice] = analytics_choices(period=Period(assistant=demo))
    assert (choice.times, choice.picked, choice.none) == (4, {"apply_credit_card": 1, "apply_loan": 1}, 2)


def test_both_picked_counts_a_pick_for_each(demo, widget):
    session_id = widget.start().json()["id"]
    offer = widget.send(session_id, "a card").json()["replies"][-1]
    assert set(offer["data"]["choices"]) == {"check_card_status", "apply_credit_card"}
    started = [r for r in widget.send(session_id, "both").json()["replies"] if r.get("goal")]
    assert {r["goal"] for r in started} >= {"check_card_status", "apply_credit_card"}
    [choice] = analytics_choices(period=Period(assistant=demo))
    assert (choice.times, choice.picked, choice.none) == (1, {"check_card_status": 1, "apply_credit_card": 1}, 0)


def test_an_offer_made_and_picked_over_the_chat_api_is_counted(demo, widget):
    session_id = widget.start().json()["id"]
    offer = widget.send(session_id, "a card").json()["replies"][-1]
    choices = offer["data"]["choices"]
    assert sorted(choices) == ["apply_credit_card", "check_card_status"]
    assert widget.send(session_id, "the second").json()["replies"][0]["goal"] == choices[1]
    [choice] = analytics_choices(period=Period(assistant=demo))
    assert (choice.offered, choice.times, choice.picked) == (tuple(choices), 1, {choices[1]: 1})


def test_the_last_skill_that_failed_is_named(demo):
    session = _session(demo)
    _lines(session, [("user", "user", "loan please", {}),
                     ("assistant", "question", "Your email?", {"element": "email"})])
    TraceEvent.objects.bulk_create([
        TraceEvent(session=session, position=0, kind="execution",
                   data={"skill": "lookup_customer", "outcome": "ok", "planned_outcome": "ok"}),
        TraceEvent(session=session, position=1, kind="execution",
                   data={"skill": "credit_check", "outcome": "error", "planned_outcome": "ok"}),
    ])
    unfinished = analytics_unfinished(period=Period(assistant=demo))
    assert unfinished.failed_skill == [("credit_check", 1)]
    assert unfinished.last_question == [("email", 1)]


def test_filters_by_start_version_and_days(demo):
    other = version_create_draft(version=demo.catalog_version, user=None)
    for days_ago, version in ((0, None), (3, None), (3, other), (10, None)):
        _lines(_session(demo, days_ago=days_ago, version=version), HELLO)
    today = timezone.localdate()
    count = lambda **kw: analytics_summary(period=Period(assistant=demo, **kw)).conversations  # noqa: E731
    assert count() == 4
    assert count(version=other) == 1
    assert count(since=today - timedelta(days=3)) == 3
    assert count(since=today - timedelta(days=5), until=today - timedelta(days=1)) == 2
    assert [v.pk for v in analytics_versions(assistant=demo)] == sorted([other.pk, demo.catalog_version_id],
                                                                        reverse=True)
    unit, buckets = analytics_timeline(period=Period(assistant=demo))
    assert unit == "day" and [b.conversations for b in buckets] == [1, 2, 1]


def test_a_long_range_is_drawn_by_week_and_the_orchestrators_split(demo):
    _lines(_session(demo, days_ago=100, mode="s3"), HELLO)
    _lines(_session(demo, days_ago=0), HELLO)
    report = analytics_report(period=Period(assistant=demo))
    assert report.unit == "week"
    assert [(b.s3, b.planner) for b in report.timeline] == [(1, 0), (0, 1)]
