"""Edits a studio form makes to a draft: each is a change of the whole spec, checked, then saved.

Every edit is a pure function `spec -> new spec` (`element_added`, `skill_updated`, ...) that
raises `EditRefused` or `SpecError` with a message an analyst can act on. `version_edit` applies
one to a draft in one transaction: read the draft's spec, change it, validate the result as
any imported catalog is validated (so a cycle in the type tree or an unknown element is refused
with the engine's own message), and save it. `edit_check` runs the same change without saving,
which is how forms validate as the analyst types.

Working on whole specs keeps one source of truth for what a valid catalog is, and the rows of
a version are rewritten in one go, so a half-applied edit cannot exist.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from pydantic import ValidationError

from orchestrator.engine.catalog.checks import check_name
from orchestrator.engine.catalog.lint import lint_catalog
from orchestrator.engine.catalog.spec import CatalogSpec, Element, Intent, Mode, Outcome, Skill, done_ref
from orchestrator.engine.catalog.spec_io import catalog_to_data, parse_catalog, spec_from_data
from orchestrator.engine.catalog.toolspec import Proposal, apply_proposal
from orchestrator.engine.errors import ConcertoError, UnknownName

from .history import history_record
from .models import CatalogVersion
from .permissions import Action, check_allowed
from .permissions import NotAllowed as NotAllowed  # where callers have long imported it from
from .promotion import promotion_refusal
from .promotion_gates import gate_problems
from .selectors import version_newest_promoted, version_spec, version_spec_saved
from .services import version_check_editable, version_promote, version_update

Change = Callable[[CatalogSpec], CatalogSpec]


class EditRefused(ConcertoError):
    answer_is_no = True
    """An edit that would break the catalog or lose what other parts rely on; the message says where.

    Its `path` is the argument of the change at fault (`name`, `inputs`), which the studio's form
    calls by the same name.
    """


class DraftChanged(ConcertoError):
    """The draft changed after the form was opened (its revision moved on): the edit is not applied."""


# --- applying edits -------------------------------------------------------------------------------


def edit_check(spec: CatalogSpec, change: Change) -> CatalogSpec:
    """The changed spec, validated like an import; nothing is saved."""
    return parse_catalog(catalog_to_data(change(spec)))


@transaction.atomic
def version_edit(*, version: CatalogVersion, change: Change, label: str = "",
                 user: AbstractBaseUser | None = None, revision: int | None = None) -> CatalogSpec:
    """Apply `change` to a draft's spec and save the result; a promoted version is refused.

    `revision` is the draft's revision the change was made against (a form's): if the draft has
    moved on since, `DraftChanged` is raised and nothing is saved. The edit is kept in the draft's
    history (`history.py`) under `label`, so it can be undone.
    """
    version = version_check_editable(version=version)
    if revision is not None and revision != version.revision:
        raise DraftChanged(f"the draft changed since this form was opened (revision {revision} -> {version.revision})")
    before = version_spec(version=version)
    # `version_update` runs the checks across the catalog, once: at thousands of skills they
    # are a tenth of a second.
    new = _through_schema(before, change(before))
    after = version_update(version=version, spec=new)
    version_spec_saved(version=after, spec=new)
    history_record(version=version, before=before, after=after, spec=new, label=label, user=user)
    return new


def _through_schema(before: CatalogSpec, after: CatalogSpec) -> CatalogSpec:
    """`after` with what the change made read back through the schema, which `model_copy` skips.

    Specs are frozen: an element, skill or intent that is the very object it was in `before`
    is unchanged and valid already, and only the others (one, for a saved field) are read back;
    reading back the whole spec cost a third of a second at 1,000 skills. When something does
    not fit, the whole spec is, so that the fault is reported by its path (`skills[3].cost`).
    """
    kept = {id(item) for item in (*before.elements, *before.skills, *before.intents)}

    def checked(items: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple(item if id(item) in kept
                     else type(item).model_validate(item.model_dump(mode="json", exclude_defaults=True))
                     for item in items)

    try:
        rest = after.model_dump(mode="json", exclude_defaults=True, exclude={"elements", "skills", "intents"})
        return CatalogSpec.model_validate({**rest, "elements": checked(after.elements),
                                           "skills": checked(after.skills), "intents": checked(after.intents)})
    except ValidationError:
        return spec_from_data(catalog_to_data(after))


def _position(items: Iterable[Any], name: str, kind: str) -> int:
    names = [item.name for item in items]
    if name not in names:
        raise UnknownName(kind, name, names)
    return names.index(name)


def _replace(items: tuple[Any, ...], index: int, item: Any) -> tuple[Any, ...]:
    return items[:index] + (item,) + items[index + 1:]


def _check_new_names(names: Iterable[str], path: str, field: str) -> None:
    """Names typed into an inputs or outputs field become elements: they must be valid names."""
    issues = [issue for j, name in enumerate(names) for issue in check_name(name, f"{path}[{j}]")]
    if issues:
        raise EditRefused("; ".join(issue.message for issue in issues), path=field)


def _with_elements(spec: CatalogSpec, inputs: Iterable[str], outputs: Iterable[str]) -> CatalogSpec:
    """`spec` plus an element for each name it lacks.

    A new input is something the user can give; a new output only a skill makes (a score, a
    status), so the user is not asked for it until the analyst says otherwise.
    """
    have = {e.name for e in spec.elements}
    new: dict[str, Element] = {}
    for name in inputs:
        if name not in have:
            new.setdefault(name, Element(name=name))
    for name in outputs:
        if name not in have:
            new.setdefault(name, Element(name=name, askable=False))
    return spec.model_copy(update={"elements": spec.elements + tuple(new.values())})


# --- elements -------------------------------------------------------------------------------------


def element_added(
    spec: CatalogSpec, *, name: str, description: str = "", parent: str | None = None,
    sensitive: bool = False, askable: bool = True, format: str | None = None,
    question: str | None = None, label: str | None = None,
) -> CatalogSpec:
    element = Element(name=name, description=description, parent=parent or None, sensitive=sensitive,
                      askable=askable, format=format or None, question=question or None, label=label or None)
    return spec.model_copy(update={"elements": spec.elements + (element,)})


def element_updated(spec: CatalogSpec, *, name: str, new_name: str | None = None, **changes: Any) -> CatalogSpec:
    """Change the given fields of an element (the others stay); a new name is carried to every use."""
    _only(changes, ("description", "parent", "sensitive", "askable", "format", "question", "label"))
    i = _position(spec.elements, name, "element")
    cleaned = {k: (v or None) if k in ("parent", "format", "question", "label") else v for k, v in changes.items()}
    spec = spec.model_copy(update={"elements": _replace(spec.elements, i, spec.elements[i].model_copy(update=cleaned))})
    if new_name and new_name != name:
        if new_name in {e.name for e in spec.elements}:
            raise EditRefused(f"there is already an element named '{new_name}'", path="name")
        spec = _rename_element(spec, name, new_name)
    return spec


def _only(changes: dict[str, Any], fields: tuple[str, ...]) -> None:
    unknown = set(changes) - set(fields)
    if unknown:  # a caller's mistake, not the analyst's
        raise TypeError(f"unknown fields {sorted(unknown)}; expected some of {fields}")


def _rename_element(spec: CatalogSpec, old: str, new: str) -> CatalogSpec:
    def swap(names: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(new if n == old else n for n in names)

    elements = tuple(
        e.model_copy(update={"name": new if e.name == old else e.name, "parent": new if e.parent == old else e.parent})
        for e in spec.elements
    )
    skills = tuple(
        s.model_copy(update={"modes": tuple(
            m.model_copy(update={"inputs": swap(m.inputs), "outcomes": tuple(
                o.model_copy(update={"outputs": swap(o.outputs)}) for o in m.outcomes)})
            for m in s.modes
        ), "simulation": _simulation_renamed(s, old, new)})
        for s in spec.skills
    )
    intents = tuple(
        t.model_copy(update={"goal": t.goal.model_copy(update={"known": swap(t.goal.known)})}) for t in spec.intents
    )
    return spec.model_copy(update={"elements": elements, "skills": skills, "intents": intents})


def element_uses(spec: CatalogSpec, name: str) -> list[str]:
    """Every place that names element `name`, in words."""
    uses = [f"the parent of `{e.name}`" for e in spec.elements if e.parent == name]
    for skill in spec.skills:
        for mode_name, mode in zip(skill.mode_names(), skill.modes, strict=True):
            where = f"`{skill.name}`" if len(skill.modes) == 1 else f"`{skill.name}` (mode `{mode_name}`)"
            if name in mode.inputs:
                uses.append(f"an input of {where}")
            uses += [f"an output of {where}, outcome `{o.name}`" for o in mode.outcomes if name in o.outputs]
        if name in _simulated_elements(skill):
            uses.append(f"the simulated behaviour of `{skill.name}`")
    uses += [f"the goal of intent `{t.name}`" for t in spec.intents if name in t.goal.known]
    return uses


def _simulation_renamed(skill: Skill, old: str, new: str) -> Any:
    """A skill's declared simulation with element `old` called `new` (keys may be `outcome.element`)."""
    sim = getattr(skill, "simulation", None)
    if sim is None:
        return None

    def key(name: str) -> str:
        outcome, dot, element = name.rpartition(".")
        return f"{outcome}{dot}{new}" if element == old else name

    def keys(mapping: dict[str, Any]) -> dict[str, Any]:
        return {key(k): v for k, v in mapping.items()}

    rules = tuple(
        r.model_copy(update={"when": keys(r.when), "values": keys(r.values),
                             "element": new if r.element == old else r.element})
        for r in sim.rules
    )
    explanation = keys(sim.explanation) if sim.explanation is not None else None
    return sim.model_copy(update={"values": keys(sim.values), "rules": rules, "explanation": explanation})


