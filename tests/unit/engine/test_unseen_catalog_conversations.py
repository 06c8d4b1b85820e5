"""Conversations on catalogs written apart from the language layer (bench/data: insurance, utility,
telecom), tried as their users would; each test is a defect found that way."""

from __future__ import annotations

from datetime import date

import pytest

from orchestrator.engine.planning.planner import Planner
from orchestrator.engine.runtime.session import SessionState
from orchestrator.engine.runtime.skills import SimulatedSkills
from orchestrator.engine.runtime.turns import PlannerOrchestrator

from .conftest import data_catalog


@pytest.fixture(scope="module")
def telecom():
    spec = data_catalog("telecom")
    return spec, Planner.for_spec(spec)


def talk(catalog, *messages: str) -> tuple[SessionState, list]:
    spec, planner = catalog
    bot = PlannerOrchestrator(spec, planner, SimulatedSkills(spec, seed=1))
    state = SessionState()
    replies = []
    for message in messages:
        replies = bot.turn(state, message).replies
    return state, replies


def test_a_weekday_in_a_fault_report_is_no_date_of_birth(telecom):
    state, replies = talk(telecom, "my broadband has been dropping since Monday", "AC12345678")
    assert "date_of_birth" not in state.memory
    assert replies[-1].text == "What is the account holder's date of birth?"  # asked, not a consent to share it


def test_an_account_number_answer_gives_no_phone_number(telecom):
    state, _ = talk(telecom, "my broadband has been dropping since Monday", "AC12345678")
    assert state.memory["account_number"].value == "AC12345678"
    assert "mobile_number" not in state.memory  # its digits are no phone number


def test_what_the_user_gave_can_be_asked_back_and_the_question_is_asked_again(telecom):
    start = ("I want to upgrade to a new pixel on the unlimited plan", "AC12345678", "1 Feb 1990", "go ahead")
    state, replies = talk(telecom, *start, "what is the handset?")
    assert [r.text for r in replies] == ["The handset you would like is pixel.", "What is the mobile number?"]
    _, replies = talk(telecom, *start, "which plan did I choose")
    assert replies[0].text == "The monthly plan is unlimited."
    _, replies = talk(telecom, *start, "what was my date of birth")
    assert replies[0].text == "I have the account holder's date of birth, but I do not repeat sensitive values."
    assert "1990" not in replies[0].text


def test_a_question_about_something_not_held_is_still_a_request(telecom):
    state, replies = talk(telecom, "what is my data usage")
    assert state.current is not None and state.current.intent == "check_data_usage"


@pytest.fixture(scope="module")
def hr():
    spec = data_catalog("hr")
    return spec, Planner.for_spec(spec)


def test_a_date_range_fills_the_first_and_the_last_day(hr):
    state, replies = talk(hr, "I'd like to book annual leave from 22 December to 2 January")
    first, last = state.memory["leave_start"].value, state.memory["leave_end"].value
    assert first.endswith("-12-22") and last.endswith("-01-02") and first < last
    assert "absence_start" not in state.memory  # "the first day you were unwell" starts something too
    assert replies[-1].text == "What is your employee number?"


@pytest.mark.parametrize(("typed", "read"), [("13/04/1988", "1988-04-13"), ("04.13.88", "1988-04-13"),
                                              ("13-04-1988", "1988-04-13"), ("5/5/1979", "1979-05-05")])
def test_a_date_in_figures_is_a_date(hr, typed, read):
    state, _ = talk(hr, "I'd like to book annual leave from 22 December to 2 January", "E123456", typed)
    assert state.memory["date_of_birth"].value == read


def test_a_date_in_figures_that_reads_two_ways_is_asked_about_by_name(hr):
    state, replies = talk(hr, "I'd like to book annual leave from 22 December to 2 January", "E123456", "3/4/1988")
    assert "date_of_birth" not in state.memory
    assert replies[-1].text == ("Do you mean 3 April 1988 or March 4, 1988? Please write the month as a word. "
                                "What is your date of birth?")


