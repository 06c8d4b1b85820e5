"""The compiled domain as a unified-planning `Problem`, and UP's own planning path.

This is the reference path: the same task built with UP's model API and solved through
`OneshotPlanner`, which writes PDDL, runs FD's translator and search in fresh processes. It is
slow (PLANNING-NOTES.md) and serves to cross-check the fast path in tests and in `bench/`.
UP is imported lazily: importing it costs seconds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..catalog.spec import Goal
from .compile import Consent, Domain, SkillAction, check_goal, goal_operations
from .downward import OPTIMAL_SEARCH
from .task import ASK, PlanningState

if TYPE_CHECKING:
    from unified_planning.model import Problem


def build_problem(domain: Domain, goal: Goal, state: PlanningState | None = None) -> Problem:
    """The task of `domain` for `goal` from `state`, section by section as `pddl.py` writes it."""
    from unified_planning import shortcuts as up

    state = state or PlanningState()
    check_goal(domain, goal)
    # PDDL keeps types, objects and actions apart (`ask` is an action and an operation object).
    up.get_environment().error_used_name = False
    task = _UpTask(up, domain)
    task.add_builtin_actions()
    task.add_skill_actions(state)
    task.set_initial_state(state)
    task.add_goal(goal)
    return task.problem


class _UpTask:
    """A UP problem under construction: its types, objects and fluents, then actions, init and goal."""

    def __init__(self, up: Any, domain: Domain):
        self.up, self.domain = up, domain
        self.problem = up.Problem(domain.name)
        self.costs: dict[Any, Any] = {}
        self._types()
        self._objects()
        self._fluents()

    def _types(self) -> None:
        up, onto = self.up, self.domain.ontology
        self.element_t = up.UserType("element")
        self.skill_t = up.UserType("skill")
        self.operation_t = up.UserType("operation")
        self.types: dict[str, Any] = {}
        for root in onto.roots():
            for name in onto.subtree(root):
                parent = onto.parent[name]
                self.types[name] = up.UserType(name, self.types[parent] if parent else self.element_t)

    def _objects(self) -> None:
        up, domain = self.up, self.domain
        self.objects = {name: up.Object(name, self.types[name]) for name in domain.ontology.elements}
        self.skills = {s.name: up.Object(s.name, self.skill_t) for s in domain.spec.skills}
        self.operations = {op: up.Object(op, self.operation_t) for op in domain.operations}
        self.problem.add_objects([*self.objects.values(), *self.skills.values(), *self.operations.values()])

    def _fluents(self) -> None:
        up, element_t = self.up, self.element_t
        self.known = up.Fluent("known", up.BoolType(), x=element_t)
        self.askable = up.Fluent("askable", up.BoolType(), x=element_t)
        self.sensitive = up.Fluent("sensitive", up.BoolType(), x=element_t)
        self.derived = up.Fluent("derived", up.BoolType(), x=element_t)  # see catalog/sensitivity.py
        self.authorized = up.Fluent("authorized", up.BoolType(), x=self._consent_t())
        self.cannot = up.Fluent("cannot_establish", up.BoolType(), op=self.operation_t, x=element_t)
        self.done = up.Fluent("done", up.BoolType(), op=self.operation_t)
        fluents = [self.known, self.askable, self.sensitive, self.authorized, self.cannot, self.done]
        if self.domain.derived():
            fluents.insert(3, self.derived)
        for fluent in fluents:
            self.problem.add_fluent(fluent, default_initial_value=False)

    def _consent_t(self) -> Any:
        return self.skill_t if self.domain.per_skill else self.element_t

    def add_builtin_actions(self) -> None:
        up, costs = self.up, self.domain.spec.costs
        ask = up.InstantaneousAction("ask", x=self.element_t)
        x = ask.parameter("x")
        ask.add_precondition(self.askable(x))
        ask.add_precondition(up.Not(self.cannot(self.operations[ASK], x)))
        ask.add_effect(self.known(x), True)
        self.costs[ask] = up.Int(costs.ask)

        authorize = up.InstantaneousAction("authorize", x=self._consent_t())
        if not self.domain.per_skill:
            authorize.add_precondition(self._flagged(authorize.parameter("x"), world=True))
        authorize.add_effect(self.authorized(authorize.parameter("x")), True)
        self.costs[authorize] = up.Int(costs.authorize)
        self.problem.add_actions([ask, authorize])

    def _flagged(self, var: Any, world: bool) -> Any:
        """When the value bound to `var` needs consent: sensitive, or derived at a world-changing call."""
        if world and self.domain.derived():
            return self.up.Or(self.sensitive(var), self.derived(var))
        return self.sensitive(var)

    def add_skill_actions(self, state: PlanningState) -> None:
        pruned: dict[str, list[tuple[str, ...]]] = {}
        for name, args in state.pruned:
            pruned.setdefault(name, []).append(args)
        for action in self.domain.actions:
            self.problem.add_action(self._skill_action(action, pruned.get(action.name, [])))

    def _skill_action(self, action: SkillAction, pruned: list[tuple[str, ...]]) -> Any:
        up = self.up
        act = up.InstantaneousAction(action.name, **{p.element: self.types[p.element] for p in action.params})
        for param, consent in zip(action.params, action.consent, strict=True):
            var = act.parameter(param.element)
            act.add_precondition(self.known(var))
            needed = self.authorized(self.skills[action.skill] if self.domain.per_skill else var)
            if consent is Consent.ALWAYS:
                act.add_precondition(needed)
            elif consent is Consent.IF_SENSITIVE:
                act.add_precondition(up.Implies(self._flagged(var, action.world), needed))
        for x in action.outputs:
            act.add_precondition(up.Not(self.cannot(self.operations[action.operation], self.objects[x])))
            act.add_effect(self.known(self.objects[x]), True)
        for args in pruned:
            same = [up.Equals(act.parameter(p.element), self.objects[a])
                    for p, a in zip(action.params, args, strict=True)]
            act.add_precondition(up.Not(up.And(same)))
        act.add_effect(self.done(self.operations[action.operation]), True)
        self.costs[act] = up.Int(action.cost)
        return act

    def set_initial_state(self, state: PlanningState) -> None:
        objects, initial = self.objects, self.problem.set_initial_value
        for x in self.domain.askable():
            initial(self.askable(objects[x]), True)
        for x in self.domain.sensitive():
            initial(self.sensitive(objects[x]), True)
        for x in self.domain.derived():
            initial(self.derived(objects[x]), True)
        for x in state.known:
            initial(self.known(objects[x]), True)
        for x in state.authorized:
            initial(self.authorized(self.skills[x] if self.domain.per_skill else objects[x]), True)
        for op in state.done:
            initial(self.done(self.operations[op]), True)
        for op, x in state.cannot_establish:
            initial(self.cannot(self.operations[op], objects[x]), True)

    def add_goal(self, goal: Goal) -> None:
        up, onto = self.up, self.domain.ontology
        for name in goal.known:
            if len(onto.subtree(name)) == 1:
                self.problem.add_goal(self.known(self.objects[name]))
            else:  # a subtype answers a request for its parent: any element of the type will do
                var = up.Variable("x", self.types[name])
                self.problem.add_goal(up.Exists(self.known(var), var))
        for ref in goal.done:
            self.problem.add_goal(up.Or([self.done(self.operations[op]) for op in goal_operations(self.domain, ref)]))
        self.problem.add_quality_metric(up.MinimizeActionCosts(self.costs))


def oneshot_plan_cost(domain: Domain, goal: Goal, state: PlanningState | None = None) -> int | None:
    """Cost of UP's optimal plan through `OneshotPlanner` (None when it finds none)."""
    from unified_planning import shortcuts as up
    from unified_planning.engines import PlanGenerationResultStatus as Status

    problem = build_problem(domain, goal, state)
    up.get_environment().credits_stream = None
    with up.OneshotPlanner(name="fast-downward", params={"fast_downward_search_config": OPTIMAL_SEARCH}) as planner:
        result = planner.solve(problem)
    if result.status not in (Status.SOLVED_OPTIMALLY, Status.SOLVED_SATISFICING):
        return None
    metric = problem.quality_metrics[0]
    return sum(int(metric.get_action_cost(a.action).constant_value()) for a in result.plan.actions)
