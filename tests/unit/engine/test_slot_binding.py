"""Values go where the user's words say, parsed by well-kept parsers, never overwritten silently;
catalog patterns are matched in linear time. Each test failed before issue #11's changes."""

from __future__ import annotations

from orchestrator.engine.catalog.checks import check_format
from orchestrator.engine.catalog.spec import Element
from orchestrator.engine.runtime.nlu import extract_value, extract_values

from .test_conversation_words import Chat


def test_an_answer_fills_the_element_asked_and_nothing_else(banking, banking_planner):
    chat = Chat(banking, banking_planner)
    chat.say("I want a loan")
    chat.say("I don't know my email")
    chat.say("no")
    replies = chat.say("passport.jpg")
    assert replies[-1].element == "income"
    chat.say("92,000 dollars")
    assert chat.state.memory["income"].value == "92000.00"
    assert "loan_amount" not in chat.state.memory
    replies = chat.say("yes")  # consent to the credit check; then the amount is still to be asked
    assert replies[-1].element == "loan_amount"


def test_several_values_go_where_their_words_say(banking, banking_planner):
    chat = Chat(banking, banking_planner)
    chat.say("I need a loan")
    chat.say("ada@example.com")
    chat.say("123-45-6789")
    replies = chat.say("yes")
    assert replies[-1].element == "loan_amount"
    chat.say("my income is $85,000 and I want 20000 dollars")
    assert chat.state.memory["loan_amount"].value == "20000.00"


def test_volunteered_values_bind_by_their_clause(banking):
    values = extract_values(banking, "my income is $85,000 and I want to borrow 20000 dollars")
    assert values == {"income": "85000.00", "loan_amount": "20000.00"}


def test_an_international_phone_number_is_kept_whole():
    assert extract_value(Element(name="p", format="phone"), "+44 20 7946 0958", whole_answer=True) == "+442079460958"


def test_a_value_the_user_gave_is_not_overwritten_by_a_lookup(helpdesk):
    chat = Chat(helpdesk)
    replies = chat.say("my laptop is broken, my employee id is E12345 and my email is ann@corp.example")
    assert "lookup_employee" in chat.called
    assert chat.state.memory["employee_id"].value == "E12345"
    assert any("I kept the one you gave me (E12345)" in r.text for r in replies)


def test_an_enum_question_lists_its_values_and_takes_a_close_spelling(banking, banking_planner):
    chat = Chat(banking, banking_planner)
    chat.say("I want a credit card")
    chat.say("I don't know my email")
    chat.say("no")
    chat.say("passport.jpg")
    replies = chat.say("92,000 dollars")
    assert replies[-1].element == "card_type"
    assert "(standard, gold or platinum)" in replies[-1].text
    chat.say("platnum")
    assert chat.state.memory["card_type"].value == "platinum"


def test_a_catastrophic_pattern_cannot_hang_a_turn():
    # With backtracking this takes about 2**40 steps; RE2 answers at once.
    element = Element(name="x", format="regex:^(a+)+$")
    assert extract_value(element, "a" * 40 + "!", whole_answer=True) == "a" * 40


def test_patterns_re2_cannot_run_in_linear_time_are_rejected_when_authored():
    issues = check_format(r"regex:^(a)\1$", "elements[0].format")
    assert issues and "RE2" in issues[0].message


def test_a_pattern_that_cuts_a_number_short_stores_no_piece_of_it():
    element = Element(name="phone", format=r"regex:^\+?[0-9 ]{7,12}$")
    assert extract_value(element, "+44 20 7946 0958", whole_answer=True) is None  # was "+44 20 7946"
    assert extract_value(element, "call me on 020 7946 09", whole_answer=True) == "020 7946 09"


def test_amounts_and_numbers_in_words():
    assert extract_value(Element(name="m", format="money"), "twenty thousand dollars") == "20000.00"
    assert extract_value(Element(name="m", format="money"), "five hundred", whole_answer=True) == "500.00"
    assert extract_value(Element(name="n", format="number"), "two bags", whole_answer=True) == "2"
    assert extract_value(Element(name="m", format="money"), "one gold card please") is None  # no amount said