@pytest.fixture(scope="module")
def insurance():
    spec = data_catalog("insurance")
    return spec, Planner.for_spec(spec)


START = ("POL-1234567", "12 March 1985", "yes")


def test_the_way_the_request_names_is_taken_over_a_cheaper_one(insurance):
    # amend_policy adds a driver (two inputs) or changes the address (one): the request says which
    state, replies = talk(insurance, "I want to add my son as a driver on my policy", *START)
    assert replies[-1].text == "What is the full name of the driver to add?"
    state, replies = talk(insurance, "I want to add my son as a driver on my policy", *START, "Tom Smith",
                          "SMITH901015T99AB")
    assert replies[-1].kind == "result" and "new_address" not in state.memory
    assert state.memory["policy_change"].skill == "amend_policy"


def test_without_a_named_way_the_cheapest_is_taken(insurance):
    _, replies = talk(insurance, "I need to update my policy details", *START)
    assert replies[-1].text == "What is your new address?"


def test_today_in_a_sickness_report_is_its_first_day_not_a_birth_date(hr):
    state, replies = talk(hr, "I woke up with a fever and can't come in today")
    assert state.memory["absence_start"].value == date.today().isoformat()
    assert "date_of_birth" not in state.memory


@pytest.fixture(scope="module")
def banking_talk(banking, banking_planner):
    return banking, banking_planner


def test_a_value_given_instead_of_the_answer_is_noted_and_replaces_a_skills(banking_talk):
    # asked for the SSN, the user states an income; the customer lookup had found another one
    state, replies = talk(banking_talk, "hi, I'd like a 15k loan to redo my kitchen", "ada@example.com",
                          "I make about 70 grand a year")
    assert [r.text for r in replies] == ["Noted: your yearly income (instead of what lookup customer gave).",
                                         "What is your social security number?"]
    assert state.memory["income"].value == "70000.00" and state.memory["income"].source == "user"
    assert state.memory["loan_amount"].value == "15000.00"


@pytest.fixture(scope="module")
def travel_talk(travel):
    return travel, Planner.for_spec(travel)


def test_a_request_that_reads_like_a_yes_is_still_a_request(banking_talk):
    state, _ = talk(banking_talk, "has my credit card been approved")  # "approved" leans to yes
    assert state.current is not None and state.current.intent == "check_card_status"


def test_a_bare_yes_or_no_with_nothing_asked_starts_nothing(travel_talk):
    state, replies = talk(travel_talk, "I can't travel anymore, my booking is QX7P2L", "yes")
    assert replies[-1].text.startswith("All right. I can book a flight") and state.pending is None
    assert state.current is None  # not "Do you want to book a flight?"
    _, replies = talk(travel_talk, "I can't travel anymore, my booking is QX7P2L", "no thanks")
    assert [r.text for r in replies] == ["All right."]


def test_asking_back_for_what_is_being_asked_says_so(banking_talk):
    _, replies = talk(banking_talk, "I'd like a loan", "ada@example.com", "123 45 6789", "fine by me",
                      "what is my loan amount?")
    assert [r.text for r in replies] == ["I do not have the amount you want to borrow yet: that is what I am "
                                         "asking you for.", "What is the amount you want to borrow?"]


REFUSED = ("I'd like to add a line for my daughter", "AC12345678", "1 Feb 1990", "I'd rather not")


def test_why_a_value_was_asked_for_after_its_sharing_was_refused(telecom):
    _, replies = talk(telecom, *REFUSED, "why do you need my date of birth?")
    assert replies[0].text == ("I asked for the account holder's date of birth to add a line to an account: "
                               "verify customer (finds the customer from the account number and date of birth) "
                               "needs it. You did not agree to share it, so I have not used it.")


