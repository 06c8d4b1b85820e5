"""Optimal plans for a goal from a session's state, with Fast Downward as the planner of record.

A `Planner` grounds its catalog once. Each call then only: drops the actions the state forbids,
checks reachability (and explains an unreachable goal without calling the planner), keeps the
actions relevant to the goal, writes SAS+ and runs FD's search binary. No translator, no PDDL
round trip per call.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..catalog.spec import CatalogSpec, Goal
from ..errors import ConcertoError
from ..lru import Lru
from .compile import Domain, check_goal, compile_catalog, goal_operations
from .downward import OPTIMAL_SEARCH, run_landmarks, run_search
from .ground import GroundAction, GroundTask, ground
from .reachability import Blocker, blockers, reachable, relevant
from .sas import SasOperator, write_sas
from .task import Fact, PlanningState, StepKind


@dataclass(frozen=True)
class Step:
    kind: StepKind
    name: str  # lifted action name: lookup_customer-m1-found, ask, authorize
    args: tuple[str, ...]
    cost: int
    skill: str = ""
    mode: str = ""
    outcome: str = ""
    outputs: tuple[str, ...] = ()

    @property
    def line(self) -> str:
        """The readable form: `name, income = lookup_customer(email)`, `ask(email)`."""
        call = f"{self.skill or self.name}({', '.join(self.args)})"
        if self.kind == StepKind.SKILL and self.outputs:
            return f"{', '.join(self.outputs)} = {call}"
        return call

    @classmethod
    def of(cls, action: GroundAction) -> Step:
        return cls(kind=action.kind, name=action.name, args=action.args, cost=action.cost,
                   skill=action.skill, mode=action.mode, outcome=action.outcome,
                   outputs=action.outputs)


@dataclass(frozen=True)
class Plan:
    steps: tuple[Step, ...]

    solved = True

    @property
    def cost(self) -> int:
        return sum(step.cost for step in self.steps)

    @property
    def lines(self) -> list[str]:
        return [step.line for step in self.steps]


@dataclass(frozen=True)
class Unsolvable:
    """No plan reaches the goal; `blockers` are the elements nothing can establish."""

    missing: tuple[str, ...]  # goal parts that cannot be reached
    blockers: tuple[Blocker, ...]
    chain: tuple[str, ...]  # every element on the way that cannot be established

    solved = False

    @property
    def message(self) -> str:
        if not self.blockers:
            return f"no plan reaches the goal: {', '.join(self.missing)} cannot be reached"
        roots = "; ".join(f"nothing can establish {b.element} ({b.reason})" for b in self.blockers)
        root_names = {b.element for b in self.blockers}
        knock_on = [x for x in self.chain if x not in root_names]
        tail = f", so neither can {', '.join(knock_on)}" if knock_on else ""
        return f"no plan reaches the goal: {roots}{tail}"


PlanResult = Plan | Unsolvable


@dataclass(frozen=True)
class SasTask:
    """A planning call ready for Fast Downward, with what is needed to read its answer."""

    sas: str
    chosen: list[int]  # operator i of the SAS+ task is grounded action chosen[i]
    open_goals: list[tuple[Fact, ...]]
    init: set[Fact]
    enabled: set[int]
    facts: set[Fact]  # reachable facts


def regression_order(steps: list[GroundAction], goals: list[Fact]) -> list[GroundAction]:
    """Reorder a plan the way a person would gather things: backwards from the goal.

    Starting from the step that reaches the goal, each step's inputs are gathered in the order
    the skill declares them, each just before it is needed, and consent comes right before the
    call that needs it. Any order the planner returns is valid; this one reads naturally ("email,
    lookup, consent, credit check, amount, submit"). Facts are only ever added, and every step
    stays after the first producer of each of its preconditions, so validity and cost are kept.
    """
    first_producer: dict[Fact, int] = {}
    for index, step in enumerate(steps):
        for fact in step.add:
            first_producer.setdefault(fact, index)
    order: list[int] = []
    seen: set[int] = set()

    def visit(index: int) -> None:
        if index in seen:
            return
        seen.add(index)
        for fact in steps[index].pre:
            producer = first_producer.get(fact)
            if producer is not None and producer < index:
                visit(producer)
        order.append(index)

    for fact in goals:
        if fact in first_producer:
            visit(first_producer[fact])
    for index in range(len(steps)):
        visit(index)
    return [steps[i] for i in order]


def just_in_time(steps: list[GroundAction]) -> list[GroundAction]:
    """`regression_order` towards what the plan's last step achieves (for plans without a goal at hand)."""
    return regression_order(steps, list(steps[-1].add) if steps else [])


def _as_tuple(found: list[int] | None) -> tuple[int, ...] | None:
    return None if found is None else tuple(found)


class Planner:
    """Plans for one compiled catalog version; safe to share between threads."""

    def __init__(self, domain: Domain, search: str = OPTIMAL_SEARCH, cache_size: int = 4096):
        self.domain = domain
        self.search = search
        self.task: GroundTask = ground(domain)
        # Exact: the domain and search are fixed for this instance, so (goal, state) decides the plan.
        self.cache: Lru[PlanResult] = Lru(cache_size)
        self._start_facts: set[Fact] | None = None  # what any plan can reach from an empty conversation
        # Fast Downward's answers by SAS+ text, which decides them: states that differ only in facts
        # no relevant action reads (an element known that this goal does not need) share one search.
        self.searches: Lru[tuple[int, ...] | None] = Lru(cache_size)

    @classmethod
    def for_spec(cls, spec: CatalogSpec, search: str = OPTIMAL_SEARCH, cache_size: int = 4096) -> Planner:
        return cls(compile_catalog(spec), search, cache_size)

    def plan(self, goal: Goal, state: PlanningState | None = None) -> PlanResult:
        """The optimal plan for `goal` from `state`; a (goal, state) seen before is answered from memory."""
        state = state or PlanningState()
        return self.cache.get_or_build((goal, state), lambda: self._search(goal, state))

    def _search(self, goal: Goal, state: PlanningState) -> PlanResult:
        prepared = self._prepare(goal, state)
        if not isinstance(prepared, SasTask):
            return prepared
        found = self.searches.get_or_build(prepared.sas, lambda: _as_tuple(run_search(prepared.sas, self.search)))
        if found is None:  # cannot happen when reachability says yes; kept as a safeguard
            return self._unsolvable(goal, prepared.open_goals, prepared.enabled, prepared.facts, state)
        actions = self.task.actions
        steps = [actions[prepared.chosen[i]] for i in found if i < len(prepared.chosen)]  # the rest: goal helpers
        ordered = regression_order(steps, [f for options in prepared.open_goals for f in options])
        return Plan(steps=tuple(Step.of(a) for a in ordered))

    def can_plan(self, goal: Goal) -> bool:
        """Whether some plan reaches `goal` from an empty conversation, without a search: facts are only
        ever added, so a goal every part of which is reachable has a plan. A goal naming something the
        catalog lacks has none."""
        try:
            check_goal(self.domain, goal)
        except ConcertoError:
            return False
        if self._start_facts is None:
            self._start_facts = reachable(self.task.actions, range(len(self.task.actions)), set())[0]
        return all(any(f in self._start_facts for f in options) for options in self._goal_disjunctions(goal))

    def landmarks(self, goal: Goal, state: PlanningState | None = None) -> list[Fact] | Unsolvable:
        """Facts every plan for `goal` from `state` must make true (FD's exhaustive landmarks).

        Facts already true in `state` are left out; so are the goal helpers of the SAS+ task.
        """
        prepared = self._prepare(goal, state or PlanningState())
        if isinstance(prepared, Unsolvable):
            return prepared
        if isinstance(prepared, Plan):
            return []
        return [f for f in run_landmarks(prepared.sas) if f[0] != "goal" and f not in prepared.init]

    def _prepare(self, goal: Goal, state: PlanningState) -> SasTask | Plan | Unsolvable:
        """The SAS+ task of a call, or its answer when no search is needed."""
        check_goal(self.domain, goal)
        actions = self.task.actions
        init = state.facts()
        enabled = self._enabled(state)
        facts, fired = reachable(actions, enabled, init)

        open_goals = [d for d in self._goal_disjunctions(goal) if not any(f in init for f in d)]
        if not open_goals:
            return Plan(steps=())
        unreached = [d for d in open_goals if not any(f in facts for f in d)]
        if unreached:
            return self._unsolvable(goal, unreached, set(enabled), facts, state)

        # A disjunctive goal (a supertype, or any mode of a skill) becomes a zero-cost action
        # into a fresh goal fact; single facts are goals as they are.
        goal_facts: list[Fact] = []
        extra: list[SasOperator] = []
        for i, options in enumerate(open_goals):
            reachable_options = [f for f in options if f in facts]
            if len(reachable_options) == 1:
                goal_facts.append(reachable_options[0])
            else:
                target = ("goal", str(i))
                goal_facts.append(target)
                extra += [SasOperator(pre=(f,), add=(target,), cost=0) for f in reachable_options]
        subgoals = {f for op in extra for f in op.pre} | {f for f in goal_facts if f[0] != "goal"}
        needed, chosen = relevant(actions, fired, subgoals, init)
        variables = sorted(needed | init | set(goal_facts))
        operators = [
            SasOperator(pre=actions[i].pre, add=tuple(f for f in actions[i].add if f in needed), cost=actions[i].cost)
            for i in chosen
        ]
        sas = write_sas(variables, init, goal_facts, operators + extra)
        return SasTask(sas=sas, chosen=chosen, open_goals=open_goals, init=init, enabled=set(enabled), facts=facts)

    def _enabled(self, state: PlanningState) -> list[int]:
        blocked: set[int] = set()
        for guard in state.cannot_establish:
            blocked.update(self.task.by_guard.get(guard, ()))
        for grounding in state.pruned:
            if grounding in self.task.by_grounding:
                blocked.add(self.task.by_grounding[grounding])
        return [i for i in range(len(self.task.actions)) if i not in blocked]

    def _goal_disjunctions(self, goal: Goal) -> list[tuple[Fact, ...]]:
        onto = self.domain.ontology
        parts = [tuple(("known", x) for x in onto.subtree(name)) for name in goal.known]
        parts += [tuple(("done", op) for op in goal_operations(self.domain, ref)) for ref in goal.done]
        return parts

    def _unsolvable(
        self,
        goal: Goal,
        unreached: list[tuple[Fact, ...]],
        enabled: set[int],
        facts: set[Fact],
        state: PlanningState,
    ) -> Unsolvable:
        missing = [f for options in unreached for f in options]
        labels = [
            name for name in goal.known if any(("known", x) in missing for x in self.domain.ontology.subtree(name))
        ] + [ref for ref in goal.done if any(("done", op) in missing for op in goal_operations(self.domain, ref))]
        roots, chain = blockers(
            self.task.actions, enabled, facts, missing,
            askable=set(self.domain.askable()), cannot_establish=set(state.cannot_establish),
        )
        return Unsolvable(missing=tuple(labels), blockers=tuple(roots), chain=tuple(chain))
