"""Planning for stored catalog versions: the Django side of the engine's planner.

A version's domain is compiled and grounded once and kept in memory, keyed by the version's
content (`catalog_app.selectors.version_key`), so a draft that changes gets a fresh planner.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable

from catalog_app.models import CatalogVersion
from catalog_app.selectors import version_key, version_spec
from orchestrator.engine.catalog.spec import CatalogSpec, Goal
from orchestrator.engine.catalog.spec_io import catalog_to_data
from orchestrator.engine.errors import ConcertoError
from orchestrator.engine.lru import Lru
from orchestrator.engine.planning.compile import intent_goal
from orchestrator.engine.planning.pddl import domain_text, problem_text
from orchestrator.engine.planning.planner import Planner, PlanResult
from orchestrator.engine.planning.task import PlanningState

_by_content: Lru[Planner] = Lru(32)
_by_version: Lru[Planner] = Lru(32)


def spec_planner(spec: CatalogSpec) -> Planner:
    """The planner of a spec, found by its content (a spec from a file, an edit being checked)."""
    key = hashlib.sha256(json.dumps(catalog_to_data(spec), sort_keys=True).encode()).hexdigest()
    return _by_content.get_or_build(key, lambda: Planner.for_spec(spec))


def version_planner(*, version: CatalogVersion) -> Planner:
    """The planner of a stored version, found by `version_key` without hashing the whole spec."""
    key = version_key(version=version)
    return _by_version.get_or_build(key, lambda: spec_planner(version_spec(version=version)))


def parse_cannot(items: Iterable[str]) -> frozenset[tuple[str, str]]:
    """`ask:email` or `lookup_customer-m1:name` -> (operation, element) pairs (see `cannot_operations`)."""
    pairs = set()
    for item in items:
        operation, sep, element = item.strip().partition(":")
        if not sep or not operation or not element:
            raise ConcertoError(f"'{item}' is not OPERATION:ELEMENT (e.g. ask:email or lookup_customer-m1:name)")
        pairs.add((operation, element))
    return frozenset(pairs)


def cannot_operations(*, version: CatalogVersion, pairs: Iterable[tuple[str, str]]) -> frozenset[tuple[str, str]]:
    """`pairs` with a bare skill name (`credit_check:credit_score`) read as its one mode's operation.

    A skill with several modes is ambiguous: the error names the operations to choose from.
    """
    domain = version_planner(version=version).domain
    resolved = set()
    for operation, element in pairs:
        if operation not in domain.operations and domain.operations_of(operation):
            modes = domain.operations_of(operation)
            if len(modes) > 1:
                choices = ", ".join(f"{m}:{element}" for m in modes)
                raise ConcertoError(f"skill '{operation}' has {len(modes)} modes: name one ({choices})")
            operation = modes[0]
        resolved.add((operation, element))
    return frozenset(resolved)


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


def goal_plan(*, version: CatalogVersion, goal: Goal, state: PlanningState | None = None) -> PlanResult:
    planner = version_planner(version=version)
    state = state or PlanningState()
    _check_state(planner, state)
    return planner.plan(goal, state)


def intent_plan(*, version: CatalogVersion, intent: str, state: PlanningState | None = None) -> PlanResult:
    # The goal comes from the planner's own spec: one content, even if the draft changes meanwhile.
    goal = intent_goal(version_planner(version=version).domain.spec, intent)
    return goal_plan(version=version, goal=goal, state=state)


def version_plans(*, version: CatalogVersion) -> dict[str, PlanResult]:
    """The plan (or the reason there is none) of every intent, from an empty state."""
    planner = version_planner(version=version)
    return {intent.name: planner.plan(intent.goal) for intent in planner.domain.spec.intents}


def version_domain_pddl(*, version: CatalogVersion) -> str:
    if version.compiled_domain:
        return version.compiled_domain
    return domain_text(version_planner(version=version).domain)


def goal_problem_pddl(*, version: CatalogVersion, goal: Goal, state: PlanningState | None = None,
                      name: str = "") -> str:
    return problem_text(version_planner(version=version).domain, goal, state, name=name)
