"""Studio pages (htmx, login required): read a catalog, edit its draft with live previews, draw it,
manage its versions and import skills from tool specs.

A page asked for by htmx renders only its `page` fragment (or the fragment the request targets),
so a version switch or an intent choice swaps part of the page instead of reloading it. Every
edit is a POST handled by `studio_edit`: the form checks its fields, `catalog_app.editing`
checks and saves the changed spec, and the editor comes back with the previews told to refresh.
With `_validate=<field>` the same POST only checks, for validation as the analyst types.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import trigger_client_event
from django_htmx.middleware import HtmxDetails

from catalog_app.planning import goal_problem_pddl, spec_planner, version_domain_pddl, version_plans
from orchestrator.engine.catalog import spec as schema
from orchestrator.engine.catalog.diff import diff_catalogs
from orchestrator.engine.catalog.graph import GraphUnavailable, catalog_graph, plan_highlight, render_svg
from orchestrator.engine.catalog.lint import LintItem, lint_catalog
from orchestrator.engine.catalog.spec_io import MEDIA_TYPES, dump_catalog, load_catalog
from orchestrator.engine.catalog.suggest import did_you_mean, normalize, search_elements
from orchestrator.engine.catalog.toolspec import Proposal, load_tools, propose
from orchestrator.engine.errors import ConcertoError, Issue, SpecError, UnknownName
from orchestrator.engine.planning.compile import intent_goal
from orchestrator.engine.planning.pddl import domain_text, problem_text
from orchestrator.engine.planning.planner import Unsolvable
from orchestrator.engine.runtime.replies import Wording

from . import editing
from . import forms as studio_forms
from .access import page_version_context, page_workspace
from .models import Catalog, CatalogVersion, Role, Workspace
from .selectors import (
    catalog_get,
    catalog_list,
    version_get,
    version_latest,
    version_live,
    version_spec,
    workspace_role,
)
from .services import catalog_create, catalog_import, version_create_draft

CHANGED = "catalog-changed"  # the htmx event that tells the previews to refresh


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


@dataclass
class ElementNode:
    element: schema.Element
    children: list[ElementNode] = field(default_factory=list)
    form: forms.Form | None = None
    asked: str = ""  # how the assistant asks for it, as the user will read it
    named: str = ""  # how a sentence names it


# --- reading pages --------------------------------------------------------------------------------


@require_GET
@login_required
def catalog_list_page(request: HtmxHttpRequest) -> HttpResponse:
    rows = [
        {"catalog": c, "latest": version_latest(catalog=c), "live": version_live(catalog=c)}
        for c in catalog_list(workspace=page_workspace(request))
    ]
    context = {"rows": rows, "new_form": studio_forms.NewCatalogForm(prefix="new"),
               "import_form": studio_forms.UploadForm(prefix="import")}
    return render(request, "catalog_app/catalog_list.html", context)


@require_GET
@login_required
@vary_on_headers("HX-Request")
def catalog_detail_page(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    context = page_version_context(request, slug, "detail")
    spec: schema.CatalogSpec = context["spec"]
    context["tree"] = _element_tree(spec.elements)
    context["skills"] = [(skill, list(zip(skill.mode_names(), skill.modes, strict=True))) for skill in spec.skills]
    return _render(request, "catalog_app/catalog_detail.html", context)


@require_GET
@login_required
@vary_on_headers("HX-Request", "HX-Target")
def version_pddl_page(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    context = page_version_context(request, slug, "pddl")
    intent = request.GET.get("intent", "")
    context["intent"] = intent
    if intent:
        try:
            goal = intent_goal(context["spec"], intent)
        except UnknownName as exc:
            raise Http404(str(exc)) from exc
        context["problem"] = goal_problem_pddl(version=context["version"], goal=goal, name=intent)
    if request.htmx.target == "problem":
        return render(request, "catalog_app/version_pddl.html#problem", context)
    context["domain"] = version_domain_pddl(version=context["version"])
    return _render(request, "catalog_app/version_pddl.html", context)


@require_GET
@login_required
@vary_on_headers("HX-Request")
def version_plans_page(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    context = page_version_context(request, slug, "plans")
    plans = version_plans(version=context["version"])
    context["plans"] = [(intent, plans[intent.name]) for intent in context["spec"].intents]
    return _render(request, "catalog_app/version_plans.html", context)


# --- catalogs: create and import ------------------------------------------------------------------


@require_POST
@login_required
def catalog_create_view(request: HtmxHttpRequest) -> HttpResponse:
    workspace = page_workspace(request)
    form = studio_forms.NewCatalogForm(request.POST, prefix="new")
    if form.is_valid():
        try:
            version = catalog_create(workspace=workspace, slug=form.cleaned_data["slug"],
                                     title=form.cleaned_data["title"].strip(), user=request.user)
        except SpecError as exc:
            form.add_error("slug", exc.issues[0].message)
        else:
            messages.success(request, f"Catalog {version.catalog.slug} created. Start with its elements or a skill.")
            return _redirect(request, reverse("catalog:edit", args=[version.catalog.slug]))
    return _list_with_errors(request, workspace, new_form=form)


@require_POST
@login_required
def catalog_import_view(request: HtmxHttpRequest) -> HttpResponse:
    """A YAML or JSON catalog file becomes a new draft: of its catalog if it exists, else of a new one."""
    workspace = page_workspace(request)
    form = studio_forms.UploadForm(request.POST, request.FILES, prefix="import")
    issues: list[Issue] = []
    if form.is_valid():
        content, filename = form.content()
        try:
            spec = load_catalog(content, None, filename)
            expected = request.POST.get("catalog", "")
            if expected and spec.catalog != expected:
                raise SpecError([Issue("catalog", f"this file is catalog '{spec.catalog}', not '{expected}'")])
            version = catalog_import(workspace=workspace, spec=spec, user=request.user, note="imported in the studio")
        except SpecError as exc:
            issues = exc.issues
        else:
            messages.success(request, f"Imported {version.catalog.slug} as version {version.number} (draft).")
            return _redirect(request, reverse("catalog:edit", args=[version.catalog.slug]))
    if request.POST.get("catalog"):
        context = _versions_context(request, request.POST["catalog"])
        context.update(import_form=form, import_issues=issues)
        return render(request, "catalog_app/versions.html", context, status=422)
    return _list_with_errors(request, workspace, import_form=form, import_issues=issues)


def _list_with_errors(request: HtmxHttpRequest, workspace: Workspace, **forms_: Any) -> HttpResponse:
    rows = [
        {"catalog": c, "latest": version_latest(catalog=c), "live": version_live(catalog=c)}
        for c in catalog_list(workspace=workspace)
    ]
    context = {"rows": rows, "new_form": studio_forms.NewCatalogForm(prefix="new"),
               "import_form": studio_forms.UploadForm(prefix="import"), **forms_}
    return render(request, "catalog_app/catalog_list.html", context, status=422)


# --- the editor -----------------------------------------------------------------------------------


@require_GET
@login_required
@vary_on_headers("HX-Request")
def editor_page(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    context = page_version_context(request, slug, "edit")
    context.update(_editor_context(request, context), **_preview_context(context, request.GET.get("intent", "")))
    return _render(request, "catalog_app/editor.html", context)


@require_GET
@login_required
def preview_fragment(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """The previews beside the editor: plans, problems to fix and PDDL, for `?intent=` too."""
    context = page_version_context(request, slug, "edit")
    context.update(_preview_context(context, request.GET.get("intent", "")))
    return render(request, "catalog_app/editor.html#preview", context)


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


@require_POST
@login_required
def studio_edit(request: HtmxHttpRequest, slug: str, number: int, op: str, **target: Any) -> HttpResponse:
    context = page_version_context(request, slug, "edit", number)
    edit = EDITS[op](request, context["spec"], **target)
    if "_validate" in request.POST:
        return _feedback(request, context, edit, request.POST["_validate"])
    if not context["version"].is_draft:
        messages.error(request, f"Version {context['version'].number} is promoted and cannot change: "
                                "create a draft from it to edit.")
    elif edit.form.is_valid():
        before = context["spec"]
        try:
            after = editing.version_edit(version=context["version"],
                                         change=partial(edit.change, **edit.fixed, **edit.form.spec_values()))
        except SpecError as exc:
            _place_issues(edit, exc.issues)
        except ConcertoError as exc:
            edit.form.add_error(getattr(exc, "field", "") or None, readable(str(exc)))
        else:
            messages.success(request, readable(edit.done))
            _warn_broken(request, before, after)
            return _after_edit(request, slug, number, edit.anchor)
    context.update(_editor_context(request, context, edit))
    if request.htmx:
        return render(request, "catalog_app/editor.html#editor", context, status=422)
    context.update(_preview_context(context, ""))
    return render(request, "catalog_app/editor.html", context, status=422)


def _after_edit(request: HtmxHttpRequest, slug: str, number: int, anchor: str) -> HttpResponse:
    """The editor of the version just edited (not the latest one: an older draft may be open)."""
    if not request.htmx:
        return redirect(f"{reverse('catalog:edit', args=[slug])}#{anchor}")
    context = page_version_context(request, slug, "edit", number)
    context.update(_editor_context(request, context))
    response = render(request, "catalog_app/editor.html#editor", context)
    return trigger_client_event(response, CHANGED)


def _warn_broken(request: HttpRequest, before: schema.CatalogSpec, after: schema.CatalogSpec) -> None:
    """Say at once when a change leaves an intent without a plan, and why."""
    was = {i.subject for i in lint_catalog(before) if i.kind == "unreachable_intent"}
    for item in lint_catalog(after):
        if item.kind == "unreachable_intent" and item.subject not in was:
            messages.warning(request, readable(f"This change broke an intent. {item.message}"))


def _place_issues(edit: Edit, issues: list[Issue]) -> None:
    for issue in issues:
        edit.form.add_error(_field_for(edit, issue), readable(issue.message))


def _field_for(edit: Edit, issue: Issue) -> str | None:
    """The form field an engine issue is about, or None for the form as a whole."""
    fields = edit.form.fields
    if issue.path.startswith(edit.where + ".") or issue.path == edit.where:
        rest = re.sub(r"\[\d+\]", "", issue.path[len(edit.where) + 1:])
        name = SPEC_FIELDS.get(rest, rest)
        if name in fields:
            return name
    if "cycle" in issue.message and "parent" in fields:
        return "parent"
    return None


def _feedback(request: HtmxHttpRequest, context: dict, edit: Edit, name: str) -> HttpResponse:
    """Errors and hints for one field, from the form and from a dry run of the change."""
    form = edit.form
    if name not in form.fields:
        raise Http404(f"no field '{name}'")
    if form.is_valid():
        try:
            editing.edit_check(context["spec"], partial(edit.change, **edit.fixed, **form.spec_values()))
        except SpecError as exc:
            _place_issues(edit, exc.issues)
        except ConcertoError as exc:
            form.add_error(getattr(exc, "field", "") or None, readable(str(exc)))
    bound = form[name]
    value = bound.value() or ""
    hints, matches = _hints(edit, name, value if isinstance(value, str) else "")
    return render(request, "catalog_app/editor.html#feedback", {
        "errors": form.errors.get(name, []), "hints": hints, "matches": matches, "input_id": bound.auto_id,
        "slug": context["catalog"].slug,
    })


def _hints(edit: Edit, name: str, value: str) -> tuple[list[dict], list[str]]:
    """"Did you mean" for each unknown name typed, and completions of the name being typed."""
    candidates = edit.candidates.get(name)
    if candidates is None:
        return [], []
    if not isinstance(edit.form.fields[name], studio_forms.NamesField):  # a new thing's own name
        text = value.strip()
        close = did_you_mean(text, candidates)
        hints = [{"token": text, "choices": close, "existing": True}] if close else []
        if text and normalize(text) != text:  # `Credit Score` -> offer `credit_score`
            hints.append({"token": text, "choices": [normalize(text)], "existing": False})
        return hints, []
    tokens = [t for t in re.split(r"[\s,]+", value) if t]
    hints = [{"token": t, "choices": did_you_mean(t, candidates)} for t in tokens if t not in candidates]
    hints = [h for h in hints if h["choices"]]
    last = "" if not tokens or value[-1:] in (",", " ") else tokens[-1]
    offered = {c for h in hints for c in h["choices"]}
    matches = [c for c in _completions(last, candidates) if c not in tokens and c not in offered] if last else []
    return hints, matches[:8]


def _completions(text: str, names: list[str]) -> list[str]:
    pool = [schema.Element(name=n) for n in names]
    return [e.name for e in search_elements(text, pool, limit=8)]


# --- the edits the editor's forms make ------------------------------------------------------------


def _element_edit(request: HttpRequest, spec: schema.CatalogSpec, name: str | None = None) -> Edit:
    if name is None:
        form = studio_forms.ElementForm(request.POST, prefix="new-element", spec=spec)
        i = len(spec.elements)
        return Edit(form, editing.element_added, f"elements[{i}]", "Element added.", "elements",
                    candidates={"name": [e.name for e in spec.elements]})
    i = _index(spec.elements, name, "element")
    form = studio_forms.ElementForm(request.POST, prefix=f"element-{name}", spec=spec, current=name)
    edit = Edit(form, _renaming(editing.element_updated, name), f"elements[{i}]", f"Element {name} saved.",
                f"element-{name}")
    return edit


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
    i = _index(spec.skills, name, "skill")
    form = studio_forms.SkillForm(request.POST, prefix=f"skill-{name}")
    return Edit(form, _renaming(editing.skill_updated, name), f"skills[{i}]", f"Skill {name} saved.", f"skill-{name}")


def _mode_edit(request: HttpRequest, spec: schema.CatalogSpec, skill: str, mode: int | None = None) -> Edit:
    i = _index(spec.skills, skill, "skill")
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
    i = _index(spec.skills, skill, "skill")
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
    i = _index(spec.intents, name, "intent")
    form = studio_forms.IntentForm(request.POST, prefix=f"intent-{name}")
    return Edit(form, _renaming(editing.intent_updated, name), f"intents[{i}]", f"Intent {name} saved.",
                f"intent-{name}", candidates=candidates)


def _settings_edit(request: HttpRequest, spec: schema.CatalogSpec) -> Edit:
    form = studio_forms.SettingsForm(request.POST, prefix="settings")
    return Edit(form, editing.settings_updated, "", "Settings saved.", "settings")


class _NoFields(studio_forms.StudioForm):
    """A delete button's form: nothing to fill in."""


