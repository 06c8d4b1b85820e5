"""Refinements applied to a spec, their effects on plans, and the answer key as changes."""

import pytest

from orchestrator.engine.analysis.trajectories import Call, Sample
from orchestrator.engine.catalog.spec_io import load_catalog
from orchestrator.engine.errors import ConcertoError
from orchestrator.engine.learning.effects import plan_effects
from orchestrator.engine.learning.generated import generated_catalog, generated_scenario
from orchestrator.engine.learning.observations import from_trajectory
from orchestrator.engine.learning.refinements import Refinement, apply_refinements
from orchestrator.engine.learning.scoring import truth_changes
from orchestrator.engine.simulation.scenario import differences
from tests.unit.learning.conftest import DEMO


def test_changes_are_applied_by_name_and_a_removed_outcome_leaves_the_simulation_too(banking_spec):
    spec = apply_refinements(banking_spec, [
        {"op": "add_input", "skill": "submit_credit_card", "mode": "apply", "element": "email"},
        {"op": "remove_outcome", "skill": "credit_check", "mode": "m1", "outcome": "unavailable"},
        {"op": "add_outcome", "skill": "credit_check", "mode": "m1", "outcome": "frozen", "value": []},
        {"op": "set_askable", "element": "account_number", "value": False},
        {"op": "set_retries", "skill": "ocr_document", "value": 4},
    ])
    assert "email" in spec.skill("submit_credit_card").mode("apply").inputs
    assert [o.name for o in spec.skill("credit_check").modes[0].outcomes] == ["scored", "frozen"]
    assert all(r.outcome != "unavailable" for r in spec.skill("credit_check").simulation.rules)
    assert not spec.element("account_number").askable and spec.skill("ocr_document").max_retries == 4


def test_a_change_that_does_not_fit_names_itself(banking_spec):
    with pytest.raises(ConcertoError, match="change 1 .add_input."):
        apply_refinements(banking_spec, [{"op": "add_input", "skill": "nope", "mode": "m1", "element": "email"}])


def test_effects_say_which_plans_get_shorter_and_which_intents_stop_being_plannable(banking_spec):
    shorter = plan_effects(banking_spec, [{"op": "add_output", "skill": "lookup_customer", "mode": "m1",
                                           "outcome": "found", "element": "ssn"}])
    assert "apply_loan: plan 1 step shorter" in [e.text for e in shorter]
    thin = load_catalog((DEMO / "banking-thin.yaml").read_text())
    broken = plan_effects(thin, [{"op": "set_askable", "element": "card_application_id", "value": False}])
    (effect,) = [e for e in broken if e.breaks]
    assert effect.text == "check_card_status: no longer plannable"


def test_a_refinement_round_trips_through_plain_data():
    refinement = Refinement(kind="unfillable", key="unfillable x", change={"op": "set_askable", "element": "x",
                                                                           "value": False}, summary="s")
    assert Refinement.from_dict(refinement.as_dict()) == refinement


def test_generated_scenarios_differ_from_their_catalogs_and_the_key_applies_as_changes():
    spec = generated_catalog(11)
    scenario = generated_scenario(spec, 11)
    key = differences(scenario, spec)
    assert {d["kind"] for d in key} >= {"output_produced", "failure_rate", "unfillable"}
    truth = apply_refinements(spec, truth_changes(key))
    assert truth != spec


def test_an_imported_trajectory_is_a_list_of_calls_that_worked_with_their_arguments():
    sample = Sample(calls=(Call("lookup_customer", {"email": "a@b.c"}, label="customer"),
                           Call("made_up_tool", {"x": 1})), memory={"ssn": "1"}, ident="7")
    seen = from_trajectory(sample, ["lookup_customer"])
    (only,) = seen.calls
    assert only.status == "ok" and only.available == {"email", "ssn"} and seen.ident == "trajectory 7"
    assert only.mode == "m1"
    named = from_trajectory(Sample(calls=(Call("submit_credit_card", {"name": "Ada"}),
                                          Call("lookup_customer.m2", {}))), ["submit_credit_card", "lookup_customer"],
                            {"submit_credit_card": "apply"})
    assert [(c.skill, c.mode) for c in named.calls] == [("submit_credit_card", "apply"), ("lookup_customer", "m2")]
