from orchestrator.engine.catalog.diff import diff_catalogs
from orchestrator.engine.catalog.spec import Costs, Goal


def lines(old, new):
    return [str(change) for change in diff_catalogs(old, new)]


def test_no_change_no_lines(banking):
    assert diff_catalogs(banking, banking) == []


def test_a_retry_limit_reads_as_a_sentence(banking):
    skills = list(banking.skills)
    skills[2] = skills[2].model_copy(update={"max_retries": 2})
    changed = banking.model_copy(update={"skills": tuple(skills)})

    assert lines(changed, banking) == ["skill credit_check: retry limit 2 -> 1"]


def test_element_flags_parent_and_membership(banking):
    elements = list(banking.elements)
    elements[7] = elements[7].model_copy(update={"sensitive": False})  # ssn
    elements[1] = elements[1].model_copy(update={"parent": None})  # passport
    elements[3] = elements[3].model_copy(update={"askable": False})  # name
    new = banking.model_copy(update={"elements": tuple(elements[:-1])})  # card_status removed

    assert lines(banking, new) == [
        "element passport: moved to the top of the type tree (was under document)",
        "element name: the user can no longer be asked for it",
        "element ssn: no longer sensitive",
        "element card_status removed",
    ]


def test_modes_outcomes_and_outputs(banking):
    skill = banking.skill("lookup_customer")
    first = skill.modes[0]
    found = first.outcomes[0].model_copy(update={"outputs": ("name", "address", "phone")})
    mode = first.model_copy(update={"inputs": ("email", "name"), "outcomes": (found,)})
    new_skill = skill.model_copy(update={"modes": (mode,), "cost": 3})
    new = banking.model_copy(update={"skills": (new_skill, *banking.skills[1:])})

    assert lines(banking, new) == [
        "skill lookup_customer: cost default -> 3",
        "skill lookup_customer mode m1: input added name",
        "skill lookup_customer mode m1 outcome found: output added phone",
        "skill lookup_customer mode m1 outcome found: output removed account_number",
        "skill lookup_customer mode m1 outcome found: output removed income",
        "skill lookup_customer mode m1: outcome not_found removed",
        "skill lookup_customer: mode m2 removed",
    ]


def test_intents_and_catalog_settings(banking):
    loan = banking.intent("apply_loan")
    new_loan = loan.model_copy(update={
        "examples": (*loan.examples[1:], "lend me money"),
        "goal": Goal(known=("loan_status", "loan_id")),
        "extensions": (),
    })
    new = banking.model_copy(update={
        "privacy": "per_element", "costs": Costs(skill=1, ask=3, authorize=1), "title": "Bank",
        "intents": (new_loan, *banking.intents[1:]),
    })

    assert lines(banking, new) == [
        "catalog: title Banking assistant -> Bank",
        "catalog: consent asked once per skill -> once per element",
        "costs: asking the user 5 -> 3",
        'intent apply_loan: example added "lend me money"',
        "intent apply_loan: example removed \"I'd like to apply for a loan\"",
        "intent apply_loan: goal to know added loan_id",
        "intent apply_loan: follow-up removed apply_credit_card",
    ]


def test_added_things_say_what_they_are(banking):
    old = banking.model_copy(update={"skills": banking.skills[:-1], "intents": banking.intents[:1],
                                     "elements": banking.elements[:-1]})
    changes = diff_catalogs(old, banking)

    texts = [c.text for c in changes if c.kind == "added"]
    assert "element card_status added (the user cannot be asked for it)" in texts
    assert "skill submit_credit_card added (2 modes)" in texts
    assert "intent check_card_status added (goal: card_status, submit_credit_card.status)" in texts
