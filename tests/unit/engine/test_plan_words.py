"""Plans in an analyst's words: the banking loan plan read as sentences, its cost explained."""

from __future__ import annotations

from orchestrator.engine.analysis.plan_words import cost_words, step_sentence
from orchestrator.engine.planning.planner import Planner


def test_each_step_of_the_loan_plan_reads_as_a_sentence(banking):
    plan = Planner.for_spec(banking).plan(banking.intent("apply_loan").goal)
    sentences = [step_sentence(banking, step) for step in plan.steps]

    assert sentences[0] == "Ask the user for their email address"
    assert sentences[1].startswith("Looks up the customer's record in the bank's database (uses: email; gives: name,")
    assert "Ask consent to share ssn with credit_check" in sentences
    assert not any("(" in s.split(" (")[0] and "=" in s for s in sentences)  # no code notation


def test_the_cost_is_explained_by_what_it_is_made_of(banking):
    plan = Planner.for_spec(banking).plan(banking.intent("apply_loan").goal)

    words = cost_words(plan.steps)
    assert words.startswith(
        f"cost {plan.cost} = 3 skill calls × 1 + 3 questions to the user × 5 + 2 requests for consent × 1.")
    assert "asking the user costs more than a skill call" in words
    assert cost_words(()) == "cost 0: nothing to do"
