"""The editor's forms wired to the spec changes they make, and engine issues routed to form fields."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.http import HttpRequest

from orchestrator.engine.catalog import spec as schema
from orchestrator.engine.catalog.suggest import did_you_mean
from orchestrator.engine.errors import Issue

from .. import editing
from .. import forms as studio_forms
from .common import index_or_404, readable


@dataclass
class Edit:
    """One studio form wired to the spec change it makes."""

    form: studio_forms.StudioForm
    change: Callable[..., schema.CatalogSpec]  # an `editing.*ed` function
    where: str  # the spec path of the thing edited, to put the engine's messages by their field
    done: str  # what to tell the analyst afterwards
    anchor: str  # where the thing lives on the page
    fixed: dict[str, Any] = field(default_factory=dict)  # arguments that come from the URL, not the form
    candidates: dict[str, list[str]] = field(default_factory=dict)  # names the pickers offer, per field
    card: str = ""  # the card a form-less edit (a delete) is about, to show its refusal in


# Spec paths (indexes dropped) -> the form field that sets them.
SPEC_FIELDS = {
    "format": "format_detail",
    "modes.inputs": "inputs",
    "modes.outcomes.outputs": "outputs",
    "outcomes.outputs": "outputs",
    "goal": "goal_known",
    "goal.known": "goal_known",
    "goal.done": "goal_done",
    "costs.skill": "cost_skill",
    "costs.ask": "cost_ask",
    "costs.authorize": "cost_authorize",
    "max_retries": "max_retries",
}

# Issue codes -> the form field whose value causes them wherever the engine reports them.
CODE_FIELDS = {
    "type_cycle": "parent",  # reported on the element that closes the loop, caused by the one edited
}


def place_issues(edit: Edit, issues: list[Issue]) -> None:
    for issue in issues:
        edit.form.add_error(field_for(edit, issue), readable(issue.message))


def field_for(edit: Edit, issue: Issue) -> str | None:
    """The form field an engine issue is about, or None for the form as a whole."""
    fields = edit.form.fields
    if issue.path.startswith(edit.where + ".") or issue.path == edit.where:
        rest = re.sub(r"\[\d+\]", "", issue.path[len(edit.where) + 1:])
        name = SPEC_FIELDS.get(rest, rest)
        if name in fields:
            return name
    if issue.path in fields:  # an authoring refusal names the form's own field (`name`, `inputs`)
        return issue.path
    if CODE_FIELDS.get(issue.code) in fields:
        return CODE_FIELDS[issue.code]
    return None





NAME_FIELDS = ("inputs", "outputs", "goal_known")  # a new name typed here would become a new element


def unconfirmed_new_elements(edit: Edit, spec: schema.CatalogSpec, confirmed: str) -> list[dict[str, Any]]:
    """Names typed into inputs, outputs or a goal that are not elements and were not confirmed as new ones.

    A typo (`adress`) would otherwise become an element of its own, silently: each new name is
    put to the analyst first, with the existing names close to it. The list is also set on the
    form (`new_names`) and each field holding such a name gets an error, so the page shows both.
    """
    have = [e.name for e in spec.elements]
    known, agreed = set(have), set(re.split(r"[\s,]+", confirmed))
    found: list[dict[str, Any]] = []
    form = edit.form
    for field_name in NAME_FIELDS:
        if field_name not in form.fields:
            continue
        new = [n for n in form.cleaned_data.get(field_name, ()) if n not in known and n not in agreed]
        if not new:
            continue
        found += [{"name": n, "close": did_you_mean(n, have), "input_id": form[field_name].auto_id} for n in new]
        listed = ", ".join(f"`{n}`" for n in new)
        form.add_error(field_name, readable(f"Not an element yet: {listed}. Correct it, or confirm below "
                                            "that it is a new element."))
    form.new_names = found  # type: ignore[attr-defined]
    form.new_names_value = " ".join(item["name"] for item in found)  # type: ignore[attr-defined]
    return found


def _element_edit(request: HttpRequest, spec: schema.CatalogSpec, name: str | None = None) -> Edit:
    if name is None:
        form = studio_forms.ElementForm(request.POST, prefix="new-element", spec=spec)
        i = len(spec.elements)
        names = [e.name for e in spec.elements]
        return Edit(form, editing.element_added, f"elements[{i}]", "Element added.", "elements",
                    candidates={"name": names, "parent": names})
    i = index_or_404(spec.elements, name, "element")
    form = studio_forms.ElementForm(request.POST, prefix=f"element-{name}", spec=spec, current=name)
    return Edit(form, _renaming(editing.element_updated, name), f"elements[{i}]", f"Element {name} saved.",
                f"element-{name}", candidates={"parent": [e.name for e in spec.elements if e.name != name]})


def _renaming(change: Callable[..., schema.CatalogSpec], name: str) -> Callable[..., schema.CatalogSpec]:
    """An update whose form's `name` field is the new name of the thing called `name`."""

    def renamed(spec: schema.CatalogSpec, **values: Any) -> schema.CatalogSpec:
        return change(spec, **{**values, "name": name, "new_name": values.get("name") or name})

    return renamed


def _skill_edit(request: HttpRequest, spec: schema.CatalogSpec, name: str | None = None) -> Edit:
    elements = [e.name for e in spec.elements]
    if name is None:
        form = studio_forms.NewSkillForm(request.POST, prefix="new-skill")
        names = [s.name for s in spec.skills]
        return Edit(form, editing.skill_added, f"skills[{len(spec.skills)}]", "Skill added.", "skills",
                    candidates={"name": names, "inputs": elements, "outputs": elements})
    i = index_or_404(spec.skills, name, "skill")
    form = studio_forms.SkillForm(request.POST, prefix=f"skill-{name}")
    return Edit(form, _renaming(editing.skill_updated, name), f"skills[{i}]", f"Skill {name} saved.", f"skill-{name}")


