"""The turns the analytics page counts ("not understood", "consent refused", an intent started) are marked when
they are written, from the engine's typed reply, and the page counts the marks, not the replies' wording;
migrations 0015 and 0016 mark the lines written before them by the text the page matched until then (0016 also
the lines of stored simulated transcripts, which the learner reads)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from orchestrator.analytics.selectors import Period, analytics_consents, analytics_not_understood
from orchestrator.chat.models import ChatSession, Message, MessageMark
from orchestrator.learning.services import run_conversations
from orchestrator.simulation.models import SimulatedConversation, SimulationRun

from .test_selectors import REFUSED, _lines, _session, _talk

pytestmark = pytest.mark.django_db


def test_the_chat_service_marks_a_reply_not_understood_a_refused_consent_and_a_start(demo, widget):
    unread = _talk(widget, ["blorp fizzle wug"])
    refused = _talk(widget, REFUSED)
    loan = _talk(widget, ["I'd like to apply for a loan"])
    marked = {(str(m.session_id), m.mark) for m in Message.objects.exclude(mark="")}
    assert marked == {(unread, MessageMark.NOT_UNDERSTOOD), (refused, MessageMark.CONSENT_REFUSED),
                      (refused, MessageMark.STARTED), (loan, MessageMark.STARTED)}
    line = Message.objects.get(session_id=unread, mark=MessageMark.NOT_UNDERSTOOD)
    assert line.role == "assistant" and line.position == 2  # the reply to the user's words, not the words
    assert "mark" not in line.data  # stored beside the reply, not in the body the API gives
    start = Message.objects.get(session_id=loan, mark=MessageMark.STARTED)
    assert (start.position, start.kind, start.data["goal"]) == (2, "text", "apply_loan")


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
STARTED = ("orchestrator", "0016_started_mark")


def _migrate(target: tuple[str, str]):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate([target])
    return executor.loader.project_state([target]).apps


def _latest() -> tuple[str, str]:
    (leaf,) = [node for node in MigrationExecutor(connection).loader.graph.leaf_nodes() if node[0] == "orchestrator"]
    return leaf


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
        _migrate(_latest())  # past 0015, to the migrations that came after it
    marks = list(Message.objects.filter(session_id=session.pk).order_by("position").values_list("mark", flat=True))
    assert marks == ["", "", "not_understood", "", "", "consent_refused", "consent_refused"]
    assert ChatSession.objects.filter(pk=session.pk).exists()


@pytest.mark.django_db(transaction=True)
def test_migration_0016_marks_the_starts_and_the_simulated_transcripts_written_before_it(demo):
    old = _migrate(AFTER)
    try:
        session = old.get_model("orchestrator", "ChatSession").objects.create(
            assistant_id=demo.pk, catalog_version_id=demo.catalog_version_id, mode="planner", message_count=6)
        lines = [("user", "user", "Sure, let's apply for a loan.", {"goal": "apply_loan"}),  # the user's: never
                 ("assistant", "text", "Sure, let's apply for a loan.", {"goal": "apply_loan"}),
                 ("assistant", "text", "Sure, let's check the status of a credit card application first; then we "
                                       "will get back to apply for a loan.", {"goal": "check_card_status"}),
                 ("assistant", "question", "Would you also like to apply for a credit card?",
                  {"goal": "apply_credit_card"}),  # an offer names an intent and starts nothing
                 ("assistant", "text", "OK, I stopped: apply for a loan.", {"goal": "apply_loan"}),
                 ("assistant", "text", "Sure, let's try.", {}),  # no goal: no start
                 ("assistant", "text", "I will use credit check, then submit loan.",  # S3: the selection
                  {"kind": "text", "data": {"scores": {"credit_check": 0.61, "submit_loan": 0.58}}}),
                 ("assistant", "text", "Sorry, none of my skills can help with that.", {"kind": "text"})]
        message = old.get_model("orchestrator", "Message")
        message.objects.bulk_create(message(session_id=session.pk, position=i, role=role, kind=kind, text=text,
                                            data=data) for i, (role, kind, text, data) in enumerate(lines))
        version = demo.catalog_version
        run = old.get_model("orchestrator", "SimulationRun").objects.create(
            workspace_id=version.catalog.workspace_id, version_id=version.pk, scenario_name="old",
            scenario_data={}, conversations=3)
        said = [{"position": 0, "role": "assistant", "kind": "text", "text": "Hello!", "data": {}},
                {"position": 1, "role": "user", "kind": "user", "text": "blorp", "data": {}},
                {"position": 2, "role": "assistant", "kind": "text", "text": "Sorry, I did not understand that. I "
                 "can apply for a loan.", "data": {"kind": "text"}},
                {"position": 3, "role": "user", "kind": "user", "text": "a loan", "data": {}},
                {"position": 4, "role": "assistant", "kind": "text", "text": "Sure, let's apply for a loan.",
                 "data": {"kind": "text", "goal": "apply_loan"}},
                {"position": 5, "role": "assistant", "kind": "text", "text": "Understood: I will not share it.",
                 "data": {"kind": "text"}},
                {"position": 6, "role": "assistant", "kind": "resumed", "text": "Now, back to apply for a loan.",
                 "data": {"kind": "resumed", "goal": "apply_loan"}}]
        marked = [{**line, "mark": ""} for line in said[:2]]  # written with marks already: left as it is
        s3 = [said[1], {"position": 2, "role": "assistant", "kind": "text", "text": "I will use lookup customer.",
                        "data": {"kind": "text", "text": "I will use lookup customer.",
                                 "data": {"scores": {"lookup_customer": 0.9}}}}]
        conversation = old.get_model("orchestrator", "SimulatedConversation")
        for index, transcript in enumerate((said, marked, s3)):
            conversation.objects.create(run_id=run.pk, index=index, intent="apply_loan", outcome="success",
                                        success=True, turns=2, metrics={}, transcript=transcript, trace=[], state={})
    finally:
        _migrate(STARTED)
        _migrate(_latest())
    marks = list(Message.objects.filter(session_id=session.pk).order_by("position").values_list("mark", flat=True))
    assert marks == ["", "started", "started", "", "", "", "", ""]
    s3 = [m.data for m in Message.objects.filter(session_id=session.pk, position__gte=6).order_by("position")]
    assert [d["data"]["selected"] for d in s3] == [["credit_check", "submit_loan"], []]
    assert s3[0]["data"]["scores"] == {"credit_check": 0.61, "submit_loan": 0.58}  # kept
    stored = SimulatedConversation.objects.get(run_id=run.pk, index=0).transcript
    assert [line["mark"] for line in stored] == ["", "", "not_understood", "", "started", "consent_refused", ""]
    assert [{k: v for k, v in line.items() if k != "mark"} for line in stored] == said  # nothing else changed
    assert SimulatedConversation.objects.get(run_id=run.pk, index=1).transcript == marked
    selected = SimulatedConversation.objects.get(run_id=run.pk, index=2).transcript[1]
    assert selected["data"]["data"] == {"scores": {"lookup_customer": 0.9}, "selected": ["lookup_customer"]}
    conversations = run_conversations(run=SimulationRun.objects.get(pk=run.pk))
    assert [(o.text, o.intent, o.how) for o in conversations[0].openings] == [("blorp", "apply_loan", "unheard")]
