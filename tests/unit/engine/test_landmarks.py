"""Fact landmarks from Fast Downward's exhaustive method, on hand-made tasks and against the definition."""

from __future__ import annotations

import pytest

from orchestrator.engine.catalog.spec import CatalogSpec, Costs, Element, Goal, Intent, Mode, Outcome, Skill
from orchestrator.engine.catalog.synthetic import synthetic_catalog
from orchestrator.engine.planning.ground import GroundAction
from orchestrator.engine.planning.planner import Planner, Unsolvable
from orchestrator.engine.planning.reachability import reachable, relevant
from orchestrator.engine.planning.task import PlanningState


def catalog(elements: list[Element], skills: list[Skill]) -> CatalogSpec:
    return CatalogSpec(catalog="t", elements=tuple(elements), skills=tuple(skills), costs=Costs(),
                       intents=(Intent(name="i", goal=Goal(known=(elements[-1].name,))),))


def skill(name: str, *modes: tuple[tuple[str, ...], tuple[str, ...]]) -> Skill:
    return Skill(name=name, modes=tuple(Mode(inputs=i, outcomes=(Outcome(name="ok", outputs=o),)) for i, o in modes))


def known(planner: Planner, goal: str, state: PlanningState | None = None) -> set[str]:
    result = planner.landmarks(Goal(known=(goal,)), state)
    assert not isinstance(result, Unsolvable)
    return {arg for pred, arg in result if pred == "known"}


def test_a_chain_makes_every_link_a_landmark():
    spec = catalog([Element(name="a"), Element(name="b", askable=False), Element(name="c", askable=False)],
                   [skill("s1", (("a",), ("b",))), skill("s2", (("b",), ("c",)))])
    assert known(Planner.for_spec(spec), "c") == {"a", "b", "c"}


def test_disjunctive_modes_the_output_is_a_landmark_neither_input_is():
    spec = catalog([Element(name="x"), Element(name="y"), Element(name="z", askable=False)],
                   [skill("s", (("x",), ("z",)), (("y",), ("z",)))])
    assert known(Planner.for_spec(spec), "z") == {"z"}


def test_learning_makes_the_other_input_a_landmark():
    spec = catalog([Element(name="x"), Element(name="y"), Element(name="z", askable=False)],
                   [skill("s", (("x",), ("z",)), (("y",), ("z",)))])
    state = PlanningState.of(cannot_establish={("s-m1", "z")})
    assert known(Planner.for_spec(spec), "z", state) == {"y", "z"}


def test_consent_is_a_landmark_of_a_sensitive_input(banking_planner):
    result = banking_planner.landmarks(Goal(known=("credit_score",)))
    assert ("authorized", "credit_check") in result and ("known", "ssn") in result


def test_banking_loan_landmarks(banking_planner):
    assert known(banking_planner, "loan_status") == {
        "name", "income", "ssn", "credit_score", "loan_amount", "loan_status"}
    # without email or account number the document becomes the only way to a name
    state = PlanningState.of(cannot_establish={("ask", "email"), ("ask", "account_number"), ("ask", "name")})
    assert "ssn" in known(banking_planner, "loan_status", state)


def test_known_facts_are_not_landmarks_to_collect(banking_planner):
    assert "ssn" not in known(banking_planner, "loan_status", PlanningState.of(known={"ssn"}))


def landmarks_by_definition(actions: list[GroundAction], goal: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """f is a landmark iff the goal is unreachable without the actions that add f.

    The definition itself, checked fact by fact on the delete relaxation (exact here: facts are
    only added). Note that the AND/OR fixpoint would miss side-effect landmarks: a fact added
    only by the sole achiever of another landmark.
    """
    facts, _ = reachable(actions, range(len(actions)), set())
    found = set()
    for fact in facts:
        without = [i for i, a in enumerate(actions) if fact not in a.add]
        if not goal <= reachable(actions, without, set())[0]:
            found.add(fact)
    return found


@pytest.mark.parametrize("seed", range(4))
def test_fast_downward_agrees_with_the_definition(seed):
    spec = synthetic_catalog(15, seed=seed, intents=4)
    planner = Planner.for_spec(spec)
    for intent in spec.intents:
        result = planner.landmarks(intent.goal)
        if isinstance(result, Unsolvable):
            continue
        goal = {("known", x) for x in intent.goal.known}
        if any(len(planner.domain.ontology.subtree(x)) > 1 for x in intent.goal.known):
            continue  # a disjunctive goal: the check above handles plain facts only
        truth = landmarks_by_definition(planner.task.actions, goal)
        _, fired = reachable(planner.task.actions, range(len(planner.task.actions)), set())
        needed, _ = relevant(planner.task.actions, fired, goal, set())  # what the SAS+ task keeps
        assert set(result) <= truth, intent.name  # sound
        assert truth & needed <= set(result), intent.name  # complete on the facts that matter