def _simulated_elements(skill: Skill) -> set[str]:
    """Elements a skill's declared simulation names (its values, rule conditions and explanation)."""
    sim = getattr(skill, "simulation", None)
    if sim is None:
        return set()
    names = {key.rpartition(".")[2] for key in sim.values}
    for rule in sim.rules:
        names |= set(rule.when) | set(rule.values) | ({rule.element} if rule.element else set())
    return names | set(sim.explanation or {})


def element_removed(spec: CatalogSpec, *, name: str) -> CatalogSpec:
    i = _position(spec.elements, name, "element")
    uses = element_uses(spec, name)
    if uses:
        raise EditRefused(f"`{name}` cannot be deleted: it is {'; '.join(uses)}. Change those first.")
    return spec.model_copy(update={"elements": spec.elements[:i] + spec.elements[i + 1:]})


# --- skills, modes and outcomes -------------------------------------------------------------------


def skill_added(
    spec: CatalogSpec, *, name: str, description: str = "", endpoint: str = "sim:", max_retries: int = 1,
    cost: int | None = None, preview: str | None = None, inputs: tuple[str, ...] = (),
    outputs: tuple[str, ...] = (), failure: bool = True, effects: str = "none",
) -> CatalogSpec:
    """A skill with one mode: `inputs -> success(outputs)`, and a failure outcome unless declined."""
    n = len(spec.skills)
    _check_new_names(inputs, f"skills[{n}].modes[0].inputs", "inputs")
    _check_new_names(outputs, f"skills[{n}].modes[0].outcomes[0].outputs", "outputs")
    outcomes = (Outcome(name="success", outputs=tuple(outputs)),)
    if failure:
        outcomes += (Outcome(name="failure"),)
    skill = Skill(name=name, description=description, endpoint=endpoint or "sim:", max_retries=max_retries,
                  cost=cost, preview=preview or None, effects=effects,
                  modes=(Mode(inputs=tuple(inputs), outcomes=outcomes),))
    spec = _with_elements(spec, inputs, outputs)
    return spec.model_copy(update={"skills": spec.skills + (skill,)})


