"""Skills as they really behave in a scenario, behind the same invoker contract as every skill.

The spec's `simulation:` block still decides what depends on the values sent (an unknown email is
not found, a score under 600 is rejected); the scenario's truths decide the rest: calls that fail,
inputs the skill really needs (read from the conversation's context, as agents that receive the
broadcast do: a call without them is rejected as invalid), outcomes that never happen, outcomes
the spec lacks, outputs it really gives. Every call is logged with what the learner needs.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ..catalog.spec import CatalogSpec, Skill
from ..runtime.skills import SkillResult, matching_rule, rule_refusal, sample_value
from .scenario import ModeTruth, Scenario


@dataclass(frozen=True)
class Call:
    """One skill call as the simulation saw it."""

    skill: str
    mode: str
    available: tuple[str, ...]  # elements the conversation knew when the call was made
    sent: tuple[str, ...]  # the declared inputs sent
    status: str  # ok | invalid | unfeasible | error
    outcome: str | None
    outputs: tuple[str, ...]
    missing: tuple[str, ...] = ()  # inputs the skill really needs that were not available


def rejection_message(detail: str, lacking: list[str]) -> str:
    """What a rejected call says, as informative as the scenario makes the skill: all, first or none."""
    if detail == "none":
        return "the skill rejected these inputs"
    named = lacking if detail == "all" else lacking[:1]
    return f"it also needs {', '.join(named)}"


@dataclass
class TruthSkills:
    spec: CatalogSpec
    scenario: Scenario
    rng: random.Random
    context: Callable[[], Mapping[str, object]] = dict  # the conversation's memory, read at call time
    profile: Mapping[str, str] = field(default_factory=dict)  # the customer's own values, as records hold them
    calls: list[Call] = field(default_factory=list)

    def call(self, skill: Skill, mode: str, inputs: dict[str, str]) -> SkillResult:
        available = tuple(sorted(self.context()))
        truth = self.scenario.truth(skill.name, mode)
        result = self._result(skill, mode, truth, inputs, available)
        missing = tuple(x for x in (truth.inputs or ()) if x not in available and x not in inputs)
        self.calls.append(Call(skill=skill.name, mode=mode, available=available, sent=tuple(inputs),
                               status=result.status, outcome=result.outcome, outputs=tuple(result.outputs),
                               missing=missing))
        return result

    def _result(self, skill: Skill, mode: str, truth: ModeTruth, inputs: dict[str, str],
                available: tuple[str, ...]) -> SkillResult:
        if self.rng.random() < self.scenario.failure_rate(skill.name, mode):
            return SkillResult("error", message="the skill did not answer in time")
        lacking = [x for x in (truth.inputs or ()) if x not in available and x not in inputs]
        if lacking:
            return SkillResult("invalid", message=rejection_message(self.scenario.rejection_detail(skill.name),
                                                                    lacking))
        rule = matching_rule(skill, inputs)
        refused = rule_refusal(rule)
        if refused is not None:
            return refused
        outcome = self._outcome(skill, mode, truth, rule.outcome if rule else None)
        sim = skill.simulation
        values = dict(sim.values) if sim else {}
        if rule is not None:
            values.update(rule.values)
        outputs = {x: values.get(f"{outcome}.{x}") or values.get(x) or self.profile.get(x)
                   or sample_value(self.spec.element(x))
                   for x in self._outputs(skill, mode, truth, outcome)}
        explanation = sim.explanation if sim and outputs else None
        return SkillResult("ok", outcome=outcome, outputs=outputs, explanation=explanation)

    def _outcome(self, skill: Skill, mode: str, truth: ModeTruth, ruled: str | None) -> str:
        declared = [o.name for o in skill.mode(mode).outcomes]
        if ruled in declared:
            real = truth.outcomes.get(ruled)
            if real is None or real.weight > 0:  # a rule's outcome stands, unless it never happens
                return ruled
        # The spec's draw (its simulation weights, else the first outcome), then the truths over it.
        sim_weights = skill.simulation.weights if skill.simulation else {}
        weights = {n: sim_weights.get(n, 0.0) for n in declared} if sim_weights else {declared[0]: 1.0}
        weights.update({n: t.weight for n, t in truth.outcomes.items()})
        names = [n for n, w in weights.items() if w > 0]
        if not names:  # the usual outcome never happens: any other that may
            names = [n for n in [*declared, *truth.outcomes] if truth.outcomes.get(n, None) is None
                     or truth.outcomes[n].weight > 0]
            weights = dict.fromkeys(names, 1.0)
        return self.rng.choices(names, weights=[weights[n] for n in names])[0]

    def _outputs(self, skill: Skill, mode: str, truth: ModeTruth, outcome: str) -> tuple[str, ...]:
        real = truth.outcomes.get(outcome)
        if real is not None and real.outputs is not None:
            return real.outputs
        return next(o.outputs for o in skill.mode(mode).outcomes if o.name == outcome)
