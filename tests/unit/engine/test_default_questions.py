"""Questions built from element descriptions read as direct questions, whatever the analyst wrote."""

from __future__ import annotations

import pytest

from orchestrator.engine.analysis.plan_words import step_sentence
from orchestrator.engine.catalog.spec import CatalogSpec
from orchestrator.engine.planning.planner import Step
from orchestrator.engine.planning.task import StepKind
from orchestrator.engine.runtime.replies import Wording


@pytest.mark.parametrize(("description", "question"), [
    ("where you want to go", "Where do you want to go?"),
    ("when you are leaving", "When are you leaving?"),
    ("how many bags you need", "How many bags do you need?"),
    ("which seat you prefer", "Which seat do you prefer?"),
    ("what the problem is", "What is the problem?"),
    ("what went wrong", "What went wrong?"),
    ("Size of the pizza", "What is the size of the pizza?"),
    ("your email address", "What is your email address?"),
])
def test_a_description_becomes_a_direct_question(description, question):
    spec = CatalogSpec.model_validate({"catalog": "t", "elements": [{"name": "x", "description": description}]})
    assert Wording(spec).question("x") == question


ELEMENTS = [  # (name, description): noun phrases with and without a determiner, personal or not, and clauses
    ("pizza_type", ""), ("email", ""), ("payment_method", ""), ("delivery_address", ""), ("order_id", ""),
    ("full_name", "your full name"), ("loan_amount", "the amount you want to borrow"),
    ("payment", "how you pay for the order"), ("destination", "where you want to go"), ("ssn", "SSN"),
]


def _spec(name: str, description: str, *, kinds: bool = False) -> CatalogSpec:
    elements = [{"name": name, "description": description}]
    if kinds:
        elements += [{"name": "card", "parent": name}, {"name": "cash", "parent": name}]
    intents = [{"name": "go", "goal": {"known": [name]}}]
    return CatalogSpec.model_validate({"catalog": "t", "elements": elements, "intents": intents})


def _plan_ask(spec: CatalogSpec, *names: str) -> str:
    return step_sentence(spec, Step(kind=StepKind.ASK, name="ask", args=tuple(names), cost=5))


@pytest.mark.parametrize(("name", "description"), ELEMENTS)
def test_a_plan_step_asking_for_an_element_reads_naturally(name, description):
    sentence = _plan_ask(_spec(name, description), name)
    words = sentence.split(" ")
    assert sentence.startswith("Ask the user ")
    assert "you" not in words and "your" not in words  # said of the user, not to them
    if description.startswith("how") or description.startswith("where"):
        assert sentence.startswith(f"Ask the user {description.split(' ')[0]} they ") and " for how" not in sentence
    else:
        assert sentence.startswith("Ask the user for ")
        owner = words[4]
        assert owner in ("their", "the"), sentence
        personal = name in ("email", "delivery_address", "full_name", "ssn")
        assert (owner == "their") == personal, sentence  # "their email", never "their pizza type"


@pytest.mark.parametrize(("name", "description"), ELEMENTS)
def test_a_question_with_kinds_reads_naturally(name, description):
    question = Wording(_spec(name, description, kinds=True)).question(name)
    assert question.endswith("(for example card or cash)?")
    assert not question.startswith("Could you give me how") and not question.startswith("Could you give me where")
    if description.startswith(("how", "where")):
        assert question.split(" ")[1] in ("do", "are"), question  # "How do you pay ...", a direct question
    else:
        determiner = question.removeprefix("Could you give me ").split(" ")[0]
        assert determiner in ("your", "the"), question  # "give me the payment method", not "give me payment method"


def test_a_step_asking_for_several_elements_keeps_things_and_questions_apart():
    spec = CatalogSpec.model_validate({"catalog": "t", "elements": [
        {"name": "email"}, {"name": "pizza_type"}, {"name": "payment", "description": "how you pay for the order"}]})
    assert _plan_ask(spec, "email", "pizza_type", "payment") == (
        "Ask the user for their email and the pizza type and how they pay for the order")