def skill_updated(spec: CatalogSpec, *, name: str, new_name: str | None = None, **changes: Any) -> CatalogSpec:
    """Change the given fields of a skill; a new name is carried to the intents that name it."""
    _only(changes, ("description", "endpoint", "max_retries", "cost", "preview", "effects"))
    i = _position(spec.skills, name, "skill")
    renamed = new_name or name
    if renamed != name and renamed in {s.name for s in spec.skills}:
        raise EditRefused(f"there is already a skill named '{renamed}'", path="name")
    if "endpoint" in changes:
        changes["endpoint"] = changes["endpoint"] or "sim:"
    if "preview" in changes:
        changes["preview"] = changes["preview"] or None
    skill = spec.skills[i].model_copy(update={**changes, "name": renamed})
    spec = spec.model_copy(update={"skills": _replace(spec.skills, i, skill)})
    return _rename_done(spec, name, renamed) if renamed != name else spec


def _rename_done(spec: CatalogSpec, old: str, new: str, old_mode: str = "", new_mode: str = "") -> CatalogSpec:
    """Carry a skill (or one of its modes) renamed to the `done` goals that name it."""

    def swap(ref: str) -> str:
        skill, mode = done_ref(ref)
        if skill != old:
            return ref
        if old_mode:
            return f"{new}.{new_mode}" if mode == old_mode else ref
        return f"{new}.{mode}" if mode else new

    intents = tuple(
        t.model_copy(update={"goal": t.goal.model_copy(update={"done": tuple(swap(r) for r in t.goal.done)})})
        for t in spec.intents
    )
    return spec.model_copy(update={"intents": intents})


