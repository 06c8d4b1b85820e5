"""Scripted banking conversations, typed as a user would, asserting on replies and state."""

from __future__ import annotations

import pytest

from orchestrator.engine.catalog.spec import CatalogSpec, Skill
from orchestrator.engine.planning.planner import Planner
from orchestrator.engine.runtime.replies import Reply
from orchestrator.engine.runtime.session import SessionState
from orchestrator.engine.runtime.skills import SimulatedSkills, SkillResult
from orchestrator.engine.runtime.turns import PlannerOrchestrator, TurnLog


class Conversation:
    def __init__(self, spec: CatalogSpec, planner: Planner, invoker=None):
        self.skills = invoker or SimulatedSkills(spec, seed=7)
        self.bot = PlannerOrchestrator(spec, planner, self.skills)
        self.state = SessionState()
        self.logs: list[TurnLog] = []

    def say(self, text: str) -> list[Reply]:
        log = self.bot.turn(self.state, text)
        self.logs.append(log)
        return log.replies

    def last(self, text: str) -> Reply:
        return self.say(text)[-1]

    @property
    def called(self) -> list[str]:
        return [name for name, _, _ in self.skills.calls]


@pytest.fixture
def chat(banking, banking_planner) -> Conversation:
    return Conversation(banking, banking_planner)


def test_loan_asks_email_looks_up_asks_consent_then_amount_and_reports(chat):
    first = chat.say("I'd like to apply for a loan")
    assert first[-1].kind == "question" and first[-1].element == "email"
    reply = chat.last("ada@example.com")
    assert chat.called == ["lookup_customer"]
    assert reply.kind == "question" and reply.element == "ssn"
    consent = chat.last("123-45-6789")
    assert consent.kind == "consent" and consent.skill == "credit_check" and consent.elements == ("ssn",)
    assert chat.called == ["lookup_customer"]  # nothing sensitive left before consent
    amount = chat.last("yes")
    assert chat.called == ["lookup_customer", "credit_check"]
    assert amount.kind == "question" and amount.element == "loan_amount"
    consent = chat.last("$20,000")
    assert consent.kind == "consent" and consent.skill == "submit_loan"
    assert set(consent.elements) == {"income", "credit_score"}
    replies = chat.say("yes")
    result = next(r for r in replies if r.kind == "result")
    assert result.goal == "apply_loan" and result.data["values"]["loan_status"] == "approved"
    assert replies[-1].kind == "question" and replies[-1].goal == "apply_credit_card"  # the extension
    shares = [(s.element, s.skill) for log in chat.logs for s in log.shares]
    assert shares == [("ssn", "credit_check"), ("income", "submit_loan"), ("credit_score", "submit_loan")]


def test_user_without_email_goes_by_account_number(chat):
    chat.say("I need a loan")
    reply = chat.last("I don't know my email")
    assert reply.element == "account_number"
    chat.say("12345678")
    assert chat.skills.calls[0] == ("lookup_customer", "m2", {"account_number": "12345678"})
    assert chat.state.memory["email"].source == "skill"


def test_unreadable_document_then_a_good_one(chat):
    chat.say("I want a loan")
    chat.say("I don't know my email")
    reply = chat.last("I don't have it")  # no account number either: the document path
    assert reply.element == "document"
    replies = chat.say("passport-blurry.jpg")
    assert any("did not work out (unreadable)" in r.text for r in replies)
    assert replies[-1].element == "document"  # asked for another one
    reply = chat.last("passport-sharp.jpg")
    assert [call[0] for call in chat.skills.calls] == ["ocr_document", "ocr_document"]
    assert chat.state.memory["ssn"].skill == "ocr_document"
    assert reply.element == "income"


def test_credit_check_is_never_called_twice(chat):
    chat.say("I'd like to apply for a loan")
    chat.say("ada@example.com")
    chat.say("000-00-0000")  # the bureau has no score for it
    replies = chat.say("yes")
    assert chat.called.count("credit_check") == 1
    assert ("credit_check-m1", "credit_score") in chat.state.cannot_establish
    assert replies[-1].kind == "text" and "cannot apply for a loan" in replies[-1].text
    assert chat.state.goals == []