def _mode_edit(request: HttpRequest, spec: schema.CatalogSpec, skill: str, mode: int | None = None) -> Edit:
    i = index_or_404(spec.skills, skill, "skill")
    elements = [e.name for e in spec.elements]
    if mode is None:
        form = studio_forms.NewModeForm(request.POST, prefix=f"new-mode-{skill}")
        where = f"skills[{i}].modes[{len(spec.skills[i].modes)}]"
        return Edit(form, editing.mode_added, where, f"Mode added to {skill}.", f"skill-{skill}",
                    fixed={"skill": skill}, candidates={"inputs": elements, "outputs": elements})
    form = studio_forms.ModeForm(request.POST, prefix=f"mode-{skill}-{mode}")
    return Edit(form, editing.mode_updated, f"skills[{i}].modes[{mode}]", f"Mode of {skill} saved.",
                f"skill-{skill}", fixed={"skill": skill, "index": mode}, candidates={"inputs": elements})


def _outcome_edit(
    request: HttpRequest, spec: schema.CatalogSpec, skill: str, mode: int, outcome: int | None = None
) -> Edit:
    i = index_or_404(spec.skills, skill, "skill")
    elements = [e.name for e in spec.elements]
    base = f"skills[{i}].modes[{mode}]"
    if outcome is None:
        count = len(spec.skills[i].modes[mode].outcomes) if mode < len(spec.skills[i].modes) else 0
        form = studio_forms.OutcomeForm(request.POST, prefix=f"new-outcome-{skill}-{mode}")
        return Edit(form, editing.outcome_added, f"{base}.outcomes[{count}]", f"Outcome added to {skill}.",
                    f"skill-{skill}", fixed={"skill": skill, "mode": mode}, candidates={"outputs": elements})
    form = studio_forms.OutcomeForm(request.POST, prefix=f"outcome-{skill}-{mode}-{outcome}")
    return Edit(form, editing.outcome_updated, f"{base}.outcomes[{outcome}]", f"Outcome of {skill} saved.",
                f"skill-{skill}", fixed={"skill": skill, "mode": mode, "index": outcome},
                candidates={"outputs": elements})


def _intent_edit(request: HttpRequest, spec: schema.CatalogSpec, name: str | None = None) -> Edit:
    candidates = {
        "goal_known": [e.name for e in spec.elements],
        "goal_done": _done_refs(spec),
        "extensions": [t.name for t in spec.intents],
    }
    if name is None:
        form = studio_forms.IntentForm(request.POST, prefix="new-intent")
        return Edit(form, editing.intent_added, f"intents[{len(spec.intents)}]", "Intent added.", "intents",
                    candidates={**candidates, "name": [t.name for t in spec.intents]})
    i = index_or_404(spec.intents, name, "intent")
    form = studio_forms.IntentForm(request.POST, prefix=f"intent-{name}")
    return Edit(form, _renaming(editing.intent_updated, name), f"intents[{i}]", f"Intent {name} saved.",
                f"intent-{name}", candidates=candidates)


def _settings_edit(request: HttpRequest, spec: schema.CatalogSpec) -> Edit:
    form = studio_forms.SettingsForm(request.POST, prefix="settings")
    return Edit(form, editing.settings_updated, "", "Settings saved.", "settings")


class _NoFields(studio_forms.StudioForm):
    """A delete button's form: nothing to fill in."""


def _delete(change: Callable[..., schema.CatalogSpec], what: str, anchor: str) -> Callable[..., Edit]:
    """A delete; a refusal is shown in the card it is about (`element-ssn`), after a success the section."""

    def build(request: HttpRequest, spec: schema.CatalogSpec, **target: Any) -> Edit:
        described = " ".join(str(v) for v in target.values())
        card = f"skill-{target['skill']}" if "skill" in target else f"{anchor[:-1]}-{target.get('name', '')}"
        return Edit(_NoFields(request.POST), change, "", f"{what} {described} deleted.", anchor, fixed=target,
                    card=card)

    return build


EDITS: dict[str, Callable[..., Edit]] = {
    "element_add": _element_edit,
    "element_update": _element_edit,
    "element_delete": _delete(editing.element_removed, "Element", "elements"),
    "skill_add": _skill_edit,
    "skill_update": _skill_edit,
    "skill_delete": _delete(editing.skill_removed, "Skill", "skills"),
    "mode_add": _mode_edit,
    "mode_update": _mode_edit,
    "mode_delete": _delete(editing.mode_removed, "Mode of skill", "skills"),
    "outcome_add": _outcome_edit,
    "outcome_update": _outcome_edit,
    "outcome_delete": _delete(editing.outcome_removed, "Outcome of skill", "skills"),
    "intent_add": _intent_edit,
    "intent_update": _intent_edit,
    "intent_delete": _delete(editing.intent_removed, "Intent", "intents"),
    "settings_update": _settings_edit,
}


def _done_refs(spec: schema.CatalogSpec) -> list[str]:
    refs = []
    for skill in spec.skills:
        refs.append(skill.name)
        if len(skill.modes) > 1:
            refs += [f"{skill.name}.{m}" for m in skill.mode_names()]
    return refs

