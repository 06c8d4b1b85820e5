"""Property: at a consent prompt, generated questions, hesitations and conditions never authorize
the share; clear yes and no replies always do what they say (issue 21's safety invariant)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orchestrator.engine.runtime.session import SessionState

from .dialogue_helpers import Talk

SUBJECTS = ["my ssn", "my social security number", "it", "that", "my data", "this", "the number"]
VERBS = ["share", "send", "submit", "give", "pass on", "hand over", "forward"]
RECIPIENTS = ["them", "the bureau", "the credit bureau", "anyone", "a third party", "the bank"]
# "{verb} {subject} {recipient}": the approving verbs sit inside sentences that approve nothing.
QUESTIONS = [
    "do I have to {verb} {subject} with {recipient}?", "will you {verb} {subject} to {recipient}?",
    "why do you {verb} {subject}?", "who gets {subject}?", "can I {verb} {subject} later?",
    "what happens if I don't {verb} {subject}?", "is it safe to {verb} {subject}?",
    "must I {verb} {subject}?", "would you {verb} {subject} to {recipient}?", "how will you {verb} {subject}?",
    "do you really need to {verb} {subject}", "are you going to {verb} {subject} to {recipient}",
    "so you {verb} {subject} to {recipient}?", "{verb} {subject} to {recipient}?",
]
HESITATIONS = [
    "wait", "not sure yet", "hmm, let me think about it", "maybe", "I'm not sure I want to {verb} {subject}",
    "hold on", "give me a second", "not yet", "perhaps, I need to think", "hmm",
    "I wonder if I should {verb} {subject}",
    "depends", "no idea", "I'm undecided",
]
CONDITIONS = [
    "only if you don't keep {subject}", "yes but only if {recipient} deletes it",
    "as long as you don't store {subject}",
    "{verb} {subject} provided that {recipient} keeps it private", "ok, unless it costs me",
    "yes, if you must", "just the last four digits", "{verb} it but not the whole number",
    "yes, {verb} {subject} after the review", "ok, once I have checked {subject}", "sure, when I say so",
    "yes, {verb} {subject} but not until tomorrow",
]
YES = ["yes", "yes please", "sure", "ok go ahead", "go ahead and {verb} {subject}", "fine by me", "yeah",
       "absolutely", "I agree", "yes, {verb} {subject}", "you can {verb} {subject}", "that's fine", "alright"]
NO = ["no", "no thanks", "nope", "I'd rather not", "don't {verb} {subject}", "please do not {verb} {subject}",
      "no, I don't want to {verb} {subject}", "I refuse", "not comfortable with that", "nah", "no way"]


def fill(template: str, verb: str, subject: str, recipient: str) -> str:
    return template.format(verb=verb, subject=subject, recipient=recipient)


def replies(templates: list[str]):
    return st.builds(fill, st.sampled_from(templates), st.sampled_from(VERBS), st.sampled_from(SUBJECTS),
                     st.sampled_from(RECIPIENTS))


@pytest.fixture(scope="module")
def at_consent(banking, banking_planner):
    """A conversation waiting for consent to share the SSN with the credit check, and its state."""
    talk = Talk(banking, banking_planner)
    talk.say("I'd like to apply for a loan", "ada@example.com", "123-45-6789")
    assert talk.replies[-1].kind == "consent"
    return talk, talk.state.model_dump(mode="json")


def reply_at_consent(at_consent, text: str) -> tuple[Talk, SessionState]:
    talk, stored = at_consent
    state = SessionState.model_validate(stored)
    talk.skills.calls.clear()
    talk.bot.turn(state, text)
    return talk, state


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.one_of(replies(QUESTIONS), replies(HESITATIONS), replies(CONDITIONS)))
def test_questions_hesitations_and_conditions_never_authorize(at_consent, text):
    talk, state = reply_at_consent(at_consent, text)
    assert "credit_check" not in state.authorized, text
    assert "credit_check" not in [name for name, _, _ in talk.skills.calls], text
    assert "credit_check" not in state.denied, text  # nor refuse: the prompt is asked again


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=replies(YES))
def test_a_clear_yes_authorizes(at_consent, text):
    talk, state = reply_at_consent(at_consent, text)
    assert "credit_check" in state.authorized, text


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=replies(NO))
def test_a_clear_no_refuses(at_consent, text):
    talk, state = reply_at_consent(at_consent, text)
    assert "credit_check" not in state.authorized and "credit_check" in state.denied, text


# --- a yes that restates the pending action ("ok, publish it") ------------------------------------------
# At the reports desk's consent to publish the salary report, the action's own verb is "publish".
ACTIONS = ["publish", "share"]
OBJECTS = ["it", "them", "the salary report", "the report", "the salaries", "that"]
RESTATED_YES = ["ok, {verb} {subject}", "yes, {verb} {subject}", "sure, {verb} {subject} please",
                "yes please {verb} {subject}", "alright, {verb} {subject} now", "ok {verb} {subject} on the intranet"]
NOT_CLEAR = [
    "{verb} {subject}?", "ok, {verb} {subject}?", "ok, {verb} {subject} tomorrow", "ok, {verb} {subject} later",
    "yes, {verb} {subject} after the review", "ok, {verb} {subject} when my boss agrees",
    "ok, {verb} {subject} only for managers", "should I {verb} {subject}?", "ok, but who can see {subject}?",
    "ok, {verb} {subject} to everyone except finance", "wait, {verb} {subject}?", "hmm, {verb} {subject} maybe",
    # the action's verb alone affirms nothing ("share it" alone stays the yes it was: the prompt's own verb)
    "ok, {verb} {subject} once I have checked", "publish {subject}", "ok, delete {subject}", "ok, published",
    "no, don't {verb} {subject}", "ok, {verb} {subject} with the names removed",
]


def restated(templates: list[str]):
    return st.builds(lambda t, v, o: t.format(verb=v, subject=o), st.sampled_from(templates),
                     st.sampled_from(ACTIONS), st.sampled_from(OBJECTS))


@pytest.fixture(scope="module")
def at_publish_consent():
    from .dialogue_helpers import dialogue_catalog

    talk = Talk(*dialogue_catalog("reports"))
    talk.say("I need a salary report out on the intranet", "engineering", "month", "jo@example.com")
    assert talk.replies[-1].kind == "consent" and talk.replies[-1].skill == "publish_salary_report"
    return talk, talk.state.model_dump(mode="json")


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=restated(NOT_CLEAR))
def test_the_action_named_without_a_plain_yes_never_authorizes(at_publish_consent, text):
    talk, state = reply_at_consent(at_publish_consent, text)
    assert "salary_table" not in state.authorized, text
    assert "publish_salary_report" not in [name for name, _, _ in talk.skills.calls], text


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=restated(RESTATED_YES))
def test_a_yes_that_restates_the_action_authorizes(at_publish_consent, text):
    talk, state = reply_at_consent(at_publish_consent, text)
    assert "salary_table" in state.authorized, text
