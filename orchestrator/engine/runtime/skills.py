"""Calling skills: the result every kind of skill gives, and the built-in simulated skills.

A failing, slow or rejecting skill is an outcome for the execution manager to handle, never an
exception that ends a conversation.
"""

from __future__ import annotations

import fnmatch
import random
import re
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Literal, Protocol

from ..catalog.formats import parse_format
from ..catalog.spec import CatalogSpec, Element, Mode, SimRule, Skill

Status = Literal["ok", "invalid", "unfeasible", "error"]


@dataclass(frozen=True)
class SkillResult:
    """What a call gave: an outcome with outputs, or why it gave none.

    - ok: the skill answered with one of the mode's outcomes;
    - invalid: the skill rejected the invocation (wrong inputs): prune that grounded action;
    - unfeasible: a value the user gave cannot work (`element`): ask for another;
    - error: timeout, connection error, bad answer: no outcome, counted as a failure.
    """

    status: Status
    outcome: str | None = None
    outputs: dict[str, str] = field(default_factory=dict)
    explanation: dict[str, float] | None = None
    element: str | None = None
    message: str = ""


class SkillInvoker(Protocol):
    def call(self, skill: Skill, mode: str, inputs: dict[str, str]) -> SkillResult: ...


COMPARISON = re.compile(r"^(<=|>=|<|>)\s*(-?\d+(?:\.\d+)?)$")


def _matches(expected: str, value: str | None) -> bool:
    if value is None:
        return False
    comparison = COMPARISON.match(expected)
    if comparison:
        try:
            number = float(value.replace(",", ""))
        except ValueError:
            return False
        op, bound = comparison.group(1), float(comparison.group(2))
        return {"<": number < bound, "<=": number <= bound, ">": number > bound, ">=": number >= bound}[op]
    return fnmatch.fnmatchcase(value.lower(), expected.lower())


def _rule_applies(rule: SimRule, inputs: dict[str, str]) -> bool:
    return all(_matches(expected, inputs.get(name)) for name, expected in rule.when.items())


def rule_refusal(rule: SimRule | None) -> SkillResult | None:
    """What a matched rule that refuses the call answers (invalid, unfeasible, timeout); None otherwise."""
    if rule is None:
        return None
    if rule.result == "invalid":
        return SkillResult("invalid", message=rule.message or "the skill rejected these inputs")
    if rule.result == "unfeasible":
        return SkillResult("unfeasible", element=rule.element, message=rule.message)
    if rule.result == "timeout":
        return SkillResult("error", message="the skill did not answer in time")
    return None


def matching_rule(skill: Skill, inputs: dict[str, str]) -> SimRule | None:
    """The first rule of the skill's `simulation` that `inputs` match, if any."""
    sim = skill.simulation
    return next((r for r in sim.rules if _rule_applies(r, inputs)), None) if sim else None


def sample_value(element: Element) -> str:
    """A plausible value of an element's format, for simulated outputs nobody declared."""
    parsed = parse_format(element.format)
    fmt = parsed.kind or "text"
    if fmt == "email":
        return f"{element.name}@example.com"
    if fmt in ("money", "number"):  # within the format's bounds
        value = min(max(1000.0 if fmt == "money" else 42.0, parsed.lower or 0.0), parsed.upper or float("inf"))
        return f"{value:.2f}" if fmt == "money" else f"{value:g}"
    if fmt == "date":
        return (date.today() + timedelta(days=30)).isoformat() if parsed.when == "future" else "2026-01-01"
    options = parsed.options
    if options:  # the first option, never '' ("enum:|gold|silver" is gold or silver)
        return options[0]
    return f"{element.name.replace('_', ' ')} #1"


class SimulatedSkills:
    """The `sim:` skills of a catalog, behaving as their `simulation` declares; seedable."""

    def __init__(self, spec: CatalogSpec, seed: int = 0):
        self.spec = spec
        self.rng = random.Random(seed)
        self.calls: list[tuple[str, str, dict[str, str]]] = []  # what was sent, for tests and audits

    def call(self, skill: Skill, mode: str, inputs: dict[str, str]) -> SkillResult:
        self.calls.append((skill.name, mode, dict(inputs)))
        spec_mode = skill.mode(mode)
        sim = skill.simulation
        rule = matching_rule(skill, inputs)
        refused = rule_refusal(rule)
        if refused is not None:
            return refused
        outcome = self._outcome(spec_mode, rule, sim.weights if sim else {})
        values = dict(sim.values) if sim else {}
        if rule is not None:
            values.update(rule.values)
        outputs = {x: self._value(values, outcome, x) for x in next(
            o.outputs for o in spec_mode.outcomes if o.name == outcome)}
        explanation = sim.explanation if sim and outputs else None
        return SkillResult("ok", outcome=outcome, outputs=outputs, explanation=explanation)

    def _outcome(self, mode: Mode, rule: SimRule | None, weights: dict[str, float]) -> str:
        names = [o.name for o in mode.outcomes]
        if rule is not None and rule.outcome in names:
            return rule.outcome
        weighted = [(n, weights[n]) for n in names if n in weights]
        if weighted:
            return self.rng.choices([n for n, _ in weighted], weights=[w for _, w in weighted])[0]
        return names[0]  # by convention the first outcome is the expected one

    def _value(self, values: dict[str, str], outcome: str, element: str) -> str:
        return values.get(f"{outcome}.{element}") or values.get(element) or sample_value(self.spec.element(element))


class Invokers:
    """Routes each call by endpoint: `sim:` to the simulator, a skill bound to an HTTP API
    operation (`skill.http`) to `api`, anything else to `remote` (Concerto's own HTTP contract)."""

    def __init__(self, simulated: SkillInvoker, remote: SkillInvoker | None = None, api: SkillInvoker | None = None):
        self.simulated, self.remote, self.api = simulated, remote, api

    def call(self, skill: Skill, mode: str, inputs: dict[str, str]) -> SkillResult:
        if skill.endpoint.startswith("sim:"):
            return self.simulated.call(skill, mode, inputs)
        if skill.http is not None:
            if self.api is None:
                return SkillResult("error", message=f"no way to call {skill.endpoint} here")
            return self.api.call(skill, mode, inputs)
        if self.remote is None:
            return SkillResult("error", message=f"no way to call {skill.endpoint} here")
        return self.remote.call(skill, mode, inputs)
