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
