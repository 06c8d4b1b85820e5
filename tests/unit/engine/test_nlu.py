"""The goal reasoning engine's understanding: intents, control acts and values by format."""

from datetime import date

import pytest

from orchestrator.engine.catalog.spec import Element
from orchestrator.engine.runtime import nlu
from orchestrator.engine.runtime.nlu import (
    TfidfClassifier,
    control_act,
    extract_value,
    extract_values,
    mentioned_element,
    valid_value,
)

# Paraphrases written apart from the catalog's examples: the classifier never sees them in training.
HELD_OUT = {
    "apply_loan": [
        "I would like to get a loan",
        "could you lend me money for a house",
        "loan application please",
        "I'm looking to borrow cash",
        "I want a personal loan",
    ],
    "apply_credit_card": [
        "I'd like to open a credit card",
        "get me a platinum card",
        "can I apply for a new credit card",
        "I want to sign up for a card",
    ],
    "check_card_status": [
        "what's happening with my card application",
        "is my card application approved yet",
        "status of my credit card please",
        "check on my application for a card",
    ],
}


@pytest.fixture(scope="module")
def classifier(banking):
    model = TfidfClassifier()
    model.fit({intent.name: intent.examples for intent in banking.intents})
    return model


def test_held_out_paraphrase_accuracy(classifier):
    cases = [(intent, text) for intent, texts in HELD_OUT.items() for text in texts]
    right = [text for intent, text in cases if classifier.rank(text)[0].intent == intent]
    accuracy = len(right) / len(cases)
    print(f"TF-IDF intent accuracy on {len(cases)} held-out paraphrases: {accuracy:.0%}")
    assert accuracy >= 0.8


def test_unrelated_text_scores_low(classifier):
    assert classifier.rank("the weather is lovely today")[0].score < 0.2


@pytest.mark.parametrize(
    ("text", "act"),
    [
        ("stop", "stop"),
        ("cancel that please", "stop"),
        ("yes, go ahead", "yes"),
        ("no thanks", "no"),
        ("what did you do?", "what"),
        ("how did you get my address?", "how"),
        ("why did you need my ssn", "why"),
        ("help", "help"),
        ("I'd like a loan", None),
    ],
)
def test_control_acts(text, act):
    assert control_act(text) == act


def test_mentioned_element(banking):
    assert mentioned_element("how did you get my credit score?", banking) == "credit_score"
    assert mentioned_element("why did you need the ssn", banking) == "ssn"


@pytest.mark.parametrize(
    ("fmt", "text", "value"),
    [
        ("email", "it's Ada.L@Example.com thanks", "ada.l@example.com"),
        ("money", "about $25,000", "25000.00"),
        ("money", "20k", "20000.00"),
        ("money", "1.5 million", "1500000.00"),
        ("number", "my score is 712", "712"),
        ("date", "born 1990-02-28", "1990-02-28"),
        ("date", "1990-02-30", None),
        ("regex:^[0-9]{3}-[0-9]{2}-[0-9]{4}$", "sure, 123-45-6789", "123-45-6789"),
        ("regex:^[0-9]{8,12}$", "account 12345678", "12345678"),
        ("regex:^[0-9]{8,12}$", "account 1234", None),
        ("enum:standard|gold|platinum", "a Gold one", "gold"),
        ("enum:standard|gold|platinum", "gold or platinum", None),
        ("phone", "call +1 (555) 010-9999", "+15550109999"),
    ],
)
def test_values_by_format(fmt, text, value):
    assert extract_value(Element(name="x", format=fmt), text) == value


MONDAY = date(2026, 11, 23)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("next friday", "2026-11-27"),
        ("on Friday please", "2026-11-27"),
        ("I want to fly to Berlin tomorrow", "2026-11-24"),
        ("the day after tomorrow", "2026-11-25"),
        ("in two weeks", "2026-12-07"),
        ("3 March", "2027-03-03"),  # no year said: the next one
        ("March 3rd", "2027-03-03"),
        ("the 5th of December", "2026-12-05"),
        ("born on 12 June 1985", "1985-06-12"),
        ("1990-02-28", "1990-02-28"),
        ("I may travel", None),  # "may" alone is no date
        ("march", None),
        ("the 5th", None),
        ("31 february", None),
        ("03/04/2026", None),  # March or April, depending on who typed it: asked again
        ("book a flight to Rome", None),
    ],
)
def test_everyday_dates(text, value):
    assert nlu._date(text, today=MONDAY) == value


def test_a_date_element_takes_an_everyday_date():
    assert extract_value(Element(name="day", format="date"), "next friday") == nlu._date("next friday")
    assert extract_value(Element(name="day", format="date"), "no idea") is None


def test_free_text_only_as_an_answer():
    element = Element(name="name")
    assert extract_value(element, "Ada Lovelace") is None
    assert extract_value(element, "Ada Lovelace", whole_answer=True) == "Ada Lovelace"


def test_volunteered_values_skip_ambiguous_ones(banking):
    values = extract_values(banking, "I'd like a loan, my email is ada@example.com, I earn $90,000")
    assert values == {"email": "ada@example.com"}  # income and loan amount both fit the amount


def test_valid_value(banking):
    ssn = banking.element("ssn")
    assert valid_value(ssn, "123-45-6789")
    assert not valid_value(ssn, "12-345-6789")


