"""Refinements held against a scenario's answer key (`simulation.scenario.differences`): precision and recall per kind.

A refinement matches a difference of its own kind about the same skill, mode, outcome and element;
a retry-limit refinement answers a `failure_rate` difference of its skill. Kinds the key does not
cover (goal extensions, previews, intent examples) are counted, not scored.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .refinements import Kind, Refinement

SCORED = {Kind.INPUT_NEEDED: "input_needed", Kind.OUTPUT_PRODUCED: "output_produced",
          Kind.OUTPUT_MISSING: "output_missing", Kind.OUTCOME_NEVER: "outcome_never",
          Kind.OUTCOME_UNLISTED: "outcome_unlisted", Kind.RETRY_LIMIT: "failure_rate", Kind.UNFILLABLE: "unfillable"}


@dataclass(frozen=True)
class KindScore:
    kind: str
    proposed: int
    correct: int
    expected: int
    found: int

    @property
    def precision(self) -> float | None:
        return self.correct / self.proposed if self.proposed else None

    @property
    def recall(self) -> float | None:
        return self.found / self.expected if self.expected else None


def difference_key(diff: dict[str, Any]) -> tuple[Any, ...]:
    kind = diff["kind"]
    if kind == "failure_rate":
        return (kind, diff["skill"])
    if kind == "unfillable":
        return (kind, diff["element"])
    return (kind, diff["skill"], diff["mode"], diff.get("outcome"), diff.get("element"))


def refinement_key(refinement: Refinement) -> tuple[Any, ...] | None:
    kind = SCORED.get(refinement.kind)
    change = refinement.change
    if kind is None:
        return None
    if kind == "failure_rate":
        return (kind, change["skill"])
    if kind == "unfillable":
        return (kind, change["element"])
    return (kind, change["skill"], change["mode"], change.get("outcome"), change.get("element"))


def score(refinements: Sequence[Refinement], differences: Sequence[dict[str, Any]]) -> dict[str, KindScore]:
    expected = {difference_key(d) for d in differences}
    proposed = {k for k in (refinement_key(r) for r in refinements) if k is not None}
    scores = {}
    for kind in dict.fromkeys(SCORED.values()):
        mine = {k for k in proposed if k[0] == kind}
        key = {k for k in expected if k[0] == kind}
        scores[kind] = KindScore(kind, len(mine), len(mine & key), len(key), len(key & mine))
    return scores


def truth_changes(differences: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The answer key as changes: applied to the spec, they give the model the truths behave by.

    Failure rates have no place in a spec's plans, and an input a mode does not use is kept (the
    planner cannot tell); both are left out.
    """
    ops = {"input_needed": "add_input", "output_produced": "add_output", "output_missing": "remove_output",
           "outcome_never": "remove_outcome", "outcome_unlisted": "add_outcome"}
    changes = []
    for diff in differences:
        if diff["kind"] == "unfillable":
            changes.append({"op": "set_askable", "element": diff["element"], "value": False})
        elif diff["kind"] in ops:
            change = {"op": ops[diff["kind"]], **{k: v for k, v in diff.items() if k not in ("kind", "outputs")}}
            if diff["kind"] == "outcome_unlisted":
                change["value"] = diff.get("outputs", [])
            changes.append(change)
    return changes
