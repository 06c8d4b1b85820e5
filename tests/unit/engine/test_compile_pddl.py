"""The PDDL text analysts read: each compilation rule, asserted on the text itself."""

import warnings

import pytest

from orchestrator.engine.catalog.spec import Goal
from orchestrator.engine.errors import UnknownName
from orchestrator.engine.planning.compile import compile_catalog
from orchestrator.engine.planning.pddl import domain_text, problem_text
from orchestrator.engine.planning.task import PlanningState


@pytest.fixture(scope="module")
def domain(banking):
    return domain_text(compile_catalog(banking))


def action_block(text: str, name: str) -> str:
    start = text.index(f"(:action {name}\n")
    return text[start:text.index("\n  )", start)]


def test_type_tree_and_one_object_per_element(domain):
    assert "    passport drivers_license - document\n" in domain
    assert "    passport - passport\n" in domain
    assert "    ask lookup_customer-m1 lookup_customer-m2 ocr_document-m1 credit_check-m1" in domain


def test_one_action_per_skill_mode_and_outcome(domain):
    assert domain.count("(:action lookup_customer-") == 4
    found = action_block(domain, "lookup_customer-m2-found")
    assert ":parameters (?account_number - account_number)" in found
    assert "(known ?account_number)" in found
    assert "(known email)" in found and "(done lookup_customer-m2)" in found
    assert "(increase (total-cost) 1)" in found


def test_inputs_are_typed_so_subtypes_fit(domain):
    assert ":parameters (?document - document)" in action_block(domain, "ocr_document-m1-read")


def test_cannot_establish_guards_every_output(domain):
    block = action_block(domain, "ocr_document-m1-read")
    for x in ("name", "address", "ssn"):
        assert f"(not (cannot_establish ocr_document-m1 {x}))" in block
    assert "cannot_establish" not in action_block(domain, "ocr_document-m1-unreadable")


def test_sensitive_inputs_need_the_skill_authorized_per_skill(domain):
    assert "(authorized credit_check)" in action_block(domain, "credit_check-m1-scored")
    loan = action_block(domain, "submit_loan-m1-approved")
    assert loan.count("(authorized submit_loan)") == 1  # income and credit_score: one consent
    assert "authorized" not in action_block(domain, "lookup_customer-m1-found")
    assert "(:action authorize\n    :parameters (?s - skill)" in domain


def test_sensitive_inputs_need_the_element_authorized_per_element(banking):
    text = domain_text(compile_catalog(banking.model_copy(update={"privacy": "per_element"})))
    block = action_block(text, "submit_loan-m1-approved")
    assert "(authorized ?income)" in block and "(authorized ?credit_score)" in block
    assert "(authorized ?name)" not in block
    assert ":parameters (?x - element)\n    :precondition (sensitive ?x)" in text


def test_partly_sensitive_type_needs_consent_only_for_sensitive_values(banking):
    elements = [e.model_copy(update={"sensitive": True}) if e.name == "passport" else e for e in banking.elements]
    text = domain_text(compile_catalog(banking.model_copy(update={"elements": tuple(elements)})))
    assert "(imply (sensitive ?document) (authorized ocr_document))" in action_block(text, "ocr_document-m1-read")


def test_ask_is_dearer_and_only_for_askable_elements(banking, domain):
    assert "(askable ?x)" in action_block(domain, "ask")
    assert "(increase (total-cost) 5)" in action_block(domain, "ask")
    problem = problem_text(compile_catalog(banking), Goal(known=("loan_status",)))
    assert "(askable email)" in problem
    assert "(askable loan_status)" not in problem and "(askable credit_score)" not in problem


def test_problem_carries_the_learned_state(banking):
    state = PlanningState.of(known={"email"}, authorized={"credit_check"},
                             cannot_establish={("ask", "ssn"), ("credit_check-m1", "credit_score")})
    problem = problem_text(compile_catalog(banking), Goal(known=("loan_status",)), state, name="turn-3")
    assert "(define (problem turn-3)" in problem
    for fact in ("(known email)", "(authorized credit_check)", "(cannot_establish ask ssn)",
                 "(cannot_establish credit_check-m1 credit_score)"):
        assert fact in problem
    assert "(:goal (and (known loan_status)))" in problem


def test_goals_on_a_supertype_and_on_any_mode(banking):
    domain = compile_catalog(banking)
    problem = problem_text(domain, Goal(known=("document",), done=("lookup_customer",)))
    assert "(exists (?x - document) (known ?x))" in problem
    assert "(or (done lookup_customer-m1) (done lookup_customer-m2))" in problem


def test_pruned_groundings_are_excluded_by_equality(banking):
    state = PlanningState.of(pruned={("ocr_document-m1-read", ("drivers_license",))})
    text = domain_text(compile_catalog(banking), state)
    assert "(not (= ?document drivers_license))" in action_block(text, "ocr_document-m1-read")
    assert ":equality" in text


def test_unknown_goal_names_are_refused(banking):
    with pytest.raises(UnknownName, match="unknown element 'loan'"):
        problem_text(compile_catalog(banking), Goal(known=("loan",)))


def test_the_text_is_deterministic(banking):
    assert domain_text(compile_catalog(banking)) == domain_text(compile_catalog(banking))


def test_unified_planning_reads_the_text(banking, tmp_path):
    from unified_planning.io import PDDLReader
    from unified_planning.shortcuts import get_environment

    # PDDL keeps types and objects apart (type `email`, object `email`); UP needs telling.
    get_environment().error_used_name = False
    compiled = compile_catalog(banking)
    state = PlanningState.of(pruned={("ocr_document-m1-read", ("drivers_license",))},
                             cannot_establish={("ask", "email")})
    (tmp_path / "d.pddl").write_text(domain_text(compiled, state))
    (tmp_path / "p.pddl").write_text(problem_text(compiled, Goal(known=("loan_status",)), state))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        problem = PDDLReader().parse_problem(str(tmp_path / "d.pddl"), str(tmp_path / "p.pddl"))
    assert len(problem.actions) == 2 + sum(len(m.outcomes) for s in banking.skills for m in s.modes)


INJECTED = "\n  (:action evil\n    :parameters ()\n    :effect (known loan_status)\n  )\n"


@pytest.mark.parametrize("newline", ["\n", "\r", "\r\n", "\u2028", "\x0b"])
def test_a_line_break_in_a_title_or_description_stays_inside_its_comment(banking, newline, tmp_path):
    from unified_planning.io import PDDLReader
    from unified_planning.shortcuts import get_environment

    injected = INJECTED.replace("\n", newline)
    skills = (banking.skills[0].model_copy(update={"description": "Looks up" + injected}), *banking.skills[1:])
    spec = banking.model_copy(update={"title": "Bank" + injected, "skills": skills})
    text = domain_text(compile_catalog(spec))
    assert all(line.lstrip().startswith(";;") for line in text.splitlines() if "evil" in line)
    assert len(text.splitlines()) == len(domain_text(compile_catalog(banking)).splitlines())

    get_environment().error_used_name = False
    (tmp_path / "d.pddl").write_text(text)
    (tmp_path / "p.pddl").write_text(problem_text(compile_catalog(spec), Goal(known=("loan_status",))))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        problem = PDDLReader().parse_problem(str(tmp_path / "d.pddl"), str(tmp_path / "p.pddl"))
    assert "evil" not in {action.name for action in problem.actions}