def _done_users(spec: CatalogSpec, skill: str, mode: str = "") -> list[str]:
    return [
        t.name for t in spec.intents
        if any(done_ref(r)[0] == skill and (not mode or done_ref(r)[1] == mode) for r in t.goal.done)
    ]


def skill_removed(spec: CatalogSpec, *, name: str) -> CatalogSpec:
    i = _position(spec.skills, name, "skill")
    users = _done_users(spec, name)
    if users:
        raise EditRefused(f"`{name}` cannot be deleted: the goal of intent {', '.join(f'`{u}`' for u in users)} "
                          "is to run it. Change those intents first.")
    return spec.model_copy(update={"skills": spec.skills[:i] + spec.skills[i + 1:]})


def _skill_modes(spec: CatalogSpec, skill: str, modes: tuple[Mode, ...]) -> CatalogSpec:
    i = _position(spec.skills, skill, "skill")
    skill_row = spec.skills[i].model_copy(update={"modes": modes})
    return spec.model_copy(update={"skills": _replace(spec.skills, i, skill_row)})


def _mode_at(spec: CatalogSpec, skill: str, index: int) -> tuple[Skill, Mode]:
    found = spec.skills[_position(spec.skills, skill, "skill")]
    if not 0 <= index < len(found.modes):
        raise UnknownName(f"mode of skill '{skill}'", str(index + 1), [str(k) for k in range(1, len(found.modes) + 1)])
    return found, found.modes[index]


def mode_added(
    spec: CatalogSpec, *, skill: str, name: str | None = None, inputs: tuple[str, ...] = (),
    outputs: tuple[str, ...] = (), failure: bool = True,
) -> CatalogSpec:
    s = _position(spec.skills, skill, "skill")
    found = spec.skills[s]
    m = len(found.modes)
    _check_new_names(inputs, f"skills[{s}].modes[{m}].inputs", "inputs")
    _check_new_names(outputs, f"skills[{s}].modes[{m}].outcomes[0].outputs", "outputs")
    outcomes = (Outcome(name="success", outputs=tuple(outputs)),) + ((Outcome(name="failure"),) if failure else ())
    mode = Mode(name=name or None, inputs=tuple(inputs), outcomes=outcomes)
    spec = _with_elements(spec, inputs, outputs)
    return _skill_modes(spec, skill, found.modes + (mode,))


def mode_updated(
    spec: CatalogSpec, *, skill: str, index: int, name: str | None = None, inputs: tuple[str, ...] = ()
) -> CatalogSpec:
    found, mode = _mode_at(spec, skill, index)
    s = _position(spec.skills, skill, "skill")
    _check_new_names(inputs, f"skills[{s}].modes[{index}].inputs", "inputs")
    old_name = found.mode_names()[index]
    spec = _with_elements(spec, inputs, ())
    spec = _skill_modes(spec, skill, _replace(found.modes, index, mode.model_copy(
        update={"name": name or None, "inputs": tuple(inputs)})))
    new_name = spec.skill(skill).mode_names()[index]
    return _rename_done(spec, skill, skill, old_name, new_name) if new_name != old_name else spec


