"""Parsing written plans against a catalog: modes by their inputs, outcomes by their outputs."""

import pytest

from orchestrator.engine.analysis.plan_text import MAX_LINES, parse_plan
from orchestrator.engine.errors import ConcertoError
from orchestrator.engine.planning.compile import compile_catalog

from .flows import chain_spec


@pytest.fixture(scope="module")
def domain(banking):
    return compile_catalog(banking)


def only_step(domain, line):
    parsed = parse_plan(domain, line)
    assert not parsed.warnings, parsed.warnings[0].warning
    (step,) = parsed.steps
    return step


def only_warning(domain, line) -> str:
    parsed = parse_plan(domain, line)
    assert not parsed.steps
    (warning,) = parsed.warnings
    return warning.warning


def test_the_planners_own_lines_read_back_as_its_steps(banking, banking_planner, domain):
    for intent in banking.intents:
        plan = banking_planner.plan(intent.goal)
        assert parse_plan(domain, plan.lines).steps == list(plan.steps), intent.name


def test_a_call_takes_the_mode_its_arguments_fit(domain):
    step = only_step(domain, "name, address, email, income = lookup_customer(account_number)")
    assert (step.mode, step.outcome) == ("m2", "found")
    assert step.name == "lookup_customer-m2-found"


def test_a_subtype_fits_an_input(domain):
    step = only_step(domain, "name, address, ssn = ocr_document(passport)")
    assert step.args == ("passport",)
    assert step.line == "name, address, ssn = ocr_document(passport)"


def test_argument_order_does_not_matter_and_the_line_is_respelt(domain):
    step = only_step(domain, "loan_status,loan_id=submit_loan( loan_amount, name, income, credit_score )")
    assert step.args == ("name", "income", "credit_score", "loan_amount")
    assert step.line == "loan_status, loan_id = submit_loan(name, income, credit_score, loan_amount)"


@pytest.mark.parametrize(
    ("line", "outcome"),
    [
        ("loan_status, loan_id = submit_loan(name, income, credit_score, loan_amount)", "approved"),
        ("loan_status = submit_loan(name, income, credit_score, loan_amount)", "rejected"),  # exactly these
        ("loan_id = submit_loan(name, income, credit_score, loan_amount)", "approved"),  # the outcome that has it
        ("credit_check(ssn)", "unavailable"),  # nothing written: the outcome that gives nothing
    ],
)
def test_the_outcome_is_the_one_whose_outputs_are_written(domain, line, outcome):
    assert only_step(domain, line).outcome == outcome


def test_ask_and_authorize(domain):
    ask = only_step(domain, "ask(email)")
    assert (ask.kind, ask.args, ask.cost, ask.line) == ("ask", ("email",), 5, "ask(email)")
    consent = only_step(domain, "authorize(credit_check)")
    assert (consent.kind, consent.args, consent.cost) == ("authorize", ("credit_check",), 1)
    # Under the per-element model consent names an element.
    per_element = compile_catalog(domain.spec.model_copy(update={"privacy": "per_element"}))
    assert only_step(per_element, "authorize(ssn)").args == ("ssn",)


def test_numbering_bullets_comments_and_blank_lines(domain):
    text = "# the loan, by email\n\n1. ask(email)\n2) ask(ssn)  # sensitive\n* ask(loan_amount)\n- ask(income)\n"
    parsed = parse_plan(domain, text)
    assert [line.number for line in parsed.lines] == [3, 4, 5, 6]
    assert [step.line for step in parsed.steps] == ["ask(email)", "ask(ssn)", "ask(loan_amount)", "ask(income)"]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("name = lookup_custmer(email)", "unknown skill 'lookup_custmer' (did you mean 'lookup_customer'?)"),
        ("map(a_1, a)", "unknown skill 'map'"),
        ("adsfaerafea", "not a step"),
        ("credit_score = credit_check(ssn, email)", "credit_check takes 1 input (ssn), not 2"),
        ("lookup_customer(name)", "no mode of lookup_customer takes (name): it takes (email) or (account_number)"),
        ("name = lookup_customer(emial)", "unknown element 'emial' (did you mean 'email'?)"),
        ("loan_id, card_status = submit_loan(name, income, credit_score, loan_amount)",
         "submit_loan(name, income, credit_score, loan_amount) gives (loan_status) or (loan_status, loan_id), "
         "not (loan_id, card_status)"),
        ("ask(email, ssn)", "ask takes one element, not 2"),
        ("ssn = ask(email)", "ask(email) gives only email, not ssn"),
        ("authorize(email)", "'email' is not one"),
        ("x y = ask(email)", "'x y' is not a valid output name"),
        ("ask(email,)", "an empty argument"),
        ("ask(" + "e" * 3000 + ")", "longer than"),
    ],
)
def test_lines_that_do_not_parse_are_warnings_that_say_why(domain, line, message):
    assert message in only_warning(domain, line)


def test_a_bad_line_does_not_stop_the_others(domain):
    parsed = parse_plan(domain, ["ask(email)", "rubbish", "ask(ssn)"])
    assert [step.line for step in parsed.steps] == ["ask(email)", "ask(ssn)"]
    assert [(w.number, w.text) for w in parsed.warnings] == [(2, "rubbish")]


@pytest.mark.parametrize(
    "text",
    ["", "(((", ")(", "= =", "x = (", "= f()", "ask()", "f(,)", "a,,b = f(x)", "ask(ask)", "authorize()",
     "\x00\x01\x02", "émail = lookup_customer(email)", "💥(💥)", "a = b = c(d)", "f(g(h))", "ask(email));",
     "\t\t", "#", "1.", "-", "lookup_customer(email) extra"],
)
def test_any_text_parses_without_raising(domain, text):
    parsed = parse_plan(domain, text)
    for line in parsed.lines:
        assert (line.step is None) != (line.warning == "")


def test_an_over_long_plan_is_refused_with_a_message(domain):
    with pytest.raises(ConcertoError, match="the limit is 1,000"):
        parse_plan(domain, "ask(email)\n" * (MAX_LINES + 1))


def test_skills_with_no_inputs_and_no_outputs():
    domain = compile_catalog(chain_spec())
    parsed = parse_plan(domain, ["a_1 = agent_a()", "y = agent_b(a_1)", "agent_d(y)"])
    assert [s.line for s in parsed.steps] == ["a_1 = agent_a()", "y = agent_b(a_1)", "agent_d(y)"]
