"""Mechanisms the third held-out dialogues (council, restaurant; written blind and run once) showed
wrong, each tried on another catalog too where one shows it."""

from __future__ import annotations

import pytest

from .dialogue_helpers import Talk, dialogue_catalog, talk_on
from .test_heldout2_mechanisms import LOAN_CONSENT, VAN_HIRE


@pytest.fixture
def bank(banking, banking_planner) -> Talk:
    return Talk(banking, banking_planner)


def test_a_date_that_words_name_for_two_elements_goes_to_the_one_the_request_needs():
    """ "a table ... on 20 March 2027": "table" names the booking day and a move's new day alike."""
    restaurant = Talk(*dialogue_catalog("restaurant"))
    restaurant.say("can I book a table for lunch on 20 March 2027?")
    assert restaurant.state.value("booking_date") == "2027-03-20" and "new_date" not in restaurant.state.memory


def test_a_range_answering_its_first_day_gives_both_days():
    vans = talk_on(VAN_HIRE)
    vans.say("I need a van")
    assert vans.replies[-1].element == "first_day"
    vans.say("from 2 April 2027 to 9 April 2027")
    assert vans.state.value("first_day") == "2027-04-02" and vans.state.value("last_day") == "2027-04-09"


def test_instead_with_a_request_that_does_not_use_the_value_is_that_request():
    restaurant = Talk(*dialogue_catalog("restaurant"))
    restaurant.say("can I get margheritas for collection?", "eve@example.com", "3", "no")
    assert restaurant.state.value("portions") == "3"
    restaurant.say("I'll book a table instead, for 2 on 2 April 2027")
    assert restaurant.state.current is not None and restaurant.state.current.intent == "book_table"
    assert restaurant.state.value("booking_date") == "2027-04-02" and restaurant.state.value("portions") == "3"


def test_instead_naming_a_value_the_request_uses_is_still_a_correction():
    access = Talk(*dialogue_catalog("access"))
    access.say("I need access to payroll", "max@example.com")
    access.say("what about the crm instead?")
    assert access.state.value("system") == "crm"


@pytest.mark.parametrize(("catalog", "opening", "question"), [
    ("council", "I have a question about my council tax", "where do I find my council tax reference?"),
    (None, "a card", "what is a credit score?"),
])
def test_a_question_about_a_value_at_did_you_mean_picks_nothing(bank, catalog, opening, question):
    talk = Talk(*dialogue_catalog(catalog)) if catalog else bank
    choices = talk.say(opening)[-1].data.get("choices")
    assert choices and len(choices) == 2
    replies = talk.say(question)
    assert talk.state.current is None
    assert replies[-1].data.get("choices") == choices
    assert "yes or no" not in " ".join(r.text for r in replies)


def test_a_no_whose_reason_says_when_is_a_no(bank):
    bank.say(*LOAN_CONSENT)
    replies = bank.say("no, I'll bring it in when I visit the branch")
    assert "credit_check" not in bank.state.authorized and replies[-1].kind != "consent"
    assert any("not share" in r.text for r in replies)


def test_a_yes_but_do_not_is_a_condition_and_no_consent(bank):
    bank.say(*LOAN_CONSENT)
    replies = bank.say("yes, but don't keep my number on file")
    assert "credit_check" not in bank.state.authorized and "credit_check" not in bank.called
    assert replies[-1].kind == "consent" and replies[-1].mark != "not_understood"
    assert "yes or no" not in " ".join(r.text for r in replies).lower()  # a condition, not a misread


def test_asking_again_for_a_request_that_ended_on_a_refusal_asks_the_consent_again(bank):
    bank.say(*LOAN_CONSENT, "no")
    assert "credit_check" in bank.state.denied
    replies = bank.say("I'd like to apply for a loan")
    assert replies[-1].kind == "consent" and replies[-1].skill == "credit_check"
    assert "credit_check" not in bank.state.authorized  # asked, not granted
    bank.say("yes")
    assert "credit_check" in bank.called


@pytest.mark.parametrize("asked_back", ["yes?", "ok?", "sure?"])
def test_a_yes_asked_back_gives_no_consent(bank, asked_back):
    """Found by trying replies at the consent prompt: "yes?" asks back, it says nothing."""
    bank.say(*LOAN_CONSENT)
    replies = bank.say(asked_back)
    assert "credit_check" not in bank.state.authorized and "credit_check" not in bank.called
    assert replies[-1].kind == "consent"
