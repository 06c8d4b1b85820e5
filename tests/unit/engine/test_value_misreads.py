"""Misreads found by the held-out value phrasings (bench/data/values_heldout.yaml, written blind and run
once): each wrong value here could have been sent to a skill."""

from __future__ import annotations

from datetime import date

import pytest

from orchestrator.engine.catalog.spec import CatalogSpec, Element
from orchestrator.engine.runtime.dates import _date
from orchestrator.engine.runtime.nlu import extract_value, extract_values

TODAY = date(2026, 11, 26)


def element(fmt: str, description: str = "the value") -> Element:
    return Element(name="x", format=fmt, description=description)


@pytest.mark.parametrize(("fmt", "said", "value"), [
    ("number", "1,200", "1200"),  # was 1
    ("number", "two or three", None), ("number", "3 or 4 nights, not sure", None),
    ("number", "2 and a half", None),
    ("money", "1.200,50 €", "1200.50"),  # was 1.00
    ("money", "£1,200.50", "1200.50"),
    ("money", "2 years", None), ("money", "3 payments", None),
    ("money", "between 100 and 200", None), ("money", "100-200", None), ("money", "£120 or £150", None),
    ("email", "o'brien@example.ie", "o'brien@example.ie"),  # was brien@example.ie, someone else's
    ("enum:small|medium|large", "barge", None), ("enum:gold|silver|platinum", "old", None),
    ("enum:first_aid|dental|optical", "rental", None), ("enum:gold|silver|platinum", "platnum", "platinum"),
    ("phone", "I was born 13.04.1988", None),
])
def test_an_answer_is_read_right_or_not_at_all(fmt, said, value):
    assert extract_value(element(fmt), said, whole_answer=True) == value


@pytest.mark.parametrize(("said", "past", "value"), [
    ("13/2/27", False, "2027-02-13"),  # was 1927
    ("13/2/88", False, "1988-02-13"), ("15/3/30", True, "1930-03-15"),
    ("1st or 2nd of December", False, None),
    ("a week on Monday", False, "2026-12-07"),  # was the coming Monday
    ("a fortnight today", False, "2026-12-10"),  # was today
])
def test_dates_that_were_misread(said, past, value, monkeypatch):
    import orchestrator.engine.runtime.dates as dates

    class Today(date):
        @classmethod
        def today(cls) -> date:
            return TODAY

    monkeypatch.setattr(dates, "date", Today)
    assert _date(said, today=TODAY, past=past) == value


def test_a_string_of_digits_said_unasked_is_no_phone_number():
    spec = CatalogSpec.model_validate({
        "catalog": "calls", "elements": [{"name": "phone", "format": "phone", "description": "your phone"}],
        "skills": [], "intents": []})
    assert extract_values(spec, "my ref 20240315 please") == {}
    assert extract_values(spec, "reach me at +44 7700 900456") == {"phone": "+447700900456"}


# --- the second blind set (bench/data/values_heldout2.yaml), run once after the fixes above -----------

@pytest.mark.parametrize(("fmt", "said", "value"), [
    ("money", "1 234,50 €", "1234.50"),  # was 1.00
    ("money", "19.999", None), ("money", "10 kg", None), ("money", "12/03/2027", None),
    ("money", "call 212 736 9100", None), ("money", "order #4512", None), ("money", "flat 4, 22 Baker Street", None),
    ("money", "about 120 please", "120.00"), ("money", "250 quid", "250.00"),
    ("number", "three adults and two children", None), ("number", "my son is 7 and my daughter 9", None),
    ("number", "5 Jan", None), ("number", "AB-123456", None), ("number", "£40", None),
    ("number", "a 2 bedroom flat on 19 March 2027", "2"),
    ("phone", "0044 161 496 0234", "+441614960234"), ("phone", "+1 646 832 44101", None),
    ("email", "cc my boss at boss@corp.io and me at jane@corp.io", None),
    ("enum:window|aisle|middle", "anything but window", None),
    ("enum:am|pm", "I am not sure", None), ("enum:s|m|l|xl", "I'm not sure", None), ("enum:am|pm", "pm", "pm"),
])
def test_an_answer_from_the_second_set_is_read_right_or_not_at_all(fmt, said, value):
    assert extract_value(element(fmt), said, whole_answer=True) == value


def test_a_day_ruled_out_is_not_the_one_read():
    assert _date("not Monday, Wednesday", today=date(2027, 12, 28)) == "2027-12-29"


def test_digits_said_unasked_are_a_phone_only_when_written_with_a_country_prefix():
    spec = CatalogSpec.model_validate({
        "catalog": "calls", "elements": [{"name": "phone", "format": "phone", "description": "your phone"}],
        "skills": [], "intents": []})
    assert extract_values(spec, "my order reference is 6468324410") == {}  # the second set's misread
    assert extract_values(spec, "reach me at 0044 7700 900456") == {"phone": "+447700900456"}
