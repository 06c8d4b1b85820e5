"""How informative a simulated rejection is, and learning by experimentation (simulation only, when asked)."""

import random

import pytest

from orchestrator.engine.errors import SpecError
from orchestrator.engine.learning.learner import learn
from orchestrator.engine.learning.observations import from_trace
from orchestrator.engine.learning.refinements import Kind
from orchestrator.engine.planning.planner import Planner
from orchestrator.engine.runtime.masking import MASK
from orchestrator.engine.simulation.driver import simulate_conversation
from orchestrator.engine.simulation.scenario import load_scenario, parse_scenario
from orchestrator.engine.simulation.summary import summarize
from orchestrator.engine.simulation.truth import TruthSkills

from .conftest import DEMO

NEEDS = {"credit_check": {"modes": {"m1": {"inputs": ["ssn", "name", "income"]}}}}


def rejected(spec, data) -> str:
    scenario = parse_scenario({"scenario": "t", "skills": NEEDS, **data}, spec)
    skills = TruthSkills(spec, scenario, random.Random(1), context=dict)
    result = skills.call(spec.skill("credit_check"), "m1", {"ssn": "123-45-6789"})
    assert result.status == "invalid"
    return result.message


def test_the_scenario_decides_how_much_a_rejection_says(banking_spec):
    assert rejected(banking_spec, {}) == "it also needs name, income"  # the default: every missing input
    assert rejected(banking_spec, {"rejections": "first"}) == "it also needs name"
    assert "name" not in rejected(banking_spec, {"rejections": "none"})
    # a skill may say more or less than the scenario's other skills
    per_skill = {"credit_check": {**NEEDS["credit_check"], "rejections": "none"}}
    scenario = parse_scenario({"scenario": "t", "skills": per_skill, "rejections": "all"}, banking_spec)
    assert scenario.rejection_detail("credit_check") == "none" and scenario.rejection_detail("submit_loan") == "all"
    with pytest.raises(SpecError):
        parse_scenario({"scenario": "t", "rejections": "some"}, banking_spec)


@pytest.fixture(scope="module")
def thin_runs(thin_spec):
    scenario = load_scenario((DEMO / "banking-thin-scenario.yaml").read_text(), thin_spec)
    planner = Planner.for_spec(thin_spec)

    def runs(explore: bool, scenario=scenario):
        return [simulate_conversation(thin_spec, planner, scenario, orchestrator="s3", seed=11, index=i,
                                      explore=explore) for i in range(40)]
    return scenario, runs


def test_a_rejection_keeps_its_message_in_the_trace(thin_runs):
    _, runs = thin_runs
    invalid = [e["data"] for c in runs(False) for e in c.trace
               if e["kind"] == "execution" and e["data"]["status"] == "invalid"]
    assert invalid and all(d["message"].startswith("it also needs") for d in invalid)


def test_experiments_run_only_when_asked_and_the_summary_says_so(thin_runs):
    _, runs = thin_runs
    plain, explored = runs(False), runs(True)
    assert not [e for c in plain for e in c.trace if e["data"].get("probe")]
    assert summarize([c.metrics for c in plain])["experimentation"] == {"used": False}
    probes = [e["data"] for c in explored for e in c.trace if e["data"].get("probe")]
    assert probes and all(e["kind"] == "execution" for c in explored for e in c.trace if e["data"].get("probe"))
    # the conversations themselves are the same: probes come after, and out of their figures
    assert [c.transcript for c in plain] == [c.transcript for c in explored]
    assert [c.metrics["skill_calls"] for c in plain] == [c.metrics["skill_calls"] for c in explored]
    summary = summarize([c.metrics for c in explored])
    assert summary["experimentation"]["used"] and summary["experimentation"]["probe_calls"] == len(probes)
    # a probe's values are never kept, only the names of what it had and gave
    assert all(set(p["inputs"].values()) <= {MASK} and set(p["outputs"].values()) <= {MASK} for p in probes)
    assert any(p["skill"] == "submit_loan" and p["status"] == "ok" for p in probes)


def test_experiments_bound_what_a_mode_needs_even_when_rejections_say_nothing(thin_spec, thin_runs):
    scenario, runs = thin_runs
    silent = scenario.model_copy(update={"rejections": "none"})
    conversations = [from_trace(str(c.index), c.trace, c.transcript, c.state, c.intent) for c in runs(True, silent)]
    proposed = {(r.change["skill"], r.change["element"]) for r in learn(thin_spec, conversations)
                if r.kind is Kind.INPUT_NEEDED}
    # submit_loan really needs name, income and credit_score besides its declared loan_amount
    assert {("submit_loan", "credit_score"), ("submit_loan", "income"), ("submit_loan", "name")} <= proposed
    truth = {x for skill in scenario.skills.values() for m in skill.modes.values() for x in (m.inputs or ())}
    assert {element for _, element in proposed} <= truth
    plain = [from_trace(str(c.index), c.trace, c.transcript, c.state, c.intent) for c in runs(False, silent)]
    assert not [r for r in learn(thin_spec, plain) if r.kind is Kind.INPUT_NEEDED
                and r.change["skill"] == "submit_loan"]  # without experiments, S3 never makes submit_loan succeed
