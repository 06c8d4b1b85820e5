"""Cross-reference checks of a structurally valid spec; every fault is collected with its path."""

from __future__ import annotations

import re
from collections.abc import Iterable

import re2

from ..errors import Issue
from .documents import text_faults
from .endpoints import endpoint_refusal
from .formats import KINDS, parse_format
from .spec import CatalogSpec, Element, Skill, done_ref

# \Z, not $: `$` also matches before a final newline, and a name ending in one would leave the
# PDDL line it is written on.
IDENTIFIER = re.compile(r"[a-z][a-z0-9_]*\Z")
SLUG = re.compile(r"[a-z0-9][a-z0-9_-]*\Z")
MAX_NAME = 64

# Words PDDL or our compilation already uses: an element or skill with such a name would make
# the generated domain ambiguous or unparsable.
RESERVED = frozenset(
    """
    define domain problem requirements types constants predicates functions action parameters
    precondition effect objects init goal metric minimize maximize total-cost and or not imply
    exists forall when either object number increase decrease assign element skill operation ask
    authorize known askable sensitive authorized done cannot_establish
    """.split()
)

FORMAT_KINDS = KINDS


def check_name(name: str, path: str) -> list[Issue]:
    if not IDENTIFIER.match(name):
        return [
            Issue(
                path,
                f"'{name}' is not a valid name: use lowercase letters, digits and underscores, "
                "starting with a letter",
            )
        ]
    if len(name) > MAX_NAME:
        return [Issue(path, f"'{name}' is longer than {MAX_NAME} characters")]
    if name in RESERVED:
        return [Issue(path, f"'{name}' is a reserved word of PDDL or of the compilation")]
    return []


def check_format(fmt: str, path: str) -> list[Issue]:
    parsed = parse_format(fmt)
    if parsed.bad:
        accepted = "future or past" if parsed.kind == "date" else "<low>..<high>, e.g. 1000..50000"
        return [Issue(path, f"cannot read '{parsed.bad}' in format '{fmt}' ({parsed.kind}:{accepted})")]
    if parsed.kind in FORMAT_KINDS:
        return []
    if parsed.is_regex:
        pattern = parsed.pattern
        try:
            re.compile(pattern)
        except re.error as exc:
            return [Issue(path, f"invalid regular expression: {exc}")]
        try:  # chat messages are matched by RE2 (linear time): no backreferences or look-around
            re2.compile(pattern)
        except re2.error as exc:
            return [Issue(path, f"regular expression not supported by the linear-time engine (RE2): {exc}; "
                                "backreferences and look-around are not available")]
        return []
    if parsed.is_enum:
        return [] if parsed.options else [Issue(path, "an enum format needs values: enum:a|b|c")]
    kinds = ", ".join((*FORMAT_KINDS, "regex:<pattern>", "enum:<a>|<b>", "date:future", "money:<low>..<high>"))
    return [Issue(path, f"unknown format '{fmt}' (one of {kinds})")]


def duplicates(names: Iterable[tuple[str, str]], what: str) -> list[Issue]:
    """`names` is (name, path) pairs; report every repeat at its own path."""
    seen: dict[str, str] = {}
    issues = []
    for name, path in names:
        if name in seen:
            issues.append(Issue(path, f"duplicate {what} '{name}' (first at {seen[name]})"))
        else:
            seen[name] = path
    return issues


def _type_tree_cycles(elements: tuple[Element, ...]) -> list[Issue]:
    parent = {e.name: e.parent for e in elements}
    index = {e.name: i for i, e in enumerate(elements)}
    reported: set[str] = set()
    issues = []
    for element in elements:
        chain = [element.name]
        node = element.parent
        while node is not None and node in parent and node not in chain:
            chain.append(node)
            node = parent[node]
        if node is None or node not in chain:
            continue
        cycle = chain[chain.index(node):]
        if reported.isdisjoint(cycle):
            reported.update(cycle)
            loop = " -> ".join([*cycle, node])
            issues.append(
                Issue(f"elements[{index[node]}].parent", f"the type tree has a cycle: {loop}", code="type_cycle")
            )
    return issues


def check_done_ref(spec: CatalogSpec, ref: str, path: str) -> list[Issue]:
    """A `done` goal names a skill (any mode) or one mode of it: `skill` or `skill.mode`."""
    skill_name, mode_name = done_ref(ref)
    skill = next((s for s in spec.skills if s.name == skill_name), None)
    if skill is None:
        return [Issue(path, f"unknown skill '{skill_name}'")]
    if mode_name and mode_name not in skill.mode_names():
        modes = ", ".join(skill.mode_names())
        return [Issue(path, f"skill '{skill_name}' has no mode '{mode_name}' (modes: {modes})")]
    return []


