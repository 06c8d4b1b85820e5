"""Planning for stored catalog versions: the Django side of the engine's planner.

A version's domain is compiled and grounded once and kept in memory, keyed by the content of
its spec, so a draft that changes gets a fresh planner and an unchanged one reuses its own.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass

from catalog_app.models import CatalogVersion
from catalog_app.selectors import version_spec
from orchestrator.engine.compile import intent_goal
from orchestrator.engine.errors import ConcertoError
from orchestrator.engine.pddl import domain_text, problem_text
from orchestrator.engine.planner import Planner, PlanResult
from orchestrator.engine.spec import CatalogSpec, Goal
from orchestrator.engine.spec_io import catalog_to_data
from orchestrator.engine.task import PlanningState

CACHE_SIZE = 32
_planners: OrderedDict[str, Planner] = OrderedDict()
_lock = threading.Lock()


def spec_planner(spec: CatalogSpec) -> Planner:
    key = hashlib.sha256(json.dumps(catalog_to_data(spec), sort_keys=True).encode()).hexdigest()
    with _lock:
        planner = _planners.get(key)
        if planner is not None:
            _planners.move_to_end(key)
            return planner
    planner = Planner.for_spec(spec)  # outside the lock: grounding a big catalog takes a moment
    with _lock:
        _planners[key] = planner
        while len(_planners) > CACHE_SIZE:
            _planners.popitem(last=False)
    return planner


def version_planner(*, version: CatalogVersion) -> Planner:
    return spec_planner(version_spec(version=version))


def parse_cannot(items: Iterable[str]) -> frozenset[tuple[str, str]]:
    """`ask:email` or `lookup_customer-m1:name` -> (operation, element) pairs."""
    pairs = set()
    for item in items:
        operation, sep, element = item.strip().partition(":")
        if not sep or not operation or not element:
            raise ConcertoError(f"'{item}' is not OPERATION:ELEMENT (e.g. ask:email or lookup_customer-m1:name)")
        pairs.add((operation, element))
    return frozenset(pairs)


def _check_state(planner: Planner, state: PlanningState) -> None:
    elements = planner.domain.ontology.elements
    operations = set(planner.domain.operations)
    for name in state.known:
        if name not in elements:
            raise ConcertoError(f"unknown element '{name}' among the known ones")
    for operation, name in state.cannot_establish:
        if operation not in operations:
            raise ConcertoError(f"unknown operation '{operation}' (one of {', '.join(planner.domain.operations)})")
        if name not in elements:
            raise ConcertoError(f"unknown element '{name}' in {operation}:{name}")


@dataclass(frozen=True)
class GoalPlan:
    goal: Goal
    result: PlanResult


def goal_plan(*, version: CatalogVersion, goal: Goal, state: PlanningState | None = None) -> GoalPlan:
    return _plan(version_spec(version=version), goal, state)


def intent_plan(*, version: CatalogVersion, intent: str, state: PlanningState | None = None) -> GoalPlan:
    spec = version_spec(version=version)  # read once: a draft may change between two reads
    return _plan(spec, intent_goal(spec, intent), state)


def _plan(spec: CatalogSpec, goal: Goal, state: PlanningState | None) -> GoalPlan:
    planner = spec_planner(spec)
    state = state or PlanningState()
    _check_state(planner, state)
    return GoalPlan(goal=goal, result=planner.plan(goal, state))


def version_plans(*, version: CatalogVersion) -> dict[str, PlanResult]:
    """The plan (or the reason there is none) of every intent, from an empty state."""
    spec = version_spec(version=version)
    planner = spec_planner(spec)
    return {intent.name: planner.plan(intent.goal) for intent in spec.intents}


def version_domain_pddl(*, version: CatalogVersion) -> str:
    if version.compiled_domain:
        return version.compiled_domain
    return domain_text(version_planner(version=version).domain)


def goal_problem_pddl(*, version: CatalogVersion, goal: Goal, state: PlanningState | None = None,
                      name: str = "") -> str:
    return problem_text(version_planner(version=version).domain, goal, state, name=name)
