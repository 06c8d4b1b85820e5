"""Refinements held against a scenario's answer key (`simulation.scenario.differences`): precision and recall per kind.

A refinement matches a difference of its own kind about the same skill, mode, outcome and element;
a retry-limit refinement answers a `failure_rate` difference of its skill. Kinds the key does not
cover (goal extensions, previews, intent examples) are held against a reference catalog instead
(`score_others`): precision only, since the key does not say which of them were to be found.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..catalog.spec import CatalogSpec
from ..planning.planner import Planner
from ..runtime.text import content_words
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


# --- the kinds the scenario's key does not list: held against a reference catalog -----------------


def _words(text: str) -> set[str]:
    return set(content_words(text))


def example_intent(text: str, reference: CatalogSpec) -> str | None:
    """The reference intent whose examples (and description) `text` is closest to, by shared content
    words (Jaccard); None when no intent shares at least half of them or two tie."""
    said = _words(text)
    if not said:
        return None
    best: dict[str, float] = {}
    for intent in reference.intents:
        for example in (*intent.examples, intent.description or ""):
            words = _words(example)
            if words:
                best[intent.name] = max(best.get(intent.name, 0.0), len(said & words) / len(said | words))
    ranked = sorted(best.items(), key=lambda kv: -kv[1])
    if not ranked or ranked[0][1] < 0.5 or (len(ranked) > 1 and ranked[1][1] == ranked[0][1]):
        return None
    return ranked[0][0]


def score_others(refinements: Sequence[Refinement], reference: CatalogSpec) -> dict[str, KindScore]:
    """Intent examples, previews and goal extensions against a reference catalog (the true one).

    An intent example is correct when its text is a request for that intent by the reference's
    examples (`example_intent`); a preview when the reference's plan of some intent uses that skill;
    an extension when the reference offers it. `expected`/`found` are not known for these kinds (0).
    """
    planner = Planner.for_spec(reference)
    results = [planner.plan(i.goal) for i in reference.intents]
    used = {s.skill for r in results if r.solved for s in r.steps if s.kind == "skill"}
    offered = {(i.name, x) for i in reference.intents for x in i.extensions}
    checks = {
        Kind.INTENT_EXAMPLE: lambda c: example_intent(str(c["value"]), reference) == c["intent"],
        Kind.PREVIEW: lambda c: c["skill"] in used,
        Kind.GOAL_EXTENSION: lambda c: (c["intent"], c["value"]) in offered,
    }
    scores = {}
    for kind, correct in checks.items():
        mine = [r for r in refinements if r.kind == kind]
        scores[kind.value] = KindScore(kind.value, len(mine), sum(bool(correct(r.change)) for r in mine), 0, 0)
    return scores