def _check_simulation(skill: Skill, elements: set[str], path: str) -> list[Issue]:
    sim = skill.simulation
    if sim is None:
        return []
    issues: list[Issue] = []
    outcomes = {o.name for mode in skill.modes for o in mode.outcomes}
    for key in sim.values:  # `element`, or `outcome.element` for a value only that outcome gives
        outcome, _, name = key.rpartition(".")
        if name not in elements:
            issues.append(Issue(f"{path}.simulation.values.{key}", f"unknown element '{name}'"))
        elif outcome and outcome not in outcomes:
            issues.append(Issue(f"{path}.simulation.values.{key}", f"skill '{skill.name}' has no outcome '{outcome}'"))
    for name in sim.weights:
        if name not in outcomes:
            issues.append(Issue(f"{path}.simulation.weights.{name}", f"skill '{skill.name}' has no outcome '{name}'"))
    for r, rule in enumerate(sim.rules):
        rpath = f"{path}.simulation.rules[{r}]"
        for field, names in (("when", rule.when), ("values", rule.values)):
            issues += [Issue(f"{rpath}.{field}.{n}", f"unknown element '{n}'") for n in names if n not in elements]
        if rule.result == "outcome" and rule.outcome not in outcomes:
            issues.append(Issue(f"{rpath}.outcome", f"skill '{skill.name}' has no outcome '{rule.outcome}'"))
        if rule.result == "unfeasible" and rule.element not in elements:
            issues.append(Issue(f"{rpath}.element", "an unfeasible result names the input element at fault"))
    return issues


def validate_catalog(spec: CatalogSpec) -> list[Issue]:
    """Every cross-reference fault of `spec`, in document order."""
    # Text that cannot be stored (PostgreSQL refuses NUL and lone surrogates) is refused here, with
    # its path, rather than failing at the database.
    issues = [Issue(path, message) for path, message in text_faults(spec.model_dump(exclude_defaults=True))]
    if not SLUG.match(spec.catalog):
        issues.append(
            Issue("catalog", f"'{spec.catalog}' is not a valid slug: lowercase letters, digits, - and _")
        )
    elements = {e.name for e in spec.elements}
    intents = {i.name for i in spec.intents}

    def ref(name: str, known: set[str], what: str, path: str) -> None:
        if name not in known:
            issues.append(Issue(path, f"unknown {what} '{name}'"))

    for i, element in enumerate(spec.elements):
        path = f"elements[{i}]"
        issues += check_name(element.name, f"{path}.name")
        if element.parent is not None:
            if element.parent == element.name:
                issues.append(Issue(f"{path}.parent", f"'{element.name}' cannot be its own parent"))
            else:
                ref(element.parent, elements, "element", f"{path}.parent")
        if element.format is not None:
            issues += check_format(element.format, f"{path}.format")
    issues += duplicates(((e.name, f"elements[{i}].name") for i, e in enumerate(spec.elements)), "element")
    issues += _type_tree_cycles(spec.elements)

    for s, skill in enumerate(spec.skills):
        path = f"skills[{s}]"
        issues += check_name(skill.name, f"{path}.name")
        refusal = endpoint_refusal(skill.endpoint)
        if refusal:
            issues.append(Issue(f"{path}.endpoint", refusal))
        if skill.name in elements:
            issues.append(Issue(f"{path}.name", f"'{skill.name}' is already the name of an element"))
        mode_names = [(m.name, f"{path}.modes[{k}].name") for k, m in enumerate(skill.modes) if m.name]
        issues += [issue for name, p in mode_names for issue in check_name(name, p)]
        issues += duplicates(mode_names, "mode")
        for k, mode in enumerate(skill.modes):
            mpath = f"{path}.modes[{k}]"
            for j, name in enumerate(mode.inputs):
                ref(name, elements, "element", f"{mpath}.inputs[{j}]")
            issues += duplicates(((n, f"{mpath}.inputs[{j}]") for j, n in enumerate(mode.inputs)), "input")
            for o, outcome in enumerate(mode.outcomes):
                opath = f"{mpath}.outcomes[{o}]"
                issues += check_name(outcome.name, f"{opath}.name")
                for j, name in enumerate(outcome.outputs):
                    ref(name, elements, "element", f"{opath}.outputs[{j}]")
                issues += duplicates(
                    ((n, f"{opath}.outputs[{j}]") for j, n in enumerate(outcome.outputs)), "output"
                )
            issues += duplicates(
                ((o.name, f"{mpath}.outcomes[{j}].name") for j, o in enumerate(mode.outcomes)), "outcome"
            )
        issues += _check_simulation(skill, elements, path)
    issues += duplicates(((s.name, f"skills[{i}].name") for i, s in enumerate(spec.skills)), "skill")

    for i, intent in enumerate(spec.intents):
        path = f"intents[{i}]"
        issues += check_name(intent.name, f"{path}.name")
        if not intent.goal.known and not intent.goal.done:
            issues.append(Issue(f"{path}.goal", "the goal names nothing: give known elements and/or done skills"))
        for j, name in enumerate(intent.goal.known):
            ref(name, elements, "element", f"{path}.goal.known[{j}]")
        for j, name in enumerate(intent.goal.done):
            issues += check_done_ref(spec, name, f"{path}.goal.done[{j}]")
        for j, name in enumerate(intent.extensions):
            ref(name, intents, "intent", f"{path}.extensions[{j}]")
    issues += duplicates(((t.name, f"intents[{i}].name") for i, t in enumerate(spec.intents)), "intent")
    return issues