def test_credit_card_in_the_middle_of_the_loan_then_the_loan_resumes(chat):
    chat.say("I'd like to apply for a loan")
    chat.say("ada@example.com")
    replies = chat.say("actually, I want a credit card first")
    assert "apply for a credit card first" in replies[0].text
    assert replies[-1].element == "card_type"
    chat.say("gold please")
    replies = chat.say("yes")
    kinds = [r.kind for r in replies]
    assert "result" in kinds and "resumed" in kinds
    resumed = next(r for r in replies if r.kind == "resumed")
    assert resumed.goal == "apply_loan"
    assert replies[-1].element == "ssn"  # the loan goes on where it stood
    assert [f.intent for f in chat.state.goals] == ["apply_loan"]


def test_stop_in_the_middle(chat):
    chat.say("I'd like to apply for a loan")
    replies = chat.say("stop")
    assert replies[0].text.startswith("OK, I stopped")
    assert chat.state.goals == [] and chat.state.pending is None
    assert chat.called == []


class TimingOut:
    """Like the simulator, but one skill never answers in time."""

    def __init__(self, spec: CatalogSpec, slow: str):
        self.inner, self.slow = SimulatedSkills(spec), slow
        self.calls = self.inner.calls

    def call(self, skill: Skill, mode: str, inputs: dict[str, str]) -> SkillResult:
        if skill.name == self.slow:
            self.calls.append((skill.name, mode, dict(inputs)))
            return SkillResult("error", message="did not answer within 10 s")
        return self.inner.call(skill, mode, inputs)


def test_a_skill_that_times_out_is_a_failure_not_a_crash(banking, banking_planner):
    chat = Conversation(banking, banking_planner, TimingOut(banking, "lookup_customer"))
    chat.say("I'd like to apply for a loan")
    replies = chat.say("ada@example.com")
    # The user hears that the service could not be reached; the cause stays in the history (the trace).
    assert any("could not be reached" in r.text for r in replies)
    assert not any("10 s" in r.text for r in replies)
    assert replies[-1].kind == "question"  # the conversation goes on, by another way
    assert chat.state.history[0].outcome == "error"
    assert "did not answer within 10 s" in chat.state.history[0].message


def test_unfeasible_value_is_challenged_and_asked_again(chat):
    chat.say("I'd like to apply for a loan")
    chat.say("ada@example.com")
    chat.say("123-45-6789")
    chat.say("yes")
    chat.say("$5,000,000")
    replies = chat.say("yes")
    assert any("cannot work (we lend at most 1,000,000)" in r.text for r in replies)
    assert replies[-1].element == "loan_amount"
    assert "loan_amount" not in chat.state.memory
    replies = chat.say("$50,000")
    assert any(r.kind == "result" for r in replies)


def test_consent_denied_nothing_sensitive_leaves(chat):
    chat.say("I'd like to apply for a loan")
    chat.say("ada@example.com")
    chat.say("123-45-6789")
    replies = chat.say("no")
    assert chat.called == ["lookup_customer"]
    assert all(not log.shares for log in chat.logs)
    assert "without your consent" in replies[-1].text and "cannot apply for a loan" in replies[-1].text
    assert "credit_check" in chat.state.denied


def test_side_questions_keep_the_pending_question(chat):
    chat.say("I'd like to apply for a loan")
    chat.say("ada@example.com")
    replies = chat.say("how did you get my address?")
    assert replies[0].kind == "explanation" and "lookup customer" in replies[0].text
    assert replies[-1].element == "ssn"


def test_values_given_up_front_are_not_asked(chat):
    replies = chat.say("I'd like a loan of $30,000, my email is ada@example.com")
    assert chat.state.memory["loan_amount"].value == "30000.00"
    assert chat.called == ["lookup_customer"]
    assert replies[-1].element == "ssn"


def test_a_bad_format_is_asked_again(chat):
    chat.say("I'd like to apply for a loan")
    reply = chat.last("my email is ada at example")
    assert reply.kind == "question" and reply.element == "email"
    assert reply.text.startswith("That does not look like your email address.")


def test_state_survives_serialisation_between_turns(banking, banking_planner):
    chat = Conversation(banking, banking_planner)
    chat.say("I'd like to apply for a loan")
    chat.state = SessionState.model_validate_json(chat.state.model_dump_json())
    chat.say("ada@example.com")
    assert chat.called == ["lookup_customer"]