def _delete(change: Callable[..., schema.CatalogSpec], what: str, anchor: str) -> Callable[..., Edit]:
    def build(request: HttpRequest, spec: schema.CatalogSpec, **target: Any) -> Edit:
        described = " ".join(str(v) for v in target.values())
        return Edit(_NoFields(request.POST), change, "", f"{what} {described} deleted.", anchor, fixed=target)

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


# --- what the editor shows ------------------------------------------------------------------------


@dataclass
class ModePanel:
    index: int
    name: str
    mode: schema.Mode
    form: forms.Form
    outcomes: list[tuple[int, schema.Outcome, forms.Form]]
    new_outcome: forms.Form


    @property
    def open(self) -> bool:
        forms_ = [self.form, self.new_outcome, *(form for _, _, form in self.outcomes)]
        return any(getattr(form, "open", False) for form in forms_)


@dataclass
class SkillPanel:
    skill: schema.Skill
    form: forms.Form
    modes: list[ModePanel]
    new_mode: forms.Form


def _editor_context(request: HttpRequest, context: dict, failed: Edit | None = None) -> dict:
    """Every form of the editor, unbound, except the one that just failed (bound, with its errors)."""
    spec: schema.CatalogSpec = context["spec"]
    version: CatalogVersion = context["version"]
    slug, number = context["catalog"].slug, version.number
    bound = {failed.form.prefix: failed.form} if failed and failed.form.prefix else {}

    def url(name: str, *args: Any) -> str:
        return reverse(f"catalog:{name}", args=[slug, number, *args])

    def made(prefix: str, build: Callable[[], forms.Form], action: str) -> forms.Form:
        form = bound.get(prefix) or build()
        form.action = action  # type: ignore[attr-defined]
        form.open = prefix in bound  # type: ignore[attr-defined]
        if version.is_draft:
            _live(form, action)
        return form

    def element_form(e: schema.Element) -> forms.Form:
        return made(f"element-{e.name}", lambda: studio_forms.ElementForm(
            prefix=f"element-{e.name}", spec=spec, current=e.name,
            initial=studio_forms.ElementForm.initial_for(e)), url("element_update", e.name))

    tree = _element_tree(spec.elements, element_form)
    skills = [_skill_panel(skill, made, url) for skill in spec.skills]
    intents = [
        (t, made(f"intent-{t.name}", lambda t=t: studio_forms.IntentForm(prefix=f"intent-{t.name}", initial={
            "name": t.name, "description": t.description, "examples": t.examples, "goal_known": t.goal.known,
            "goal_done": t.goal.done, "extensions": t.extensions}), url("intent_update", t.name)))
        for t in spec.intents
    ]
    settings = made("settings", lambda: studio_forms.SettingsForm(prefix="settings", initial={
        "title": spec.title, "description": spec.description, "privacy": spec.privacy,
        "cost_skill": spec.costs.skill, "cost_ask": spec.costs.ask, "cost_authorize": spec.costs.authorize,
    }), url("settings_update"))
    return {
        "tree": tree,
        "skill_panels": skills,
        "intent_forms": intents,
        "settings_form": settings,
        "new_element": made("new-element", lambda: studio_forms.ElementForm(prefix="new-element", spec=spec),
                            url("element_add")),
        "new_skill": made("new-skill", lambda: studio_forms.NewSkillForm(prefix="new-skill"), url("skill_add")),
        "new_intent": made("new-intent", lambda: studio_forms.IntentForm(prefix="new-intent"), url("intent_add")),
        # A delete button has no form of its own to show its refusal in: it goes on top.
        "failed_errors": failed.form.non_field_errors() if failed and not failed.form.prefix else [],
    }


