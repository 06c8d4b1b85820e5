"""The compiled domain as a unified-planning `Problem`, and UP's own planning path.

This is the reference path: the same task built with UP's model API and solved through
`OneshotPlanner`, which writes PDDL, runs FD's translator and search in fresh processes. It is
slow (PLANNING-NOTES.md) and serves to cross-check the fast path in tests and in `bench/`.
UP is imported lazily: importing it costs seconds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..catalog.spec import Goal
from .compile import Consent, Domain, check_goal, goal_operations
from .downward import OPTIMAL_SEARCH
from .task import ASK, PlanningState

if TYPE_CHECKING:
    from unified_planning.model import Problem


def build_problem(domain: Domain, goal: Goal, state: PlanningState | None = None) -> Problem:
    from unified_planning import shortcuts as up

    state = state or PlanningState()
    check_goal(domain, goal)
    # PDDL keeps types, objects and actions apart (`ask` is an action and an operation object).
    up.get_environment().error_used_name = False
    onto = domain.ontology
    element_t = up.UserType("element")
    skill_t = up.UserType("skill")
    operation_t = up.UserType("operation")
    types: dict[str, Any] = {}
    for root in onto.roots():
        for name in onto.subtree(root):
            parent = onto.parent[name]
            types[name] = up.UserType(name, types[parent] if parent else element_t)

    problem = up.Problem(domain.name)
    objects = {name: up.Object(name, types[name]) for name in onto.elements}
    skills = {s.name: up.Object(s.name, skill_t) for s in domain.spec.skills}
    operations = {op: up.Object(op, operation_t) for op in domain.operations}
    problem.add_objects([*objects.values(), *skills.values(), *operations.values()])

    known = up.Fluent("known", up.BoolType(), x=element_t)
    askable = up.Fluent("askable", up.BoolType(), x=element_t)
    sensitive = up.Fluent("sensitive", up.BoolType(), x=element_t)
    authorized = up.Fluent("authorized", up.BoolType(), x=skill_t if domain.per_skill else element_t)
    cannot = up.Fluent("cannot_establish", up.BoolType(), op=operation_t, x=element_t)
    done = up.Fluent("done", up.BoolType(), op=operation_t)
    for fluent in (known, askable, sensitive, authorized, cannot, done):
        problem.add_fluent(fluent, default_initial_value=False)

    costs: dict[Any, Any] = {}
    ask = up.InstantaneousAction("ask", x=element_t)
    ask.add_precondition(askable(ask.parameter("x")))
    ask.add_precondition(up.Not(cannot(operations[ASK], ask.parameter("x"))))
    ask.add_effect(known(ask.parameter("x")), True)
    costs[ask] = up.Int(domain.spec.costs.ask)

    authorize = up.InstantaneousAction("authorize", x=skill_t if domain.per_skill else element_t)
    if not domain.per_skill:
        authorize.add_precondition(sensitive(authorize.parameter("x")))
    authorize.add_effect(authorized(authorize.parameter("x")), True)
    costs[authorize] = up.Int(domain.spec.costs.authorize)
    problem.add_actions([ask, authorize])

    pruned: dict[str, list[tuple[str, ...]]] = {}
    for name, args in state.pruned:
        pruned.setdefault(name, []).append(args)
    for action in domain.actions:
        act = up.InstantaneousAction(action.name, **{p.element: types[p.element] for p in action.params})
        for param, consent in zip(action.params, action.consent, strict=True):
            var = act.parameter(param.element)
            act.add_precondition(known(var))
            needed = authorized(skills[action.skill] if domain.per_skill else var)
            if consent is Consent.ALWAYS:
                act.add_precondition(needed)
            elif consent is Consent.IF_SENSITIVE:
                act.add_precondition(up.Implies(sensitive(var), needed))
        for x in action.outputs:
            act.add_precondition(up.Not(cannot(operations[action.operation], objects[x])))
            act.add_effect(known(objects[x]), True)
        for args in pruned.get(action.name, []):
            same = [up.Equals(act.parameter(p.element), objects[a]) for p, a in zip(action.params, args, strict=True)]
            act.add_precondition(up.Not(up.And(same)))
        act.add_effect(done(operations[action.operation]), True)
        costs[act] = up.Int(action.cost)
        problem.add_action(act)

    for x in domain.askable():
        problem.set_initial_value(askable(objects[x]), True)
    for x in domain.sensitive():
        problem.set_initial_value(sensitive(objects[x]), True)
    for x in state.known:
        problem.set_initial_value(known(objects[x]), True)
    for x in state.authorized:
        problem.set_initial_value(authorized(skills[x] if domain.per_skill else objects[x]), True)
    for op in state.done:
        problem.set_initial_value(done(operations[op]), True)
    for op, x in state.cannot_establish:
        problem.set_initial_value(cannot(operations[op], objects[x]), True)

    for name in goal.known:
        if len(onto.subtree(name)) == 1:
            problem.add_goal(known(objects[name]))
        else:
            var = up.Variable("x", types[name])
            problem.add_goal(up.Exists(known(var), var))
    for ref in goal.done:
        problem.add_goal(up.Or([done(operations[op]) for op in goal_operations(domain, ref)]))
    problem.add_quality_metric(up.MinimizeActionCosts(costs))
    return problem


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
