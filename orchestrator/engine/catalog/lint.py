"""Catalog lint: things that are valid but probably not what the analyst meant.

Validation (`validation.py`) refuses a catalog that cannot be compiled; lint looks at one that
can, and points at intents no plan can reach, elements nothing can establish, outputs nobody
uses, elements nothing names, skills no intent needs, sensitive values flowing to skills, modes
without a failure path, and skills called for what they do but not marked `effects: world` where a
value derived from a sensitive one reaches them. Each item carries the spec path of the thing to fix
(`skills[2].modes[0]`), so a page can link to it.

Reachability here is the same delete-free fixpoint the planner relies on (facts are only ever
added), computed on the spec itself so lint needs no grounding and no planner call.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

from .ontology import Ontology
from .sensitivity import Sensitivity, sensitivity
from .spec import CatalogSpec, Intent, done_ref

Severity = Literal["error", "warning", "info"]
SEVERITY_ORDER: dict[str, int] = {"error": 0, "warning": 1, "info": 2}


@dataclass(frozen=True)
class LintItem:
    kind: str  # unreachable_intent | unestablishable_element | unused_output | unreachable_skill | ...
    severity: Severity
    message: str
    path: str  # where to fix it: `intents[0]`, `elements[3]`, `skills[1].modes[0]`
    subject: str  # the name of the intent, element or skill the item is about


@dataclass(frozen=True)
class _Reach:
    """What can be established from nothing: elements, and (skill, mode) positions that can run."""

    known: frozenset[str]
    runnable: frozenset[tuple[int, int]]


class _Catalog:
    """The spec with the lookups every rule needs."""

    def __init__(self, spec: CatalogSpec):
        self.spec = spec
        self.onto = Ontology(spec.elements)
        self.index = {e.name: i for i, e in enumerate(spec.elements)}
        self._producers: dict[str, list[tuple[int, int]]] | None = None
        self.reach = self._reach()

    @cached_property
    def privacy(self) -> Sensitivity:
        """Which values need consent where: read by two rules, and by none of `unreachable_intents`."""
        return sensitivity(self.spec, self.onto)

    def satisfied(self, name: str, known: frozenset[str] | set[str]) -> bool:
        # An input or goal naming `document` is met by a known `passport`.
        return any(x in known for x in self.onto.subtree(name))

    def _reach(self) -> _Reach:
        known = {e.name for e in self.spec.elements if e.askable}
        # What the known elements answer for (each and its ancestors), kept as they are learnt:
        # an input is then met in one lookup, not by a walk of its subtree on every pass.
        covered: set[str] = set()

        def learn(names: Iterable[str]) -> None:
            for name in names:
                node: str | None = name
                while node is not None and node not in covered:
                    covered.add(node)
                    node = self.onto.parent.get(node)

        learn(known)
        runnable: set[tuple[int, int]] = set()
        changed = True
        while changed:
            changed = False
            for s, skill in enumerate(self.spec.skills):
                for m, mode in enumerate(skill.modes):
                    if (s, m) not in runnable and all(x in covered for x in mode.inputs):
                        runnable.add((s, m))
                        outputs = [x for outcome in mode.outcomes for x in outcome.outputs]
                        known.update(outputs)
                        learn(outputs)
                        changed = True
        return _Reach(frozenset(known), frozenset(runnable))

    def producers(self, name: str) -> list[tuple[int, int]]:
        """(skill, mode) positions with an outcome that outputs `name` itself."""
        if self._producers is None:  # indexed once: lint asks for every element, in loops
            index: dict[str, list[tuple[int, int]]] = {}
            for s, skill in enumerate(self.spec.skills):
                for m, mode in enumerate(skill.modes):
                    for x in dict.fromkeys(x for outcome in mode.outcomes for x in outcome.outputs):
                        index.setdefault(x, []).append((s, m))
            self._producers = index
        return self._producers.get(name, [])

    def skill_runnable(self, s: int) -> bool:
        return any((s, m) in self.reach.runnable for m in range(len(self.spec.skills[s].modes)))

    def done_modes(self, ref: str) -> list[tuple[int, int]]:
        skill_name, mode_name = done_ref(ref)
        for s, skill in enumerate(self.spec.skills):
            if skill.name == skill_name:
                names = skill.mode_names()
                return [(s, m) for m in range(len(names)) if not mode_name or names[m] == mode_name]
        return []

    def blockers(self, wanted: list[str], modes: list[tuple[int, int]]) -> list[str]:
        """Elements at the root of why `wanted` elements and `modes` cannot be reached.

        A root has no element in its subtree that the user can give or some skill outputs;
        anything else is blocked only because a producer lacks an input, which is followed.
        """
        roots: list[str] = []
        seen: set[str] = set()
        queue = list(wanted) + [x for s, m in modes for x in self.spec.skills[s].modes[m].inputs]
        while queue:
            name = queue.pop(0)
            if name in seen or self.satisfied(name, self.reach.known):
                continue
            seen.add(name)
            below = self.onto.subtree(name)
            sources = [pm for x in below for pm in self.producers(x)]
            if not sources and not any(self.onto.elements[x].askable for x in below):
                roots.append(name)
            queue += [x for s, m in sources for x in self.spec.skills[s].modes[m].inputs]
        return roots


def lint_catalog(spec: CatalogSpec) -> list[LintItem]:
    """Every lint item of a validated spec, errors first, each group in document order."""
    catalog = _Catalog(spec)
    items = (
        _unreachable_intents(catalog)
        + _unestablishable_elements(catalog)
        + _unreachable_skills(catalog)
        + _single_outcome_modes(catalog)
        + _unused_outputs(catalog)
        + _unused_elements(catalog)
        + _sensitive_flows(catalog)
        + _unmarked_effects(catalog)
    )
    return sorted(items, key=lambda item: SEVERITY_ORDER[item.severity])


def unreachable_intents(spec: CatalogSpec) -> list[LintItem]:
    """The `unreachable_intent` items of `lint_catalog` alone, without the cost of the other rules."""
    return _unreachable_intents(_Catalog(spec))


def _names(names: list[str]) -> str:
    quoted = [f"`{n}`" for n in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def _unreachable_intents(catalog: _Catalog) -> list[LintItem]:
    items = []
    for i, intent in enumerate(catalog.spec.intents):
        missing, modes = _intent_gaps(catalog, intent)
        if not missing and not modes:
            continue
        roots = catalog.blockers(missing, modes)
        if len(roots) == 1:
            why = f"nothing can establish {_names(roots)}: no skill outputs it and the user cannot be asked for it"
        elif roots:
            why = f"nothing can establish {_names(roots)}: no skill outputs them and the user cannot be asked"
        else:  # every producer waits for an input that only another blocked producer makes
            goals = missing + [ref for ref in intent.goal.done if catalog.done_modes(ref)[0] in modes]
            why = f"the skills that lead to {_names(goals)} need each other's outputs first"
        items.append(LintItem("unreachable_intent", "error", f"Intent `{intent.name}` has no plan: {why}.",
                              f"intents[{i}]", intent.name))
    return items


def _intent_gaps(catalog: _Catalog, intent: Intent) -> tuple[list[str], list[tuple[int, int]]]:
    """Goal elements that cannot be known, and the modes of `done` goals none of which can run."""
    missing = [x for x in intent.goal.known if not catalog.satisfied(x, catalog.reach.known)]
    modes: list[tuple[int, int]] = []
    for ref in intent.goal.done:
        options = catalog.done_modes(ref)
        if not any(pm in catalog.reach.runnable for pm in options):
            modes += options
    return missing, modes


def _unestablishable_elements(catalog: _Catalog) -> list[LintItem]:
    items = []
    for i, element in enumerate(catalog.spec.elements):
        if catalog.satisfied(element.name, catalog.reach.known):
            continue
        below = catalog.onto.subtree(element.name)
        if any(catalog.producers(x) for x in below) or any(catalog.onto.elements[x].askable for x in below):
            continue  # something makes it; that something is blocked and reported on its own
        items.append(LintItem(
            "unestablishable_element", "warning",
            f"Nothing can establish `{element.name}`: no skill outputs it and the user cannot be asked for it. "
            "Let the user give it, or add a skill that outputs it.",
            f"elements[{i}]", element.name,
        ))
    return items


def _needed(catalog: _Catalog) -> tuple[set[str], set[int]]:
    """Backwards from every intent: the elements some plan may need and the skills that make them."""
    spec = catalog.spec
    wanted = {x for intent in spec.intents for x in intent.goal.known}
    skills = {s for intent in spec.intents for ref in intent.goal.done for s, _ in catalog.done_modes(ref)}
    wanted |= {x for s in skills for mode in spec.skills[s].modes for x in mode.inputs}
    changed = True
    while changed:
        changed = False
        for s, skill in enumerate(spec.skills):
            for mode in skill.modes:
                outputs = [x for outcome in mode.outcomes for x in outcome.outputs]
                # x answers for w when w is x or above it in the tree
                if any(not wanted.isdisjoint((x, *catalog.onto.ancestors(x))) for x in outputs):
                    new = set(mode.inputs) - wanted
                    if new or s not in skills:
                        wanted |= new
                        skills.add(s)
                        changed = True
    return wanted, skills


def _unreachable_skills(catalog: _Catalog) -> list[LintItem]:
    _, useful = _needed(catalog)
    items = []
    for s, skill in enumerate(catalog.spec.skills):
        if not catalog.skill_runnable(s):
            inputs = [x for mode in skill.modes for x in mode.inputs if not catalog.satisfied(x, catalog.reach.known)]
            message = (f"Skill `{skill.name}` can never run: nothing can establish "
                       f"{_names(list(dict.fromkeys(inputs)))}.")
        elif s not in useful:
            message = (f"No intent can reach skill `{skill.name}`: no intent asks for what it outputs "
                       "or for it to run.")
        else:
            continue
        items.append(LintItem("unreachable_skill", "warning", message, f"skills[{s}]", skill.name))
    return items


def _single_outcome_modes(catalog: _Catalog) -> list[LintItem]:
    items = []
    for s, skill in enumerate(catalog.spec.skills):
        names = skill.mode_names()
        for m, mode in enumerate(skill.modes):
            if len(mode.outcomes) != 1:
                continue
            which = f"`{skill.name}`" if len(names) == 1 else f"`{skill.name}` (mode `{names[m]}`)"
            items.append(LintItem(
                "no_failure_path", "warning",
                f"Skill {which} has a single outcome and no failure path: add an outcome for when the call "
                "fails, so the assistant can recover instead of assuming success.",
                f"skills[{s}].modes[{m}]", skill.name,
            ))
    return items


def _unused_outputs(catalog: _Catalog) -> list[LintItem]:
    spec = catalog.spec
    consumed = {x for skill in spec.skills for mode in skill.modes for x in mode.inputs}
    consumed |= {x for intent in spec.intents for x in intent.goal.known}
    items: list[LintItem] = []
    reported: set[str] = set()
    for s, skill in enumerate(spec.skills):
        for m, mode in enumerate(skill.modes):
            for o, outcome in enumerate(mode.outcomes):
                for j, name in enumerate(outcome.outputs):
                    if name in reported or not consumed.isdisjoint((name, *catalog.onto.ancestors(name))):
                        continue
                    reported.add(name)
                    items.append(LintItem(
                        "unused_output", "info",
                        f"Output `{name}` of `{skill.name}` is used by nothing: no skill takes it as an input "
                        "and no intent asks for it.",
                        f"skills[{s}].modes[{m}].outcomes[{o}].outputs[{j}]", name,
                    ))
    return items


def _unused_elements(catalog: _Catalog) -> list[LintItem]:
    """Elements nothing names: left behind by a deleted skill, or a typo that became an element."""
    spec = catalog.spec
    named = {x for skill in spec.skills for mode in skill.modes for x in mode.inputs}
    named |= {x for skill in spec.skills for mode in skill.modes for o in mode.outcomes for x in o.outputs}
    named |= {x for intent in spec.intents for x in intent.goal.known}
    named |= {e.parent for e in spec.elements if e.parent}
    return [
        LintItem("unused_element", "info",
                 f"Element `{e.name}` is used by nothing: no skill, intent or other element names it. "
                 "Delete it if it is left over or a typo.", f"elements[{i}]", e.name)
        for i, e in enumerate(spec.elements)
        if e.name not in named and e.parent is None
    ]


def _sensitive_flows(catalog: _Catalog) -> list[LintItem]:
    items: list[LintItem] = []
    privacy = catalog.privacy
    for s, skill in enumerate(catalog.spec.skills):
        seen: set[str] = set()
        for m, (mode, mode_name) in enumerate(zip(skill.modes, skill.mode_names(), strict=True)):
            world = skill.changes_world(mode_name)
            for j, name in enumerate(mode.inputs):
                flowing = [x for x in catalog.onto.subtree(name) if privacy.needs_consent(x, world)]
                for x in flowing:
                    if x in seen:
                        continue
                    seen.add(x)
                    items.append(_flow(x, privacy.sources(x), skill.name, f"skills[{s}].modes[{m}].inputs[{j}]"))
    return items


def _unmarked_effects(catalog: _Catalog) -> list[LintItem]:
    """A value computed from a sensitive one needs consent only before a skill marked `effects: world`
    receives it (`sensitivity.py`). A mode that returns nothing, or that an intent's goal asks to have
    done, is called for what it does, not for a value: if it is left `effects: none` while such a value
    reaches it, the value could leave the conversation with nobody asked. Told from the structure alone."""
    spec = catalog.spec
    privacy = catalog.privacy
    if not privacy.derived:
        return []
    wanted = {done_ref(ref) for intent in spec.intents for ref in intent.goal.done}
    items: list[LintItem] = []
    for s, skill in enumerate(spec.skills):
        for m, (mode, mode_name) in enumerate(zip(skill.modes, skill.mode_names(), strict=True)):
            if skill.changes_world(mode_name):
                continue
            done = {(skill.name, ""), (skill.name, mode_name)} & wanted
            acts = not any(o.outputs for o in mode.outcomes) or bool(done)
            carried = [x for name in mode.inputs for x in catalog.onto.subtree(name) if x in privacy.derived]
            if not acts or not carried:
                continue
            made = ", ".join(f"`{x}`" for x in privacy.sources(carried[0]))
            which = f"`{skill.name}`" if len(skill.modes) == 1 else f"`{skill.name}` (mode `{mode_name}`)"
            items.append(LintItem(
                "unmarked_effects", "warning",
                f"Skill {which} receives `{carried[0]}`, computed from sensitive {made}, and is called for what "
                "it does rather than for a value: if it sends, publishes or submits, mark it `effects: world`, so "
                "that the user is asked before the value leaves the conversation.",
                f"skills[{s}].modes[{m}]", skill.name,
            ))
    return items


def _flow(element: str, sources: tuple[str, ...], skill: str, path: str) -> LintItem:
    if not sources:
        return LintItem("sensitive_flow", "info",
                        f"Sensitive `{element}` goes to skill `{skill}`: the user will be asked for consent first. "
                        "Check that this skill really needs it.", path, skill)
    made = ", ".join(f"`{x}`" for x in sources)
    return LintItem("sensitive_flow", "info",
                    f"`{element}` is computed from sensitive {made} and goes to skill `{skill}`, which changes "
                    "the world: the user will be asked for consent first.", path, skill)
