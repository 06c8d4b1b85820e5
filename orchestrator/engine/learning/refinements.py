"""A refinement: one exact change to a catalog spec, why it is proposed, and how to apply it.

Changes address skills, modes, outcomes, elements and intents by name (a mode by its name or its
default `m1`, `m2`...), so refinements can be applied in any order and any subset, and an admin's
edit of a refinement is an edit of plain data (`change`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

from ..catalog.spec import CatalogSpec
from ..catalog.spec_io import catalog_to_data, parse_catalog
from ..errors import ConcertoError


class Kind(StrEnum):
    INPUT_NEEDED = "input_needed"  # a mode needs an input the spec lacks
    OUTPUT_PRODUCED = "output_produced"  # an outcome gives an output the spec lacks
    OUTPUT_MISSING = "output_missing"  # an outcome never gives an output the spec lists
    OUTCOME_NEVER = "outcome_never"  # an outcome never observed in many calls
    OUTCOME_UNLISTED = "outcome_unlisted"  # an outcome observed that the spec lacks
    RETRY_LIMIT = "retry_limit"  # transient failures call for more attempts
    UNFILLABLE = "unfillable"  # users never give this slot: askable false
    GOAL_EXTENSION = "goal_extension"  # users go on from one intent to another
    PREVIEW = "preview"  # S3 preview words that would have selected the skill
    INTENT_EXAMPLE = "intent_example"  # an utterance that meant an intent the NLU missed


class Op(StrEnum):
    ADD_INPUT = "add_input"
    ADD_OUTPUT = "add_output"
    REMOVE_OUTPUT = "remove_output"
    ADD_OUTCOME = "add_outcome"
    REMOVE_OUTCOME = "remove_outcome"
    SET_RETRIES = "set_retries"
    SET_ASKABLE = "set_askable"
    ADD_EXTENSION = "add_extension"
    SET_PREVIEW = "set_preview"
    ADD_EXAMPLE = "add_example"


@dataclass(frozen=True)
class Refinement:
    kind: Kind
    key: str  # what it is about, stable across runs: "input_needed submit_loan.m1 income"
    change: dict[str, Any]  # {"op": Op, "skill", "mode", "outcome", "element", "intent", "value"}
    summary: str
    evidence: dict[str, Any] = field(default_factory=dict)  # counts and "conversations": example ids
    confidence: float = 1.0

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["kind"] = str(self.kind)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Refinement:
        return cls(kind=Kind(data["kind"]), key=data["key"], change=dict(data["change"]), summary=data["summary"],
                   evidence=dict(data.get("evidence") or {}), confidence=float(data.get("confidence", 1.0)))


def apply_refinements(spec: CatalogSpec, changes: list[dict[str, Any]]) -> CatalogSpec:
    """The spec with every change made, checked as any catalog is; ConcertoError naming a change that does not fit."""
    data = catalog_to_data(spec)
    for index, change in enumerate(changes):
        try:
            _apply(data, change)
        except (KeyError, ValueError, TypeError) as exc:
            raise ConcertoError(f"change {index + 1} ({change.get('op')}) does not fit this catalog: {exc}") from None
    return parse_catalog(data)


def _apply(data: dict[str, Any], change: dict[str, Any]) -> None:
    op = Op(change["op"])
    value = change.get("value")
    if op is Op.SET_ASKABLE:
        _named(data["elements"], change["element"])["askable"] = bool(value)
        return
    if op in (Op.ADD_EXTENSION, Op.ADD_EXAMPLE):
        intent = _named(data["intents"], change["intent"])
        key = "extensions" if op is Op.ADD_EXTENSION else "examples"
        _add(intent.setdefault(key, []), str(value))
        return
    skill = _named(data["skills"], change["skill"])
    if op is Op.SET_RETRIES:
        skill["max_retries"] = int(value)
        return
    if op is Op.SET_PREVIEW:
        skill["preview"] = str(value)
        return
    mode = _mode(skill, change["mode"])
    if op is Op.ADD_INPUT:
        _add(mode.setdefault("inputs", []), change["element"])
    elif op is Op.ADD_OUTCOME:
        if any(o["name"] == change["outcome"] for o in mode["outcomes"]):
            raise ValueError(f"outcome '{change['outcome']}' is already there")
        mode["outcomes"].append({"name": change["outcome"], "outputs": list(value or [])})
    elif op is Op.REMOVE_OUTCOME:
        kept = [o for o in mode["outcomes"] if o["name"] != change["outcome"]]
        if len(kept) == len(mode["outcomes"]):
            raise ValueError(f"no outcome '{change['outcome']}'")
        mode["outcomes"] = kept
        _forget_outcome(skill, change["outcome"])
    else:
        outcome = _named(mode["outcomes"], change["outcome"])
        outputs = outcome.setdefault("outputs", [])
        if op is Op.ADD_OUTPUT:
            _add(outputs, change["element"])
        else:
            outcome["outputs"] = [x for x in outputs if x != change["element"]]


def _forget_outcome(skill: dict[str, Any], outcome: str) -> None:
    """A removed outcome leaves the simulated behaviour too: its rules and weight would name nothing."""
    sim = skill.get("simulation")
    if not sim:
        return
    sim["rules"] = [r for r in sim.get("rules", []) if r.get("outcome") != outcome]
    sim.get("weights", {}).pop(outcome, None)
    sim["values"] = {k: v for k, v in sim.get("values", {}).items() if not k.startswith(f"{outcome}.")}


def _named(items: list[dict[str, Any]], name: str) -> dict[str, Any]:
    for item in items:
        if item.get("name") == name:
            return item
    raise KeyError(f"no '{name}'")


def _mode(skill: dict[str, Any], name: str) -> dict[str, Any]:
    for index, mode in enumerate(skill["modes"], start=1):
        if (mode.get("name") or f"m{index}") == name:
            return mode
    raise KeyError(f"skill '{skill['name']}' has no mode '{name}'")


def _add(items: list[Any], value: Any) -> None:
    if value not in items:
        items.append(value)
