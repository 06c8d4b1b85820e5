"""Grounding of a compiled domain: every action with its parameters bound to objects.

Our tasks need nothing of a general grounder: one object per element, typed parameters ranging
over a subtree of the type tree, and static facts (`askable`, `sensitive`, `cannot_establish`,
pruned groundings) that only decide whether a grounded action exists at all. The result is
built once per catalog version and reused by every planning call.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from .compile import Consent, Domain, SkillAction
from .task import ASK, Fact, StepKind


@dataclass(frozen=True)
class GroundAction:
    kind: StepKind
    name: str  # the lifted action's name
    args: tuple[str, ...]
    pre: tuple[Fact, ...]
    add: tuple[Fact, ...]
    cost: int
    # cannot_establish (operation, element) pairs that forbid this action
    guards: tuple[tuple[str, str], ...] = ()
    skill: str = ""
    mode: str = ""
    outcome: str = ""
    outputs: tuple[str, ...] = ()


@dataclass
class GroundTask:
    domain: Domain
    actions: list[GroundAction]
    by_guard: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    by_grounding: dict[tuple[str, tuple[str, ...]], int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for index, action in enumerate(self.actions):
            for guard in action.guards:
                self.by_guard.setdefault(guard, []).append(index)
            self.by_grounding[(action.name, action.args)] = index


def _ground_skill_action(domain: Domain, action: SkillAction) -> list[GroundAction]:
    onto = domain.ontology
    domains = [onto.subtree(p.element) for p in action.params]
    guards = tuple((action.operation, x) for x in action.outputs)
    add = tuple(("known", x) for x in action.outputs) + (("done", action.operation),)
    grounded = []
    for args in itertools.product(*domains):
        pre: list[Fact] = [("known", x) for x in args]
        for value, consent in zip(args, action.consent, strict=True):
            if consent is Consent.NEVER or not domain.needs_consent(action, value):
                continue
            fact = ("authorized", action.skill if domain.per_skill else value)
            if fact not in pre:
                pre.append(fact)
        grounded.append(
            GroundAction(kind=StepKind.SKILL, name=action.name, args=args, pre=tuple(pre), add=add,
                         cost=action.cost, guards=guards, skill=action.skill, mode=action.mode,
                         outcome=action.outcome, outputs=action.outputs)
        )
    return grounded


def ground(domain: Domain) -> GroundTask:
    costs = domain.spec.costs
    actions = [
        GroundAction(kind=StepKind.ASK, name=ASK, args=(x,), pre=(), add=(("known", x),),
                     cost=costs.ask, guards=((ASK, x),), outputs=(x,))
        for x in domain.askable()
    ]
    consent_targets = domain.consent_skills() if domain.per_skill else [*domain.sensitive(), *domain.derived()]
    actions += [
        GroundAction(kind=StepKind.AUTHORIZE, name="authorize", args=(target,), pre=(),
                     add=(("authorized", target),), cost=costs.authorize)
        for target in consent_targets
    ]
    for action in domain.actions:
        actions += _ground_skill_action(domain, action)
    return GroundTask(domain=domain, actions=actions)
