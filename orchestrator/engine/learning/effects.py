"""What a refinement does to plans: the plan of every intent before and after, from an empty conversation.

An admin reads 'apply_loan: plan 2 steps shorter' or 'check_card_status: no longer plannable'
beside each refinement; a refinement that makes an intent unplannable is flagged, never hidden.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..catalog.spec import CatalogSpec
from ..errors import ConcertoError
from ..planning.planner import Planner
from .refinements import apply_refinements


@dataclass(frozen=True)
class IntentPlan:
    intent: str
    steps: int | None  # None: no plan
    cost: int | None
    lines: tuple[str, ...] = ()


@dataclass(frozen=True)
class Effect:
    intent: str
    before: IntentPlan
    after: IntentPlan

    @property
    def breaks(self) -> bool:
        return self.before.steps is not None and self.after.steps is None

    @property
    def text(self) -> str:
        before, after = self.before.steps, self.after.steps
        if before == after and self.before.lines == self.after.lines:
            return f"{self.intent}: plan unchanged"
        if after is None:
            return f"{self.intent}: no longer plannable" if before is not None else f"{self.intent}: still no plan"
        if before is None:
            return f"{self.intent}: plannable again ({after} steps)"
        if after == before:
            return f"{self.intent}: plan changed, same length ({after} steps)"
        change = "shorter" if after < before else "longer"
        return f"{self.intent}: plan {abs(after - before)} step{'s' if abs(after - before) != 1 else ''} {change}"

    def as_dict(self) -> dict[str, Any]:
        return {"intent": self.intent, "before": self.before.steps, "after": self.after.steps,
                "breaks": self.breaks, "text": self.text, "lines_after": list(self.after.lines)}


def intent_plans(spec: CatalogSpec, planner: Planner | None = None) -> dict[str, IntentPlan]:
    planner = planner or Planner.for_spec(spec)
    plans = {}
    for intent in spec.intents:
        result = planner.plan(intent.goal)
        plans[intent.name] = (IntentPlan(intent.name, len(result.steps), result.cost, tuple(result.lines))
                              if result.solved else IntentPlan(intent.name, None, None))
    return plans


def plan_effects(spec: CatalogSpec, changes: list[dict[str, Any]],
                 before: dict[str, IntentPlan] | None = None) -> list[Effect]:
    """The effect of making `changes` on every intent's plan; ConcertoError if they do not fit the spec."""
    before = before or intent_plans(spec)
    after_spec = apply_refinements(spec, changes)
    after = intent_plans(after_spec)
    return [Effect(name, before[name], after.get(name, IntentPlan(name, None, None))) for name in before]


def unplannable(spec: CatalogSpec) -> list[str]:
    """Intents with no plan from an empty conversation."""
    try:
        return [name for name, plan in intent_plans(spec).items() if plan.steps is None]
    except ConcertoError as exc:
        return [f"({exc})"]
