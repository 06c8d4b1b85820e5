"""Scenarios: checked against their catalog with every fault at its path; their truths listed as differences."""

import pytest

from orchestrator.engine.errors import SpecError
from orchestrator.engine.simulation.scenario import differences, load_scenario, parse_scenario

from .conftest import DEMO


def paths(error: SpecError) -> dict[str, str]:
    return {issue.path: issue.message for issue in error.issues}


def test_the_banking_scenario_differs_from_its_catalog_in_at_least_five_ways(realistic, banking_spec):
    found = differences(realistic, banking_spec)
    kinds = {d["kind"] for d in found}
    assert len(found) >= 5
    assert {"input_needed", "output_produced", "outcome_never", "outcome_unlisted", "failure_rate",
            "unfillable"} <= kinds
    assert {"kind": "input_needed", "skill": "submit_credit_card", "mode": "apply", "element": "email"} in found
    assert {"kind": "outcome_never", "skill": "credit_check", "mode": "m1", "outcome": "unavailable"} in found
    assert {"kind": "unfillable", "element": "account_number"} in found


def test_the_thin_catalog_and_its_scenario_load(thin_spec):
    scenario = load_scenario((DEMO / "banking-thin-scenario.yaml").read_text(), thin_spec)
    found = differences(scenario, thin_spec)
    assert {"kind": "input_needed", "skill": "submit_loan", "mode": "m1", "element": "credit_score"} in found
    assert len(thin_spec.skills) == 5 and all(len(m.inputs) <= 1 for s in thin_spec.skills for m in s.modes)


def test_unknown_names_and_bad_rates_are_refused_with_their_paths(banking_spec):
    data = {
        "scenario": "broken", "catalog": "banking",
        "users": {"goals": {"fly_to_mars": 1}, "cannot": {"emial": 0.5}, "refuse": {"ssn": 1.5}},
        "skills": {
            "teleport": {"failure_rate": 0.1},
            "credit_check": {"failure_rate": -0.2, "modes": {"m9": {}}},
            "lookup_customer": {"modes": {"m1": {"inputs": ["emial"], "outcomes": {"lost": {"weight": 1}}}}},
        },
        "unfillable": ["pin"],
    }
    with pytest.raises(SpecError) as caught:
        parse_scenario(data, banking_spec)
    found = paths(caught.value)
    assert "users.refuse.ssn" in found and "skills.credit_check.failure_rate" in found  # the rates, first
    del data["users"]["refuse"]
    data["skills"]["credit_check"]["failure_rate"] = 0.2
    with pytest.raises(SpecError) as caught:
        parse_scenario(data, banking_spec)
    found = paths(caught.value)
    assert found["users.goals.fly_to_mars"] == "unknown intent 'fly_to_mars'"
    assert found["users.cannot.emial"] == "unknown element 'emial'"
    assert found["skills.teleport"] == "unknown skill 'teleport'"
    assert "has no mode 'm9'" in found["skills.credit_check.modes.m9"]
    assert found["skills.lookup_customer.modes.m1.inputs[0]"] == "unknown element 'emial'"
    assert "list the outputs" in found["skills.lookup_customer.modes.m1.outcomes.lost.outputs"]
    assert found["unfillable[0]"] == "unknown element 'pin'"


def test_a_scenario_for_another_catalog_or_with_a_misspelt_key_is_refused(banking_spec):
    with pytest.raises(SpecError) as caught:
        parse_scenario({"scenario": "x", "catalog": "insurance", "userz": {}}, banking_spec)
    found = paths(caught.value)
    assert found == {"": "unknown field 'userz'"}
    with pytest.raises(SpecError) as caught:
        parse_scenario({"scenario": "x", "catalog": "insurance"}, banking_spec)
    assert "catalog" in paths(caught.value)


def test_a_mode_whose_outcomes_all_never_happen_is_refused(banking_spec):
    data = {"scenario": "x", "skills": {"credit_check": {"modes": {"m1": {"outcomes": {
        "scored": {"weight": 0}, "unavailable": {"weight": 0}}}}}}}
    with pytest.raises(SpecError) as caught:
        parse_scenario(data, banking_spec)
    assert "skills.credit_check.modes.m1.outcomes" in paths(caught.value)


def test_values_that_cannot_be_generated_must_be_listed(banking_spec):
    odd = banking_spec.model_copy(update={"elements": (*banking_spec.elements,)})
    element = odd.element("account_number").model_copy(update={"format": "regex:^(ab|cd)+$"})
    odd = odd.model_copy(update={"elements": tuple(element if e.name == "account_number" else e
                                                   for e in odd.elements)})
    with pytest.raises(SpecError) as caught:
        parse_scenario({"scenario": "x"}, odd)
    assert "users.values.account_number" in paths(caught.value)
    parse_scenario({"scenario": "x", "users": {"values": {"account_number": ["abcd"]}}}, odd)
