"""Plans from the fast path: each compilation rule seen in the plans it yields."""

import warnings

import pytest

from orchestrator.engine.catalog.spec import Goal
from orchestrator.engine.planning.compile import compile_catalog
from orchestrator.engine.planning.downward import run_driver
from orchestrator.engine.planning.pddl import domain_text, problem_text
from orchestrator.engine.planning.planner import Planner
from orchestrator.engine.planning.task import PlanningState

LOAN = Goal(known=("loan_status",))
CARD = Goal(done=("submit_credit_card.apply",))


def test_loan_plan_is_optimal_and_readable(banking_planner):
    plan = banking_planner.plan(LOAN)
    assert plan.cost == 20
    assert plan.lines[-1] == "loan_status, loan_id = submit_loan(name, income, credit_score, loan_amount)"
    assert "credit_score = credit_check(ssn)" in plan.lines
    assert "ask(loan_amount)" in plan.lines


def test_subtype_fits_an_input(banking_planner):
    state = PlanningState.of(cannot_establish={("ask", "document"), ("ask", "ssn")})
    plan = banking_planner.plan(LOAN, state)
    assert "name, address, ssn = ocr_document(passport)" in plan.lines
    assert plan.lines.index("ask(passport)") < plan.lines.index("name, address, ssn = ocr_document(passport)")


def test_a_known_subtype_answers_a_goal_on_its_type(banking_planner):
    assert banking_planner.plan(Goal(known=("document",)), PlanningState.of(known={"passport"})).steps == ()


@pytest.mark.parametrize("privacy", ["per_skill", "per_element"])
def test_authorization_comes_before_every_sensitive_input(banking, privacy):
    planner = Planner.for_spec(banking.model_copy(update={"privacy": privacy}))
    plan = planner.plan(LOAN)
    sensitive = {e.name for e in banking.elements if e.sensitive}
    granted: set[str] = set()
    for step in plan.steps:
        if step.kind == "authorize":
            granted.add(step.args[0])
        for value in step.args if step.kind == "skill" else ():
            if value in sensitive:
                assert (step.skill if privacy == "per_skill" else value) in granted, step.line
    expected = {"credit_check", "submit_loan"} if privacy == "per_skill" else {"ssn", "income", "credit_score"}
    assert granted == expected


def test_consent_given_earlier_is_not_asked_again(banking_planner):
    plan = banking_planner.plan(LOAN, PlanningState.of(authorized={"credit_check", "submit_loan"}))
    assert not any(step.kind == "authorize" for step in plan.steps)
    assert plan.cost == 18


def test_cannot_establish_steers_to_another_mode(banking_planner):
    # The user does not know their email: the card goes through the account-number lookup.
    state = PlanningState.of(cannot_establish={("ask", "email")})
    plan = banking_planner.plan(CARD, state)
    assert "name, address, email, income = lookup_customer(account_number)" in plan.lines
    assert "ask(email)" not in plan.lines


def test_a_skill_mode_that_failed_too_often_is_not_planned_again(banking_planner):
    state = PlanningState.of(known={"email", "account_number"},
                             cannot_establish={("lookup_customer-m1", "name")})
    plan = banking_planner.plan(CARD, state)
    assert any(line.endswith("lookup_customer(account_number)") for line in plan.lines)


def test_pruned_grounding_is_not_planned_again(banking_planner):
    state = PlanningState.of(known={"email", "account_number"},
                             pruned={("lookup_customer-m1-found", ("email",))})
    plan = banking_planner.plan(CARD, state)
    assert "name, address, email, income = lookup_customer(account_number)" in plan.lines


def test_skills_are_preferred_to_asking_the_user(banking, banking_planner):
    state = PlanningState.of(known={"email"})
    assert "name, address, account_number, income = lookup_customer(email)" in banking_planner.plan(CARD, state).lines
    free_asks = Planner.for_spec(banking.model_copy(update={"costs": banking.costs.model_copy(update={"ask": 0})}))
    assert not any(step.kind == "skill" and step.skill == "lookup_customer"
                   for step in free_asks.plan(CARD, state).steps)


def test_unaskable_goal_is_not_asked(banking_planner):
    assert "ask(loan_status)" not in banking_planner.plan(LOAN).lines


def test_unreachable_goal_names_what_nothing_can_establish(banking_planner):
    state = PlanningState.of(cannot_establish={("credit_check-m1", "credit_score")})
    result = banking_planner.plan(LOAN, state)
    assert not result.solved
    assert result.missing == ("loan_status",)
    assert [b.element for b in result.blockers] == ["credit_score"]
    assert result.message == (
        "no plan reaches the goal: nothing can establish credit_score (credit_check can no longer be "
        "used for it (failed too often or rejected), and the user cannot be asked for it), "
        "so neither can loan_status"
    )


def test_element_no_skill_outputs(banking):
    elements = (*banking.elements, banking.elements[0].model_copy(update={"name": "pet_name", "parent": None,
                                                                          "askable": False}))
    planner = Planner.for_spec(banking.model_copy(update={"elements": elements}))
    result = planner.plan(Goal(known=("pet_name",)))
    assert result.message == ("no plan reaches the goal: nothing can establish pet_name "
                              "(no skill outputs it, and the user cannot be asked for it)")


def test_a_reached_goal_needs_no_plan(banking_planner):
    assert banking_planner.plan(LOAN, PlanningState.of(known={"loan_status"})).steps == ()


def test_done_goal_on_a_mode(banking_planner):
    plan = banking_planner.plan(Goal(done=("submit_credit_card.status",)))
    assert plan.lines == ["ask(card_application_id)", "card_status = submit_credit_card(card_application_id)"]


def test_fast_path_costs_equal_the_reference_paths(banking):
    """The SAS+ we plan with and the PDDL we show describe the same task (UP and FD's driver agree)."""
    from orchestrator.engine.planning.up_bridge import oneshot_plan_cost

    compiled = compile_catalog(banking)
    planner = Planner(compiled)
    state = PlanningState.of(known={"account_number"}, cannot_establish={("ask", "ssn")},
                             pruned={("ocr_document-m1-read", ("document",))})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for intent in banking.intents:
            fast = planner.plan(intent.goal, state).cost
            assert fast == oneshot_plan_cost(compiled, intent.goal, state), intent.name
            assert fast == run_driver(domain_text(compiled, state), problem_text(compiled, intent.goal, state))


def test_questions_and_consent_come_just_before_their_use(banking_planner):
    lines = banking_planner.plan(LOAN).lines
    assert lines[lines.index("credit_score = credit_check(ssn)") - 1] == "authorize(credit_check)"
    assert lines.index("authorize(submit_loan)") > lines.index("credit_score = credit_check(ssn)")


def test_an_empty_goal_is_refused(banking_planner):
    from orchestrator.engine.errors import ConcertoError

    with pytest.raises(ConcertoError, match="the goal names nothing"):
        banking_planner.plan(Goal())
