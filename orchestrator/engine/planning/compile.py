"""Compilation of a catalog spec to a lifted planning domain (section 3.2 of the composition paper).

The central fluent is `(known ?x)`. Each (skill, mode, outcome) becomes one action (all-outcome
determinization) whose typed parameters are the mode's inputs, so an input of type `document`
also accepts a `passport`. Built in: `ask` (slot filling, dearer than skills) and `authorize`
(consent before a sensitive value goes to a skill, per the catalog's privacy model). A value
computed from a sensitive one needs consent before a world-changing skill receives it
(`catalog/sensitivity.py`); each action's `consent` already says so.

The `Domain` built here is read by three consumers: the PDDL writer (what analysts read), the
grounder (the fast planning path) and the unified-planning bridge (the reference path).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from ..catalog.ontology import Ontology
from ..catalog.sensitivity import Sensitivity, sensitivity
from ..catalog.spec import CatalogSpec, Goal, Skill, done_ref
from ..errors import ConcertoError, UnknownName
from .task import ASK


class Consent(Enum):
    """Whether a parameter needs the user's consent before its value reaches the skill."""

    NEVER = "never"  # no element of the parameter's type is sensitive
    ALWAYS = "always"  # every element of the parameter's type is sensitive
    IF_SENSITIVE = "if_sensitive"  # only some are: decided per grounding


@dataclass(frozen=True)
class Param:
    element: str  # the declared input element, also the parameter's type

    @property
    def var(self) -> str:
        return f"?{self.element}"


@dataclass(frozen=True)
class SkillAction:
    """One lifted action: a skill mode that ends in one particular outcome."""

    name: str  # lookup_customer-m1-found
    skill: str
    mode: str
    outcome: str
    operation: str  # lookup_customer-m1: the object `cannot_establish` and `done` refer to
    params: tuple[Param, ...]
    consent: tuple[Consent, ...]  # one per param
    outputs: tuple[str, ...]
    cost: int
    world: bool = False  # the mode changes the world: values derived from sensitive ones need consent


@dataclass(frozen=True)
class Domain:
    spec: CatalogSpec
    ontology: Ontology
    actions: tuple[SkillAction, ...]
    operations: tuple[str, ...]  # ask, then every skill mode
    privacy: Sensitivity

    def needs_consent(self, action: SkillAction, value: str) -> bool:
        """Does `value`, bound to one of `action`'s parameters, need consent first?"""
        return self.privacy.needs_consent(value, action.world)

    @property
    def name(self) -> str:
        return self.spec.catalog

    @property
    def per_skill(self) -> bool:
        return self.spec.privacy == "per_skill"

    def askable(self) -> list[str]:
        return [e.name for e in self.spec.elements if e.askable]

    def sensitive(self) -> list[str]:
        return [e.name for e in self.spec.elements if e.sensitive]

    def derived(self) -> list[str]:
        """Elements computed from sensitive ones: consent before a world-changing skill gets them."""
        return list(self.privacy.derived)

    def consent_skills(self) -> list[str]:
        """Skills that take at least one possibly sensitive input."""
        seen = dict.fromkeys(
            a.skill for a in self.actions if any(c is not Consent.NEVER for c in a.consent)
        )
        return list(seen)

    def operations_of(self, skill: str) -> list[str]:
        return list(dict.fromkeys(a.operation for a in self.actions if a.skill == skill))


def operation_name(skill: str, mode: str) -> str:
    return f"{skill}-{mode}"


def action_name(operation: str, outcome: str) -> str:
    """The lifted action of one outcome of an operation (what pruning and plans refer to)."""
    return f"{operation}-{outcome}"


def _consent(ontology: Ontology, privacy: Sensitivity, element: str, world: bool) -> Consent:
    flags = [privacy.needs_consent(x, world) for x in ontology.subtree(element)]
    if all(flags):
        return Consent.ALWAYS
    return Consent.IF_SENSITIVE if any(flags) else Consent.NEVER


def _skill_actions(spec: CatalogSpec, ontology: Ontology, privacy: Sensitivity, skill: Skill) -> list[SkillAction]:
    actions = []
    for mode, mode_name in zip(skill.modes, skill.mode_names(), strict=True):
        operation = operation_name(skill.name, mode_name)
        params = tuple(Param(x) for x in mode.inputs)
        world = skill.changes_world(mode_name)
        consent = tuple(_consent(ontology, privacy, x, world) for x in mode.inputs)
        for outcome in mode.outcomes:
            actions.append(
                SkillAction(
                    name=action_name(operation, outcome.name),
                    skill=skill.name,
                    mode=mode_name,
                    outcome=outcome.name,
                    operation=operation,
                    params=params,
                    consent=consent,
                    outputs=outcome.outputs,
                    cost=spec.skill_cost(skill),
                    world=world,
                )
            )
    return actions


def compile_catalog(spec: CatalogSpec) -> Domain:
    """The lifted domain of a validated spec (see `spec_io.parse_catalog`)."""
    ontology = Ontology(spec.elements)
    privacy = sensitivity(spec, ontology)
    actions = tuple(a for skill in spec.skills for a in _skill_actions(spec, ontology, privacy, skill))
    operations = (ASK, *dict.fromkeys(a.operation for a in actions))
    return Domain(spec=spec, ontology=ontology, actions=actions, operations=operations, privacy=privacy)


def goal_operations(domain: Domain, ref: str) -> list[str]:
    """The operations a `done` goal entry accepts: any mode of `skill`, or just `skill.mode`."""
    skill_name, mode = done_ref(ref)
    operations = domain.operations_of(skill_name)
    if not operations:
        raise UnknownName("skill", skill_name, [s.name for s in domain.spec.skills])
    if mode:
        wanted = operation_name(skill_name, mode)
        if wanted not in operations:
            raise UnknownName("mode", ref, [o.replace("-", ".", 1) for o in operations])
        return [wanted]
    return operations


def check_goal(domain: Domain, goal: Goal) -> None:
    """Raise UnknownName for any element or skill the goal names that the catalog lacks."""
    domain.ontology.check_elements(goal.known)
    for ref in goal.done:
        goal_operations(domain, ref)
    if not goal.known and not goal.done:
        raise ConcertoError("the goal names nothing: give elements to know and/or skills to have run")


def intent_goal(spec: CatalogSpec, intent: str) -> Goal:
    try:
        return spec.intent(intent).goal
    except KeyError:
        raise UnknownName("intent", intent, [i.name for i in spec.intents]) from None