@pytest.mark.parametrize(("typed", "value"), [
    ("123 45 6789", "123-45-6789"), ("my ssn is 123.45.6789", "123-45-6789"), ("123 - 45 - 6789", "123-45-6789"),
    ("123-45-6789", "123-45-6789"), ("1234 5 6789", None), ("123 45 6789 0", None),
])
def test_digit_groups_separated_another_way_are_read_in_the_patterns_form(typed, value):
    ssn = Element(name="ssn", format="regex:^[0-9]{3}-[0-9]{2}-[0-9]{4}$")
    assert extract_value(ssn, typed) == value


def test_a_place_answer_that_names_the_wrong_end_of_the_trip_is_not_taken(travel):
    destination = travel.element("destination")  # "where you want to go"
    assert extract_value(destination, "from London", whole_answer=True) is None
    assert extract_value(destination, "to Lisbon", whole_answer=True) == "Lisbon"
    assert extract_value(destination, "Lisbon", whole_answer=True) == "Lisbon"
    assert extract_value(destination, "towards the coast", whole_answer=True) == "the coast"
    note = Element(name="issue_description", description="what went wrong")  # no direction: kept whole
    assert extract_value(note, "to be honest it just died", whole_answer=True) == "to be honest it just died"


def test_the_wrong_end_of_the_trip_is_asked_again_in_a_conversation(travel):
    from orchestrator.engine.planning.planner import Planner
    from orchestrator.engine.runtime.session import SessionState
    from orchestrator.engine.runtime.skills import SimulatedSkills
    from orchestrator.engine.runtime.turns import PlannerOrchestrator

    bot = PlannerOrchestrator(travel, Planner.for_spec(travel), SimulatedSkills(travel, seed=1))
    state = SessionState()
    bot.turn(state, "I want to book a flight")
    reply = bot.turn(state, "from London").replies[-1]
    assert reply.text == "That does not look like where you want to go. Where do you want to go?"
    assert "destination" not in state.memory
    bot.turn(state, "to Lisbon")
    assert state.memory["destination"].value == "Lisbon"


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("I need to get to Lisbon next Friday", "Lisbon"),
        ("book me a flight from Oslo to Rio de Janeiro", "Rio de Janeiro"),
        ("I want to fly to lisbon", None),  # not capitalised: asked rather than guessed
        ("move my trip to Friday", None),  # a day, not a place
    ],
)
def test_a_destination_named_in_the_request_is_taken(travel, text, place):
    assert extract_values(travel, text).get("destination") == place


def test_an_origin_is_told_from_a_destination():
    origin = Element(name="origin", description="where you are flying from")
    destination = Element(name="destination", description="where you want to go")
    spec_text = "from Oslo to Rome"
    assert nlu._place(origin, spec_text) == "Oslo" and nlu._place(destination, spec_text) == "Rome"
    assert extract_value(origin, "to Rome", whole_answer=True) is None
    code = Element(name="mfa_code", description="the code from your authenticator app")
    assert nlu._direction(code) is None


POSTCODE = Element(name="postcode", format="regex:^[A-Za-z0-9 ]{5,8}$", description="the postcode to be insured")


def test_a_loose_pattern_gives_the_code_not_a_word_that_fits_it():
    assert extract_value(POSTCODE, "postcode SW1A 1AA") == "SW1A 1AA"
    assert extract_value(POSTCODE, "sw1a 1aa", whole_answer=True) == "sw1a 1aa"  # an answer is taken as typed


def test_everyday_words_that_fit_a_loose_pattern_are_not_volunteered(insurance):
    values = extract_values(insurance, "I need to file a claim, my car was hit yesterday")
    assert "postcode" not in values  # "I need" fits ^[A-Za-z0-9 ]{5,8}$
    assert extract_values(insurance, "a quote for my home, postcode SW1A 1AA")["postcode"] == "SW1A 1AA"


def test_an_ordinal_date_is_no_postcode_and_goes_to_the_date_the_request_needs():
    from orchestrator.engine.planning.planner import Planner
    from orchestrator.engine.runtime.session import SessionState
    from orchestrator.engine.runtime.skills import SimulatedSkills
    from orchestrator.engine.runtime.turns import PlannerOrchestrator

    from .conftest import data_catalog

    utility = data_catalog("utility")
    assert "postcode" not in extract_values(utility, "I'm moving house on the 3rd of January")
    bot = PlannerOrchestrator(utility, Planner.for_spec(utility), SimulatedSkills(utility, seed=1))
    state = SessionState()
    bot.turn(state, "I'm moving house on the 3rd of January")  # a move date and a bill date both fit
    assert state.memory["move_date"].value.endswith("-01-03") and "bill_date" not in state.memory
    assert "postcode" not in state.memory


@pytest.mark.parametrize(
    ("text", "past", "value"),
    [
        ("the 1st of October", False, "2026-10-01"),  # last month is nearer than next October
        ("3 March", False, "2027-03-03"),
        ("the 5th of December", True, "2025-12-05"),  # an element about what happened: the last one
        ("next friday", True, "2026-11-27"),  # relative days keep their own direction
    ],
)
def test_a_day_and_month_without_a_year_is_the_nearer_one(text, past, value):
    assert nlu._date(text, today=MONDAY, past=past) == value


def test_an_element_about_what_happened_reads_its_date_in_the_past():
    happened = Element(name="incident_date", format="date", description="the day it happened")
    assert extract_value(happened, "on the 31st of December") <= date.today().isoformat()
