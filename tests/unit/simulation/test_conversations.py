"""Simulated conversations: the same seed replays the same conversation; truths and users shape them."""

import random

from orchestrator.engine.planning.planner import Planner
from orchestrator.engine.runtime.masking import MASK
from orchestrator.engine.simulation.driver import simulate_conversation
from orchestrator.engine.simulation.scenario import parse_scenario
from orchestrator.engine.simulation.truth import TruthSkills
from orchestrator.engine.simulation.user import SimulatedUser
from orchestrator.engine.simulation.values import generate, other_format


def without_timings(conversation) -> dict:
    metrics = {k: v for k, v in conversation.metrics.items() if k not in ("planner_ms", "engine_ms")}
    return {"transcript": conversation.transcript, "trace": conversation.trace, "metrics": metrics,
            "state": conversation.state}


def run(spec, planner, scenario, index, seed=7, orchestrator="planner"):
    return simulate_conversation(spec, planner, scenario, orchestrator=orchestrator, seed=seed, index=index)


def test_a_seed_replays_the_same_conversations(banking_spec, banking_planner, realistic):
    fresh = Planner.for_spec(banking_spec)  # another process would have its own planner and cache
    for index in range(12):
        first = run(banking_spec, banking_planner, realistic, index)
        again = run(banking_spec, fresh, realistic, index)
        assert without_timings(first) == without_timings(again)


def test_other_seeds_and_indices_give_other_conversations(banking_spec, banking_planner, realistic):
    texts = {tuple(m["text"] for m in run(banking_spec, banking_planner, realistic, i, seed=s).transcript)
             for s in (1, 2) for i in range(10)}
    assert len(texts) > 10


def test_a_conversation_keeps_a_masked_transcript_and_a_trace_for_learning(banking_spec, banking_planner, realistic):
    conversations = [run(banking_spec, banking_planner, realistic, i) for i in range(40)]
    executions = [e["data"] for c in conversations for e in c.trace if e["kind"] == "execution"]
    assert executions
    for data in executions:
        assert {"skill", "mode", "available", "sent", "inputs", "outputs", "outcome", "status", "success",
                "turn"} <= set(data)
        assert set(data["sent"]) == set(data["inputs"])
    assert any(not d["success"] for d in executions) and any(d["success"] for d in executions)
    # The SSN someone gave never shows in the transcript, though it went to the credit bureau.
    sent_ssn = [c for c in conversations if any(d["skill"] == "credit_check" for d in
                                                (e["data"] for e in c.trace if e["kind"] == "execution"))]
    assert sent_ssn
    for conversation in sent_ssn:
        said = " ".join(m["text"] for m in conversation.transcript)
        assert "123-45-6789" not in said and "987-65-4321" not in said
    assert any(MASK in m["text"] for c in sent_ssn for m in c.transcript)
    outcomes = {c.outcome for c in conversations}
    assert "success" in outcomes and outcomes <= {"success", "gave_up", "stopped", "stalled", "failed"}


def test_a_slot_no_user_can_fill_is_never_filled(banking_spec, banking_planner, realistic):
    traces = [run(banking_spec, banking_planner, realistic, index).trace for index in range(40)]
    asked = [event["data"] for trace in traces for event in trace
             if event["kind"] == "user" and event["data"]["act"] == "slot"
             and event["data"]["element"] == "account_number"]
    assert asked
    assert all(data["filled"] is False and data["reason"] == "unfillable" for data in asked)


def test_the_s3_orchestrator_runs_the_thin_catalog(thin_spec):
    from orchestrator.engine.simulation.scenario import load_scenario

    from .conftest import DEMO

    scenario = load_scenario((DEMO / "banking-thin-scenario.yaml").read_text(), thin_spec)
    planner = Planner.for_spec(thin_spec)
    conversations = [run(thin_spec, planner, scenario, i, orchestrator="s3") for i in range(15)]
    assert all(c.metrics["turns"] >= 1 for c in conversations)
    assert any(e["kind"] == "execution" for c in conversations for e in c.trace)


# --- truths -----------------------------------------------------------------------------------------


def truths(banking_spec, skills):
    return parse_scenario({"scenario": "t", "skills": skills}, banking_spec)


