"""An element's format is read once, the same way everywhere (`engine.catalog.formats`)."""

from __future__ import annotations

import random

from orchestrator.engine.catalog.checks import check_format
from orchestrator.engine.catalog.formats import parse_format
from orchestrator.engine.catalog.spec import Element
from orchestrator.engine.runtime.skills import sample_value
from orchestrator.engine.simulation.values import generate


def test_an_enum_with_an_empty_option_means_its_other_options_everywhere():
    """`enum:|gold|silver` passed the checks, then a simulated skill answered '' (it split the string its own way)."""
    element = Element(name="card_type", format="enum:|gold | silver|")
    assert parse_format(element.format).options == ("gold", "silver")
    assert check_format(element.format, "format") == []
    assert sample_value(element) == "gold"
    assert {generate(element, random.Random(seed)) for seed in range(20)} == {"gold", "silver"}


def test_the_parts_of_a_format():
    assert parse_format("regex:^[A-Z]{2}\\d+$").pattern == "^[A-Z]{2}\\d+$"
    assert parse_format("email").kind == "email" and not parse_format("email").is_enum
    assert parse_format(None).kind == "" and parse_format(None).hint is None
    assert parse_format("enum:a|b").hint == "one of: a, b"
    assert parse_format("money").hint == "an amount, e.g. $20,000"


def test_an_enum_with_no_option_is_refused_at_the_field():
    assert [issue.path for issue in check_format("enum:| |", "elements[0].format")] == ["elements[0].format"]


def test_a_bounded_format_keeps_its_kind_and_says_what_it_accepts():
    future, amount = parse_format("date:future"), parse_format("money:100..5000")
    assert (future.kind, future.when) == ("date", "future") and future.hint == "a date today or later"
    assert (amount.kind, amount.lower, amount.upper) == ("money", 100, 5000)
    assert amount.hint == "an amount from $100 to $5,000"
    assert parse_format("number:..9").hint == "a number of at most 9"
    assert check_format("date:future", "f") == [] and check_format("money:100..5000", "f") == []
    assert check_format("date:soon", "f") and check_format("money:lots", "f") and check_format("number:5", "f")


def test_what_is_wrong_with_a_value_outside():
    from datetime import date

    today = date(2026, 6, 1)
    assert parse_format("date:future").problem("2026-05-31", today) == "that date is in the past"
    assert parse_format("date:future").problem("2026-06-01", today) is None
    assert parse_format("date:past").problem("2026-06-02", today) == "that date is still to come"
    assert parse_format("money:100..5000").problem("9000.00") == "$9,000 is more than $5,000"
    assert parse_format("number:1..9").problem("0") == "0 is less than 1"
    assert parse_format("money").problem("9000.00") is None


def test_simulated_values_stay_inside_the_bounds():
    from datetime import date

    for fmt in ("money:100..5000", "number:1..9", "date:future"):
        element = Element(name="x", format=fmt)
        values = {generate(element, random.Random(seed)) for seed in range(30)} | {sample_value(element)}
        assert all(parse_format(fmt).problem(v, date.today()) is None for v in values), (fmt, values)


def test_a_day_without_a_year_for_a_date_ahead_is_the_coming_one():
    from datetime import date

    from orchestrator.engine.runtime.dates import _date
    from orchestrator.engine.runtime.nlu import extract_value

    today = date(2026, 11, 26)
    assert _date("the 1st of October", today=today) == "2026-10-01"  # the nearer one, as before
    assert _date("the 1st of October", today=today, ahead=True) == "2027-10-01"
    visit = Element(name="visit_date", format="date:future", description="the day you would like to come in")
    coming = extract_value(visit, "the 1st of " + date.today().replace(day=1).strftime("%B"), whole_answer=True)
    assert coming is not None and parse_format(visit.format).problem(coming) is None