def test_a_yes_right_after_a_refusal_ended_a_request_takes_the_refusal_back(telecom):
    state, replies = talk(telecom, *REFUSED, "ok then, go ahead")
    assert [r.kind for r in replies] == ["text", "text", "consent"]
    assert replies[0].text == "All right, let's try again." and state.denied == []
    state, replies = talk(telecom, *REFUSED, "ok then, go ahead", "yes")
    assert replies[-1].text == "What is the name of the person who will use the new line?"
    assert state.memory["customer_id"].skill == "verify_customer"


def test_a_refusal_is_only_taken_back_right_after_it(telecom):
    state, replies = talk(telecom, *REFUSED, "tell me a joke", "yes")
    assert "verify_customer" in state.denied and replies[-1].text.startswith("All right. I can")


def test_an_option_written_with_underscores_is_named_in_words(hr):
    state, _ = talk(hr, "I want to book a first aid course")
    assert state.memory["course"].value == "first_aid"
    _, replies = talk(hr, "I want to book a course", "E123456", "5 May 1979", "yes")
    assert replies[-1].text == ("What is the course (first aid, fire safety, excel, leadership or manual "
                                "handling)?")


def test_a_request_in_the_middle_of_a_question_keeps_its_values(hr):
    state, replies = talk(hr, "I want to book a training course", "E123456", "5 May 1979", "yes",
                          "no wait, I need to report that I'm sick since yesterday")
    assert state.current.intent == "report_sickness"
    assert state.memory["absence_start"].value < date.today().isoformat()  # yesterday, not asked again
    assert replies[-1].text == "What is a short reason for the absence?"


@pytest.mark.parametrize(("said", "past", "read"), [
    ("since yesterday", False, "2026-11-22"), ("three days ago", False, "2026-11-20"),
    ("since friday", False, "2026-11-20"), ("friday", True, "2026-11-20"), ("friday", False, "2026-11-27"),
    ("last week", False, "2026-11-16"), ("3 March", True, "2026-03-03")])
def test_past_days_in_words(said, past, read):
    from orchestrator.engine.runtime import nlu

    assert nlu._date(said, today=date(2026, 11, 23), past=past) == read


def test_a_count_named_in_the_request_is_taken(travel_talk):
    state, replies = talk(travel_talk, "I need to add two bags to booking QX7P2L")
    assert state.memory["bags"].value == "2" and replies[-1].kind == "result"
    state, replies = talk(travel_talk, "can I bring 2 more things on booking QX7P2L")
    assert "bags" not in state.memory  # a bare number says nothing of what it counts


def test_a_value_alone_with_no_request_open_is_noted_not_misunderstood(travel_talk):
    state, replies = talk(travel_talk, "QX7P2L")
    assert replies[-1].text.startswith("Noted: your booking reference. I can book a flight")
    assert state.memory["booking_ref"].value == "QX7P2L"
    _, replies = talk(travel_talk, "tell me a joke")
    assert replies[-1].text.startswith("Sorry, I did not understand that.")


def test_values_given_with_an_unsure_request_do_not_settle_it(banking_talk):
    # the value fits the status check, but the user asks for a new card: asked, never started blindly
    state, _ = talk(banking_talk, "I want a credit card My card application id is CC-000000.")
    assert state.pending is not None and state.pending.kind == "choose"
    assert state.memory["card_application_id"].value == "CC-000000"


def test_a_sentence_answering_another_question_holds_no_loose_pattern_value(insurance):
    state, replies = talk(insurance, "get me a quote for my car", "it's worth about 12 grand")
    assert "postcode" not in state.memory  # "s worth" fits ^[A-Za-z0-9 ]{5,8}$
    assert [r.text for r in replies] == ["Noted: the value of the car or of the home's rebuild.",
                                         "What is the postcode to be insured?"]
    state, _ = talk(insurance, "get me a quote for my car", "SW1A 1AA.")
    assert state.memory["postcode"].value == "SW1A 1AA"