def test_a_skill_that_always_fails_gives_errors(banking_spec):
    scenario = truths(banking_spec, {"credit_check": {"failure_rate": 1}})
    skills = TruthSkills(banking_spec, scenario, random.Random(1))
    result = skills.call(banking_spec.skill("credit_check"), "m1", {"ssn": "123-45-6789"})
    assert result.status == "error"


def test_an_input_the_spec_lacks_is_needed_from_the_context(banking_spec):
    scenario = truths(banking_spec, {"credit_check": {"modes": {"m1": {"inputs": ["ssn", "name"]}}}})
    memory: dict[str, str] = {"ssn": "x"}
    skills = TruthSkills(banking_spec, scenario, random.Random(1), context=lambda: memory)
    skill = banking_spec.skill("credit_check")
    assert skills.call(skill, "m1", {"ssn": "123-45-6789"}).status == "invalid"
    assert skills.calls[-1].missing == ("name",)
    memory["name"] = "Ada"
    assert skills.call(skill, "m1", {"ssn": "123-45-6789"}).outcome == "scored"
    assert skills.calls[-1].available == ("name", "ssn")


def test_outcomes_that_never_happen_and_outcomes_the_spec_lacks(banking_spec):
    scenario = truths(banking_spec, {"credit_check": {"modes": {"m1": {"outcomes": {
        "unavailable": {"weight": 0}, "scored": {"weight": 1}, "frozen": {"outputs": [], "weight": 1}}}}}})
    skills = TruthSkills(banking_spec, scenario, random.Random(3))
    skill = banking_spec.skill("credit_check")
    seen = {skills.call(skill, "m1", {"ssn": "000-00-0000"}).outcome for _ in range(60)}
    assert seen == {"scored", "frozen"}  # the spec's rule says "unavailable" for 000-00-0000: it never happens


def test_an_output_the_spec_does_not_list_is_given(banking_spec, realistic):
    skills = TruthSkills(banking_spec, realistic, random.Random(0))
    results = [skills.call(banking_spec.skill("lookup_customer"), "m1", {"email": "ada@example.com"})
               for _ in range(20)]
    found = [r for r in results if r.status == "ok"]
    assert found and all("ssn" in r.outputs for r in found)


# --- users -------------------------------------------------------------------------------------------


def test_users_draw_goals_by_weight_and_values_by_format(banking_spec, realistic):
    users = [SimulatedUser(banking_spec, realistic, random.Random(i)) for i in range(300)]
    goals = [u.intent for u in users]
    assert goals.count("apply_loan") > goals.count("check_card_status")
    assert all(u.profile["email"] in realistic.users.values["email"] for u in users)
    assert all(u.withheld.get("account_number") == "unfillable" for u in users)
    element = banking_spec.element("card_application_id")
    assert all(generate(element, random.Random(i)).startswith("CC-") for i in range(20))


def test_answers_in_other_formats(banking_spec):
    rng = random.Random(0)
    assert other_format(banking_spec.element("ssn"), "123-45-6789", rng) == "123 45 6789"
    assert other_format(banking_spec.element("loan_amount"), "40000.00", rng) in ("$40,000", "40,000 dollars", "40k")


def test_a_user_answers_what_it_is_asked_and_refuses_what_it_cannot_give(banking_spec, realistic):
    user = SimulatedUser(banking_spec, realistic, random.Random(5))
    user.scenario = realistic.model_copy(update={"users": realistic.users.model_copy(update={
        "behaviour": realistic.users.behaviour.model_copy(update={"stop": 0, "side_question": 0, "digression": 0}),
        "phrasing": realistic.users.phrasing.model_copy(update={"other_format": 0, "typo": 0})})})
    said = user.respond([{"kind": "question", "text": "What is your account number?", "element": "account_number"}],
                        satisfied=False)
    assert said.act == "cannot"
    user.withheld.pop("email", None)
    said = user.respond([{"kind": "question", "text": "What is your email?", "element": "email"}], satisfied=False)
    assert said.act == "answer" and user.profile["email"] in said.text
    assert user.respond([{"kind": "result", "text": "Done."}], satisfied=True) is None