def _skill_panel(skill: schema.Skill, made: Callable[..., forms.Form], url: Callable[..., str]) -> SkillPanel:
    name = skill.name
    form = made(f"skill-{name}", lambda: studio_forms.SkillForm(prefix=f"skill-{name}", initial={
        "name": name, "description": skill.description, "endpoint": skill.endpoint,
        "max_retries": skill.max_retries, "cost": skill.cost, "changes_world": skill.effects == "world"}),
        url("skill_update", name))
    modes = []
    for k, (mode_name, mode) in enumerate(zip(skill.mode_names(), skill.modes, strict=True)):
        mode_form = made(f"mode-{name}-{k}", lambda k=k, mode=mode: studio_forms.ModeForm(
            prefix=f"mode-{name}-{k}", initial={"name": mode.name or "", "inputs": mode.inputs}),
            url("mode_update", name, k))
        outcomes = [
            (j, o, made(f"outcome-{name}-{k}-{j}", lambda k=k, j=j, o=o: studio_forms.OutcomeForm(
                prefix=f"outcome-{name}-{k}-{j}", initial={"name": o.name, "outputs": o.outputs}),
                url("outcome_update", name, k, j)))
            for j, o in enumerate(mode.outcomes)
        ]
        new_outcome = made(f"new-outcome-{name}-{k}", lambda k=k: studio_forms.OutcomeForm(
            prefix=f"new-outcome-{name}-{k}"), url("outcome_add", name, k))
        modes.append(ModePanel(k, mode_name, mode, mode_form, outcomes, new_outcome))
    new_mode = made(f"new-mode-{name}", lambda: studio_forms.NewModeForm(prefix=f"new-mode-{name}"),
                    url("mode_add", name))
    return SkillPanel(skill, form, modes, new_mode)


