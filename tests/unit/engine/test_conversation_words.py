"""Scripted conversations for issue #11's language defects: consent in everyday words, free-text answers,
"help" and "why" only as whole acts. Each test failed before the change it covers."""

from __future__ import annotations

import pytest

from orchestrator.engine.planning.planner import Planner
from orchestrator.engine.runtime.session import SessionState
from orchestrator.engine.runtime.skills import SimulatedSkills
from orchestrator.engine.runtime.turns import PlannerOrchestrator


class Chat:
    def __init__(self, spec, planner=None):
        self.spec = spec
        self.skills = SimulatedSkills(spec, seed=1)
        self.bot = PlannerOrchestrator(spec, planner or Planner.for_spec(spec), self.skills)
        self.state = SessionState()

    def say(self, text):
        return self.bot.turn(self.state, text).replies

    @property
    def called(self):
        return [name for name, _, _ in self.skills.calls]


@pytest.fixture
def loan(banking, banking_planner):
    chat = Chat(banking, banking_planner)
    chat.say("I need a loan")
    chat.say("ada@example.com")
    assert chat.say("123-45-6789")[-1].kind == "consent"
    return chat


@pytest.mark.parametrize("text", ["I don't mind", "no problem, go ahead", "sure, why not?", "fine by me", "absolutely",
                                  "I have no objection", "I'm ok with that", "sure you can share my ssn", "I guess so",
                                  "proceed"])
def test_everyday_yes_grants_consent(loan, text):
    replies = loan.say(text)
    assert "credit_check" in loan.called
    assert replies[-1].kind == "question" and replies[-1].element == "loan_amount"


@pytest.mark.parametrize("text", ["I'd rather not", "please don't share it", "no way", "I do not consent",
                                  "I'm not comfortable with that", "I don't want you to share that", "I don't think so",
                                  "absolutely not!", "nah I'm good"])
def test_everyday_no_refuses_consent(loan, text):
    replies = loan.say(text)
    assert "credit_check" not in loan.called
    assert "credit_check" in loan.state.denied
    assert any("will not share" in r.text for r in replies)


@pytest.fixture
def ticket(helpdesk):
    chat = Chat(helpdesk)
    chat.say("my laptop is broken")
    replies = chat.say("ann@corp.example")
    assert replies[-1].element == "issue_description"
    return chat


@pytest.mark.parametrize(
    "text",
    ["quit working after the update", "no power when I press the button", "Don't know what happened, it just died",
     "why does it keep crashing?", "help, it beeps"],
)
def test_a_free_text_answer_is_the_value(ticket, text):
    replies = ticket.say(text)
    assert ticket.state.memory["issue_description"].value == text
    assert ticket.state.completed and ticket.state.completed[-1].intent == "report_broken_device"
    assert replies[-1].kind == "result"


def test_what_do_you_mean_is_answered_not_stored(ticket):
    replies = ticket.say("what do you mean?")
    assert "issue_description" not in ticket.state.memory
    assert replies[-1].kind == "question" and replies[-1].element == "issue_description"
    assert "I am asking for" in replies[0].text


def test_an_explicit_stop_still_stops_a_free_text_question(ticket):
    ticket.say("stop")
    assert ticket.state.current is None and "issue_description" not in ticket.state.memory


def test_help_with_a_request_is_the_request(helpdesk):
    chat = Chat(helpdesk)
    chat.say("help me, I can't remember my password")
    assert chat.state.current is not None and chat.state.current.intent == "reset_password"


def test_help_alone_lists_what_the_bot_can_do(helpdesk):
    chat = Chat(helpdesk)
    replies = chat.say("help")
    assert replies[-1].text.startswith("I can report a broken device") and chat.state.current is None


@pytest.mark.parametrize("text", ["forget it, I changed my mind", "actually never mind", "let's stop here",
                                  "I give up"])
def test_everyday_stop_ends_the_request_without_sharing(loan, text):
    replies = loan.say(text)
    assert replies[0].text.startswith("OK, I stopped")
    assert "credit_check" not in loan.called
    assert loan.state.current is None
