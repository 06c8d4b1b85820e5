"""The default scenario of a catalog: every intent alike, no truths, valid as it is when every value can be drawn."""

from __future__ import annotations

import pytest

from orchestrator.engine.catalog.spec import CatalogSpec
from orchestrator.engine.errors import SpecError
from orchestrator.engine.simulation.default_scenario import default_scenario, values_needed
from orchestrator.engine.simulation.scenario import differences, parse_scenario


def test_the_default_scenario_of_banking_is_valid_and_differs_from_the_spec_in_nothing(banking_spec):
    data = default_scenario(banking_spec)
    scenario = parse_scenario(data, banking_spec)
    assert set(scenario.users.goals) == {i.name for i in banking_spec.intents}
    assert set(scenario.users.goals.values()) == {1.0}
    assert scenario.skills == {} and differences(scenario, banking_spec) == []
    assert values_needed(banking_spec) == []


def test_an_element_whose_values_cannot_be_drawn_is_named_at_its_field(banking_spec: CatalogSpec):
    elements = tuple(e.model_copy(update={"format": "regex:^(a|b)+$"}) if e.name == "email" else e
                     for e in banking_spec.elements)
    spec = banking_spec.model_copy(update={"elements": elements})
    assert values_needed(spec) == ["email"]
    with pytest.raises(SpecError) as caught:
        parse_scenario(default_scenario(spec), spec)
    assert [i.path for i in caught.value.issues] == ["users.values.email"]
