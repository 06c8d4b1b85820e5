"""Small catalogs for the validator tests, written as specs so each test reads its own data."""

from __future__ import annotations

from orchestrator.engine.catalog.spec import CatalogSpec, Costs, Element, Goal, Intent, Mode, Outcome, Skill

# The banking loan plan with the credit check before the customer's consent to it.
CHECK_BEFORE_CONSENT = [
    "ask(ssn)",
    "credit_score = credit_check(ssn)",
    "authorize(credit_check)",
    "ask(email)",
    "name, address, account_number, income = lookup_customer(email)",
    "ask(loan_amount)",
    "authorize(submit_loan)",
    "loan_status, loan_id = submit_loan(name, income, credit_score, loan_amount)",
]


def _skill(name: str, inputs: tuple[str, ...], outputs: tuple[str, ...]) -> Skill:
    return Skill(name=name, modes=(Mode(inputs=inputs, outcomes=(Outcome(name="ok", outputs=outputs),)),))


def chain_spec() -> CatalogSpec:
    """NL2Flow's validator example in our terms: A -> B|C -> D, with the goal of running D.

    agent_a produces an `a_1`, a kind of `a`; agent_b and agent_c both turn an `a` into `y`
    (same signature, same cost: interchangeable); agent_d needs `y`. The user could be asked for
    `y` directly, but a question costs more than the whole chain of skills.
    """
    return CatalogSpec(
        catalog="chain",
        costs=Costs(skill=1, ask=5, authorize=1),
        elements=(
            Element(name="a", askable=False),
            Element(name="a_1", parent="a", askable=False),
            Element(name="y"),
        ),
        skills=(
            _skill("agent_a", (), ("a_1",)),
            _skill("agent_b", ("a",), ("y",)),
            _skill("agent_c", ("a",), ("y",)),
            _skill("agent_d", ("y",), ()),
        ),
        intents=(Intent(name="run_d", goal=Goal(done=("agent_d",))),),
    )
