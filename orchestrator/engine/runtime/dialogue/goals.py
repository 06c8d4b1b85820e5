"""Questions about goals that the executor and the policies share: is a goal reached, which values
belong to another goal, which values does a request's plan need."""

from __future__ import annotations

from ...catalog.spec import CatalogSpec, Goal
from ...planning.compile import goal_operations
from ...planning.planner import Planner
from ..session import GoalFrame, SessionState


def goal_key(state: SessionState) -> str | None:
    return state.current.intent if state.current else None


def targets(planner: Planner, goal: Goal | None) -> set[str]:
    """The elements a goal asks for, subtypes included."""
    if goal is None:
        return set()
    onto = planner.domain.ontology
    return {x for name in goal.known for x in onto.subtree(name)}


def foreign(spec: CatalogSpec, planner: Planner, state: SessionState, frame: GoalFrame | None) -> set[str]:
    """Values a skill produced for another goal that asked for something else: this goal's own
    targets, or the other goal's, are not reused ("a salary report" never publishes the sales chart)."""
    if frame is None:
        return set()
    mine = targets(planner, frame.goal)
    intents = {i.name for i in spec.intents}
    result = set()
    for name, item in state.memory.items():
        if item.source != "skill" or item.goal == frame.intent:
            continue
        theirs = targets(planner, spec.intent(item.goal).goal) if item.goal in intents else set()
        if name in mine or name in theirs:
            result.add(name)
    return result


def reached(spec: CatalogSpec, planner: Planner, state: SessionState, goal: Goal,
            frame: GoalFrame | None = None) -> bool:
    onto = planner.domain.ontology
    memory = set(state.memory) - foreign(spec, planner, state, frame)
    done_ops = state.done_by(frame) if frame is not None else set(state.done)
    known = all(any(x in memory for x in onto.subtree(name)) for name in goal.known)
    done = all(any(op in done_ops for op in goal_operations(planner.domain, ref)) for ref in goal.done)
    return known and done


def inputs_for(spec: CatalogSpec, planner: Planner, intent: str) -> set[str]:
    """The inputs of the ways of running skills that a plan for `intent` uses, from nothing known."""
    result = planner.plan(spec.intent(intent).goal)
    if not result.solved:
        return set()
    return {name for step in result.steps if step.kind == "skill"
            for name in spec.skill(step.skill).mode(step.mode).inputs}
