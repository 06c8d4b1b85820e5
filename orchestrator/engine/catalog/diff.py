"""The difference between two catalog specs, as lines an analyst can read.

`skill credit_check: retry limit 2 -> 1`, `element ssn: now sensitive`, `intent apply_loan: example
added "I need a loan"`. Things are matched by name, so a rename reads as one removed and one added.
Fields this module does not know by name (added to the spec later) still show up, as "<field> changed".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel

from .spec import CatalogSpec, Element, Intent, Mode, Skill

ChangeKind = Literal["added", "removed", "changed"]


@dataclass(frozen=True)
class Change:
    kind: ChangeKind
    subject: str  # "skill credit_check", "element ssn", "catalog"
    text: str  # the whole readable line

    def __str__(self) -> str:
        return self.text


def _value(value: Any) -> str:
    if value is None or value == "":
        return "none"
    if isinstance(value, tuple | list):
        return ", ".join(str(v) for v in value) or "none"
    return str(value)


def _fields(
    subject: str, old: BaseModel, new: BaseModel, labels: dict[str, str], skip: Iterable[str] = ()
) -> list[Change]:
    """`subject: label a -> b` for each changed field; unlabelled ones say only that they changed."""
    changes = []
    skipped = set(skip)
    for name in type(old).model_fields:
        if name in skipped:
            continue
        before, after = getattr(old, name), getattr(new, name)
        if before == after:
            continue
        label = labels.get(name)
        text = f"{subject}: {label} {_value(before)} -> {_value(after)}" if label else f"{subject}: {name} changed"
        changes.append(Change("changed", subject, text))
    return changes


def _members(subject: str, what: str, old: Sequence[str], new: Sequence[str], quote: bool = False) -> list[Change]:
    """`subject: <what> added x` / `removed y` for members of two lists."""
    show = (lambda v: f'"{v}"') if quote else str
    changes = [Change("changed", subject, f"{subject}: {what} added {show(v)}") for v in new if v not in old]
    changes += [Change("changed", subject, f"{subject}: {what} removed {show(v)}") for v in old if v not in new]
    return changes


def _by_name(
    kind: str,
    old: Sequence[Any],
    new: Sequence[Any],
    describe: Callable[[Any], str],
    compare: Callable[[str, Any, Any], list[Change]],
) -> list[Change]:
    before = {item.name: item for item in old}
    after = {item.name: item for item in new}
    changes = []
    for name, item in after.items():
        subject = f"{kind} {name}"
        if name not in before:
            changes.append(Change("added", subject, f"{subject} added{describe(item)}"))
        else:
            changes += compare(subject, before[name], item)
    changes += [Change("removed", f"{kind} {name}", f"{kind} {name} removed") for name in before if name not in after]
    return changes


# --- catalog --------------------------------------------------------------------------------------

_PRIVACY = {"per_skill": "once per skill", "per_element": "once per element"}


def _catalog(old: CatalogSpec, new: CatalogSpec) -> list[Change]:
    changes = _fields("catalog", old, new, {"title": "title", "description": "description"},
                      skip=("catalog", "privacy", "costs", "elements", "skills", "intents"))
    if old.privacy != new.privacy:
        text = f"catalog: consent asked {_PRIVACY[old.privacy]} -> {_PRIVACY[new.privacy]}"
        changes.append(Change("changed", "catalog", text))
    changes += _fields("costs", old.costs, new.costs, {"skill": "skill", "ask": "asking the user",
                                                       "authorize": "asking for consent"})
    return changes


# --- elements -------------------------------------------------------------------------------------


def _element_added(element: Element) -> str:
    facts = [f"a kind of {element.parent}"] if element.parent else []
    facts += ["sensitive"] if element.sensitive else []
    facts += [] if element.askable else ["the user cannot be asked for it"]
    return f" ({', '.join(facts)})" if facts else ""


def _element(subject: str, old: Element, new: Element) -> list[Change]:
    changes = _fields(subject, old, new, {"description": "description", "format": "format"},
                      skip=("name", "parent", "sensitive", "askable"))
    if old.parent != new.parent:
        where = f"moved under {new.parent}" if new.parent else "moved to the top of the type tree"
        was = f" (was under {old.parent})" if old.parent else ""
        changes.append(Change("changed", subject, f"{subject}: {where}{was}"))
    if old.sensitive != new.sensitive:
        changes.append(Change("changed", subject, f"{subject}: {'now' if new.sensitive else 'no longer'} sensitive"))
    if old.askable != new.askable:
        now = "the user can now be asked for it" if new.askable else "the user can no longer be asked for it"
        changes.append(Change("changed", subject, f"{subject}: {now}"))
    return changes


# --- skills ---------------------------------------------------------------------------------------

_SKILL_LABELS = {
    "description": "description",
    "endpoint": "endpoint",
    "max_retries": "retry limit",
    "preview": "preview",
}


def _skill_added(skill: Skill) -> str:
    return f" ({len(skill.modes)} mode{'s' if len(skill.modes) != 1 else ''})"


def _skill(subject: str, old: Skill, new: Skill) -> list[Change]:
    changes = _fields(subject, old, new, _SKILL_LABELS, skip=("name", "modes", "cost"))
    if old.cost != new.cost:  # None means "the catalog's default", which reads better in words
        before = "default" if old.cost is None else old.cost
        after = "default" if new.cost is None else new.cost
        changes.append(Change("changed", subject, f"{subject}: cost {before} -> {after}"))
    before = dict(zip(old.mode_names(), old.modes, strict=True))
    after = dict(zip(new.mode_names(), new.modes, strict=True))
    for name, mode in after.items():
        if name not in before:
            text = f"{subject}: mode {name} added ({_value(mode.inputs)} -> {_outcome_names(mode)})"
            changes.append(Change("changed", subject, text))
        else:
            changes += _mode(f"{subject} mode {name}", before[name], mode)
    changes += [Change("changed", subject, f"{subject}: mode {name} removed") for name in before if name not in after]
    return changes


def _outcome_names(mode: Mode) -> str:
    return " | ".join(o.name for o in mode.outcomes)


def _mode(subject: str, old: Mode, new: Mode) -> list[Change]:
    changes = _members(subject, "input", old.inputs, new.inputs)
    before = {o.name: o for o in old.outcomes}
    after = {o.name: o for o in new.outcomes}
    for name, outcome in after.items():
        if name not in before:
            text = f"{subject}: outcome {name} added (outputs {_value(outcome.outputs)})"
            changes.append(Change("changed", subject, text))
        else:
            changes += _members(f"{subject} outcome {name}", "output", before[name].outputs, outcome.outputs)
    gone = [name for name in before if name not in after]
    changes += [Change("changed", subject, f"{subject}: outcome {name} removed") for name in gone]
    return changes


# --- intents --------------------------------------------------------------------------------------


def _intent(subject: str, old: Intent, new: Intent) -> list[Change]:
    changes = _fields(subject, old, new, {"description": "description"},
                      skip=("name", "examples", "goal", "extensions"))
    changes += _members(subject, "example", old.examples, new.examples, quote=True)
    changes += _members(subject, "goal to know", old.goal.known, new.goal.known)
    changes += _members(subject, "goal to run", old.goal.done, new.goal.done)
    changes += _members(subject, "follow-up", old.extensions, new.extensions)
    return changes


def _intent_added(intent: Intent) -> str:
    goal = [*intent.goal.known, *intent.goal.done]
    return f" (goal: {', '.join(goal)})"


def diff_catalogs(old: CatalogSpec, new: CatalogSpec) -> list[Change]:
    """What changed from `old` to `new`: catalog settings, then elements, skills and intents."""
    return [
        *_catalog(old, new),
        *_by_name("element", old.elements, new.elements, _element_added, _element),
        *_by_name("skill", old.skills, new.skills, _skill_added, _skill),
        *_by_name("intent", old.intents, new.intents, _intent_added, _intent),
    ]