def mode_removed(spec: CatalogSpec, *, skill: str, index: int) -> CatalogSpec:
    found, _ = _mode_at(spec, skill, index)
    if len(found.modes) == 1:
        raise EditRefused(f"`{skill}` has only this mode, and a skill needs at least one: delete the skill instead")
    mode_name = found.mode_names()[index]
    users = _done_users(spec, skill, mode_name)
    if users:
        raise EditRefused(f"mode `{mode_name}` of `{skill}` cannot be deleted: the goal of intent "
                          f"{', '.join(f'`{u}`' for u in users)} is to run it")
    # Unnamed modes are called by position (m1, m2...): deleting one renames those after it.
    renumbered = {f"{skill}.{n}" for k, n in enumerate(found.mode_names()) if k > index and not found.modes[k].name}
    users = [t.name for t in spec.intents if renumbered.intersection(t.goal.done)]
    if users:
        raise EditRefused(f"deleting mode `{mode_name}` would renumber the modes after it, which the goal of intent "
                          f"{', '.join(f'`{u}`' for u in users)} names: give those modes names first")
    return _skill_modes(spec, skill, found.modes[:index] + found.modes[index + 1:])


def outcome_added(
    spec: CatalogSpec, *, skill: str, mode: int, name: str, outputs: tuple[str, ...] = ()
) -> CatalogSpec:
    found, current = _mode_at(spec, skill, mode)
    s = _position(spec.skills, skill, "skill")
    _check_new_names(outputs, f"skills[{s}].modes[{mode}].outcomes[{len(current.outcomes)}].outputs", "outputs")
    spec = _with_elements(spec, (), outputs)
    changed = current.model_copy(update={"outcomes": current.outcomes + (Outcome(name=name, outputs=tuple(outputs)),)})
    return _skill_modes(spec, skill, _replace(found.modes, mode, changed))


def outcome_updated(
    spec: CatalogSpec, *, skill: str, mode: int, index: int, name: str, outputs: tuple[str, ...] = ()
) -> CatalogSpec:
    found, current = _mode_at(spec, skill, mode)
    if not 0 <= index < len(current.outcomes):
        raise UnknownName("outcome", str(index + 1))
    s = _position(spec.skills, skill, "skill")
    _check_new_names(outputs, f"skills[{s}].modes[{mode}].outcomes[{index}].outputs", "outputs")
    spec = _with_elements(spec, (), outputs)
    outcomes = _replace(current.outcomes, index, Outcome(name=name, outputs=tuple(outputs)))
    return _skill_modes(spec, skill, _replace(found.modes, mode, current.model_copy(update={"outcomes": outcomes})))


def outcome_removed(spec: CatalogSpec, *, skill: str, mode: int, index: int) -> CatalogSpec:
    found, current = _mode_at(spec, skill, mode)
    if not 0 <= index < len(current.outcomes):
        raise UnknownName("outcome", str(index + 1))
    if len(current.outcomes) == 1:
        raise EditRefused("a mode needs at least one outcome: add another before deleting this one")
    outcomes = current.outcomes[:index] + current.outcomes[index + 1:]
    return _skill_modes(spec, skill, _replace(found.modes, mode, current.model_copy(update={"outcomes": outcomes})))


# --- intents and settings -------------------------------------------------------------------------


def intent_added(
    spec: CatalogSpec, *, name: str, description: str = "", examples: tuple[str, ...] = (),
    goal_known: tuple[str, ...] = (), goal_done: tuple[str, ...] = (), extensions: tuple[str, ...] = (),
) -> CatalogSpec:
    intent = Intent.model_validate({"name": name, "description": description, "examples": examples,
                                    "goal": {"known": goal_known, "done": goal_done}, "extensions": extensions})
    spec = _with_goal_elements(spec, goal_known, f"intents[{len(spec.intents)}].goal.known")
    return spec.model_copy(update={"intents": spec.intents + (intent,)})