def _live(form: forms.Form, action: str) -> None:
    """Validate each field as it is typed: its input posts the form with `_validate` set."""
    for name, bound in form.fields.items():
        widget = bound.widget
        if isinstance(widget, forms.HiddenInput | forms.FileInput):
            continue
        auto_id = form[name].auto_id
        choice = isinstance(widget, forms.CheckboxInput | forms.Select | forms.RadioSelect)
        widget.attrs.update({
            "hx-post": action,
            "hx-trigger": "change" if choice else "input changed delay:350ms, change",
            "hx-target": f"#{auto_id}-feedback",
            "hx-swap": "innerHTML",
            "hx-include": "closest form",
            "hx-vals": f'{{"_validate": "{name}"}}',
            "hx-sync": "closest form:abort",
            "aria-describedby": f"{auto_id}_helptext {auto_id}-feedback" if bound.help_text else f"{auto_id}-feedback",
        })


def _preview_context(context: dict, intent: str) -> dict:
    """Plans, lint and PDDL of the version shown, all from the one spec read for this request.

    Reading the version again for each part could mix two states of a draft that is being
    edited at the same moment; one spec and its (cached) planner cannot disagree.
    """
    spec: schema.CatalogSpec = context["spec"]
    version: CatalogVersion = context["version"]
    plans: dict[str, Any] = {}
    plan_error = ""
    try:
        planner = spec_planner(spec)
        plans = {t.name: planner.plan(t.goal) for t in spec.intents}
        domain = version.compiled_domain or domain_text(planner.domain)
    except ConcertoError as exc:
        plan_error, domain = str(exc), ""
    intent = intent if intent in {t.name for t in spec.intents} else (spec.intents[0].name if spec.intents else "")
    problem = problem_text(planner.domain, spec.intent(intent).goal, name=intent) if intent and not plan_error else ""
    return {
        "plans": [(t, plans.get(t.name)) for t in spec.intents],
        "plan_error": plan_error,
        "lint": [(item, _lint_anchor(spec, item), readable(item.message)) for item in lint_catalog(spec)],
        "domain": domain,
        "problem": problem,
        "problem_intent": intent,
        "preview_url": f"{reverse('catalog:preview', args=[context['catalog'].slug])}?version={version.number}",
    }


