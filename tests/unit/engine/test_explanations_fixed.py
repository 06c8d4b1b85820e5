"""Explanations for issue #11's cases: goals to run a skill, refused requests, the element meant."""

from __future__ import annotations

from pathlib import Path

from orchestrator.engine.catalog.spec_io import load_catalog
from orchestrator.engine.runtime.nlu import mentioned_element

from .test_conversation_words import Chat

REPORTS = Path(__file__).resolve().parents[2] / "data" / "reports.yaml"


def test_why_on_a_goal_to_run_a_skill_names_the_skill():
    chat = Chat(load_catalog(REPORTS.read_text(), filename="reports.yaml"))
    chat.say("I need the salary report")
    chat.say("q2")
    reply = chat.say("why did you need the salary chart?")[-1]
    assert reply.kind == "explanation"
    assert reply.text.startswith("I needed the salary chart for publish")
    assert "That is what it took to publish the salary report." in reply.text


def test_what_after_a_refused_request_says_what_was_done(banking, banking_planner):
    chat = Chat(banking, banking_planner)
    for text in ("I need a loan", "ada@example.com", "123-45-6789", "yes", "20000 dollars", "no"):
        chat.say(text)
    assert chat.state.current is None  # the loan was given up
    reply = chat.say("what did you do?")[-1]
    assert "credit check with your social security number (scored)" in reply.text
    assert "not done anything" not in reply.text


def test_why_the_email_address_is_about_the_email_not_the_postal_address(banking, banking_planner):
    chat = Chat(banking, banking_planner)
    for text in ("I need a loan", "ada@example.com"):
        chat.say(text)
    reply = next(r for r in chat.say("why did you ask for my email address?") if r.kind == "explanation")
    assert reply.element == "email" and reply.text.startswith("I needed your email address for lookup customer")


def test_an_element_is_found_by_its_description_too(banking):
    assert mentioned_element("why did you ask for my email address?", banking) == "email"
    assert mentioned_element("how did you get the kind of card you want?", banking) == "card_type"
    assert mentioned_element("how did you get my postal address?", banking) == "address"


def test_how_did_you_get_an_enum_value(banking, banking_planner):
    chat = Chat(banking, banking_planner)
    for text in ("I want a credit card", "ada@example.com", "gold"):
        chat.say(text)
    replies = chat.say("how did you get the kind of card you want?")
    reply = next(r for r in replies if r.kind == "explanation")
    assert reply.text == "You told me the kind of card you want."
    assert replies[-1].kind == "consent"  # and the pending consent is asked again