def _with_goal_elements(spec: CatalogSpec, known: Iterable[str], path: str) -> CatalogSpec:
    """A goal naming an element the catalog lacks: the element is made (the studio asks the analyst first),
    as something a skill finds out rather than something the user is asked for, as a new output is."""
    known = tuple(known)
    _check_new_names(known, path, "goal_known")
    return _with_elements(spec, (), known)


def intent_updated(spec: CatalogSpec, *, name: str, new_name: str | None = None, **changes: Any) -> CatalogSpec:
    """Change the given fields of an intent; a new name is carried to the follow-ups that offer it."""
    _only(changes, ("description", "examples", "goal_known", "goal_done", "extensions"))
    i = _position(spec.intents, name, "intent")
    renamed = new_name or name
    if renamed != name and renamed in {t.name for t in spec.intents}:
        raise EditRefused(f"there is already an intent named '{renamed}'", path="name")
    current = spec.intents[i]
    if "goal_known" in changes:
        spec = _with_goal_elements(spec, changes["goal_known"], f"intents[{i}].goal.known")
    goal = current.goal.model_copy(update={
        "known": tuple(changes.pop("goal_known", current.goal.known)),
        "done": tuple(changes.pop("goal_done", current.goal.done)),
    })
    values = {k: tuple(v) if isinstance(v, list | tuple) else v for k, v in changes.items()}
    intents = _replace(spec.intents, i, current.model_copy(update={**values, "name": renamed, "goal": goal}))
    if renamed != name:  # follow-ups that offered the old name now offer the new one
        intents = tuple(
            t.model_copy(update={"extensions": tuple(renamed if x == name else x for x in t.extensions)})
            for t in intents
        )
    return spec.model_copy(update={"intents": intents})


def intent_removed(spec: CatalogSpec, *, name: str) -> CatalogSpec:
    i = _position(spec.intents, name, "intent")
    users = [t.name for t in spec.intents if name in t.extensions and t.name != name]
    if users:
        raise EditRefused(f"`{name}` cannot be deleted: it is offered after {', '.join(f'`{u}`' for u in users)}. "
                          "Remove it from their follow-ups first.")
    return spec.model_copy(update={"intents": spec.intents[:i] + spec.intents[i + 1:]})


def settings_updated(spec: CatalogSpec, **changes: Any) -> CatalogSpec:
    """Change the given catalog settings: title, description, privacy, cost_skill, cost_ask, cost_authorize."""
    _only(changes, ("title", "description", "privacy", "cost_skill", "cost_ask", "cost_authorize"))
    costs = spec.costs.model_copy(update={
        kind: changes.pop(f"cost_{kind}") for kind in ("skill", "ask", "authorize") if f"cost_{kind}" in changes
    })
    return spec.model_copy(update={**changes, "costs": costs})


def tools_added(
    spec: CatalogSpec, *, proposal: Proposal, skills: Iterable[str], replace: dict[str, str] | None = None
) -> CatalogSpec:
    """The reviewed part of a tool import: the chosen skills and the elements they need."""
    chosen = list(skills)
    if not chosen:
        raise EditRefused("choose at least one skill to add", path="skills")
    return apply_proposal(spec, proposal, chosen, replace)


# --- roles and promotion --------------------------------------------------------------------------


@transaction.atomic
def version_promote_checked(*, version: CatalogVersion, user: AbstractBaseUser) -> CatalogVersion:
    """Promote a draft for `user`: only an admin of the workspace may, and only if every intent has a plan.

    Checked, then done, in one transaction with the draft locked: no edit can slip in between the
    check and the promotion (`services.version_promote`).
    """
    check_allowed(user, version.catalog.workspace, Action.VERSION_PROMOTE)
    version = version_check_editable(version=version)
    refusal = promotion_refusal(version=version, live=version_newest_promoted(catalog=version.catalog))
    if refusal:
        raise EditRefused(refusal)
    spec = version_spec(version=version)
    blocked = [item for item in lint_catalog(spec) if item.kind == "unreachable_intent"]
    if blocked:
        raise EditRefused("every intent needs a plan before promotion: " + " ".join(i.message for i in blocked))
    gated = gate_problems(version=version, spec=spec)
    if gated:
        raise EditRefused("promotion is gated: " + " ".join(gated))
    return version_promote(version=version, user=user)