def _lint_anchor(spec: schema.CatalogSpec, item: LintItem) -> str:
    """The id of the card to fix a lint item in: `skill-credit_check`, `element-ssn`, `intent-apply_loan`."""
    match = re.match(r"(elements|skills|intents)\[(\d+)\]", item.path)
    if not match:
        return "settings"
    kind, index = match.group(1), int(match.group(2))
    items = {"elements": spec.elements, "skills": spec.skills, "intents": spec.intents}[kind]
    return f"{kind[:-1]}-{items[index].name}"


# --- graph ----------------------------------------------------------------------------------------


@require_GET
@login_required
@vary_on_headers("HX-Request")
def graph_page(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    context = page_version_context(request, slug, "graph")
    spec: schema.CatalogSpec = context["spec"]
    intent = request.GET.get("intent", "")
    highlight, result = None, None
    if intent:
        try:
            goal = intent_goal(spec, intent)
        except UnknownName as exc:
            raise Http404(str(exc)) from exc
        result = spec_planner(spec).plan(goal)
        highlight = plan_highlight(() if isinstance(result, Unsolvable) else result.steps, intent)
    try:
        svg, graph_error = render_svg(catalog_graph(spec, highlight), spec.catalog), ""
    except GraphUnavailable as exc:
        svg, graph_error = "", str(exc)
    context.update(intent=intent, result=result, svg=svg, graph_error=graph_error)
    if request.htmx and request.htmx.target == "graph":
        return render(request, "catalog_app/graph.html#graph", context)
    return _render(request, "catalog_app/graph.html", context)


# --- versions -------------------------------------------------------------------------------------


@require_GET
@login_required
@vary_on_headers("HX-Request")
def versions_page(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    context = _versions_context(request, slug)
    return _render(request, "catalog_app/versions.html", context)


def _versions_context(request: HttpRequest, slug: str) -> dict:
    context = page_version_context(request, slug, "versions")
    versions = list(context["versions"])
    context.update(
        is_admin=_is_admin(request, context["catalog"]),
        import_form=studio_forms.UploadForm(prefix="import"),
        diff_form=studio_forms.DiffForm(initial={
            "old": versions[1].number if len(versions) > 1 else versions[0].number, "new": versions[0].number}),
    )
    return context


@require_GET
@login_required
def version_diff_fragment(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    catalog = _catalog(request, slug)
    form = studio_forms.DiffForm(request.GET)
    changes, error = [], ""
    if form.is_valid():
        try:
            old = version_get(catalog=catalog, number=form.cleaned_data["old"])
            new = version_get(catalog=catalog, number=form.cleaned_data["new"])
        except UnknownName as exc:
            error = str(exc)
        else:
            changes = diff_catalogs(version_spec(version=old), version_spec(version=new))
    else:
        error = "Choose two versions."
    context = {"changes": changes, "diff_error": error, "diff_form": form, "catalog": catalog}
    status = 200 if not error else 422
    return render(request, "catalog_app/versions.html#diff", context, status=status)


@require_POST
@login_required
def version_draft_view(request: HtmxHttpRequest, slug: str, number: int) -> HttpResponse:
    """A new draft from any version: saving a copy, or rolling back to an older one."""
    context = page_version_context(request, slug, "versions", number)
    draft = version_create_draft(version=context["version"], user=request.user)
    messages.success(request, f"Version {draft.number} is a new draft with the content of version {number}.")
    return _redirect(request, reverse("catalog:edit", args=[slug]))


@require_POST
@login_required
def version_promote_view(request: HtmxHttpRequest, slug: str, number: int) -> HttpResponse:
    context = page_version_context(request, slug, "versions", number)
    try:  # the service checks the role: an analyst gets its NotAllowed as a 403
        version = editing.version_promote_checked(version=context["version"], user=request.user)
    except editing.NotAllowed as exc:
        raise PermissionDenied(str(exc)) from exc
    except ConcertoError as exc:
        messages.error(request, readable(f"Version {number} was not promoted: {exc}"))
    else:
        messages.success(request, f"Version {version.number} is promoted: it is what the live assistant runs, "
                                  "and it can no longer change.")
    return _redirect(request, reverse("catalog:versions", args=[slug]))


@require_GET
@login_required
def export_view(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    context = page_version_context(request, slug, "versions")
    fmt = request.GET.get("format", "yaml")
    if fmt not in MEDIA_TYPES:
        raise Http404(f"unknown format '{fmt}' (yaml or json)")
    version = context["version"]
    response = HttpResponse(dump_catalog(context["spec"], fmt), content_type=MEDIA_TYPES[fmt])
    response["Content-Disposition"] = f'attachment; filename="{slug}-v{version.number}.{fmt}"'
    return response


# --- tool specs -----------------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
@login_required
@vary_on_headers("HX-Request")
def tools_page(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """Import skills from an OpenAPI document or function specs: upload, review, then add."""
    context = page_version_context(request, slug, "tools")
    form = studio_forms.UploadForm(request.POST or None, request.FILES or None, prefix="tools")
    context.update(form=form, issues=[], proposal=None, document="")
    if request.method == "POST" and request.POST.get("step") == "add":
        return _tools_add(request, context)
    if request.method == "POST" and form.is_valid():
        content, filename = form.content()
        text = content.decode("utf-8", "replace") if isinstance(content, bytes) else content
        try:
            _review(context, propose(load_tools(content, filename), context["spec"]), text)
        except SpecError as exc:
            context["issues"] = exc.issues
    status = 422 if context["issues"] or form.errors else 200
    return _render(request, "catalog_app/tools.html", context, status=status)


def _tools_add(request: HtmxHttpRequest, context: dict) -> HttpResponse:
    """The reviewed import: the ticked skills, each new element kept or swapped for an existing one."""
    text = request.POST.get("document", "")
    proposal: Proposal | None = None
    try:
        proposal = propose(load_tools(text), context["spec"])
        chosen = {e.name: request.POST.get(f"use-{e.name}", "") for e in proposal.elements}
        replace = {name: existing for name, existing in chosen.items() if existing}
        change = partial(editing.tools_added, proposal=proposal, skills=request.POST.getlist("skills"),
                         replace=replace)
        editing.version_edit(version=context["version"], change=change)
    except SpecError as exc:
        context.update(issues=exc.issues, document=text)
    except ConcertoError as exc:
        context.update(issues=[Issue("", str(exc))], document=text)
    else:
        count = len(request.POST.getlist("skills"))
        messages.success(request, f"Added {count} skill{'s' if count != 1 else ''} from the tool specs.")
        return _redirect(request, reverse("catalog:edit", args=[context["catalog"].slug]) + "#skills")
    if proposal is not None:  # the document read: show the review again, with the refusal on top
        _review(context, proposal, text)
    else:
        context["proposal"] = None
    return _render(request, "catalog_app/tools.html", context, status=422)


def _review(context: dict, proposal: Proposal, text: str) -> None:
    context.update(proposal=proposal, document=text,
                   new_elements=[(e, proposal.suggestions.get(e.name, [])) for e in proposal.elements])


# --- helpers --------------------------------------------------------------------------------------


def readable(text: str) -> SafeString:
    """A message with its `names` shown as code: the engine's messages mark names with backquotes."""
    return mark_safe(re.sub(r"`([^`]+)`", r"<code>\1</code>", escape(text)))  # noqa: S308 - escaped first


def _render(request: HtmxHttpRequest, template: str, context: dict, status: int = 200) -> HttpResponse:
    # A history restore asks for the whole page: htmx had nothing cached to show.
    if request.htmx and not request.htmx.history_restore_request:
        template += "#page"
    return render(request, template, context, status=status)


def _redirect(request: HtmxHttpRequest, url: str) -> HttpResponse:
    """A redirect that htmx follows as a full page load, and a browser as usual."""
    if request.htmx:
        response = HttpResponse(status=204)
        response["HX-Redirect"] = url
        return response
    return redirect(url)


def _is_admin(request: HttpRequest, catalog: Catalog) -> bool:
    return workspace_role(user=request.user, workspace=catalog.workspace) == Role.ADMIN


def _catalog(request: HttpRequest, slug: str) -> Catalog:
    try:
        return catalog_get(workspace=page_workspace(request), slug=slug)
    except UnknownName as exc:
        raise Http404(str(exc)) from exc


def _index(items: tuple[Any, ...], name: str, kind: str) -> int:
    for i, item in enumerate(items):
        if item.name == name:
            return i
    raise Http404(f"unknown {kind} '{name}'")


def _element_tree(
    elements: tuple[schema.Element, ...], form_for: Callable[[schema.Element], forms.Form] | None = None
) -> list[ElementNode]:
    """The type tree as nested nodes, siblings in authored order, each with its form if asked."""
    words = Wording(schema.CatalogSpec(catalog="preview", elements=elements))
    nodes = {e.name: ElementNode(e, form=form_for(e) if form_for else None,
                                 asked=words.question(e.name) if e.askable else "",
                                 named=f"To continue I need to share {words.element(e.name)} with ...")
             for e in elements}
    roots = []
    for e in elements:
        (nodes[e.parent].children if e.parent in nodes else roots).append(nodes[e.name])
    return roots

