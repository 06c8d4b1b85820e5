"""What the editor shows: every card's form (the failed one bound), live validation, the previews."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django import forms
from django.http import HttpRequest
from django.urls import reverse

from catalog_app.planning import spec_planner
from orchestrator.engine.catalog import spec as schema
from orchestrator.engine.catalog.lint import LintItem, lint_catalog
from orchestrator.engine.errors import ConcertoError
from orchestrator.engine.planning.pddl import domain_text, problem_text

from .. import forms as studio_forms
from ..models import CatalogVersion
from .common import element_tree, readable
from .edits import Edit


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


class EditorForms:
    """Builds the editor's forms: each unbound with its card's values, except the one that just failed.

    A form knows where it posts (`action`), whether its card opens (`open`: it failed), and, on a
    draft, validates each field as it is typed.
    """

    def __init__(self, spec: schema.CatalogSpec, version: CatalogVersion, slug: str, failed: Edit | None):
        self.spec, self.version, self.slug = spec, version, slug
        self.bound = {failed.form.prefix: failed.form} if failed and failed.form.prefix else {}

    def url(self, name: str, *args: Any) -> str:
        return reverse(f"catalog:{name}", args=[self.slug, self.version.number, *args])

    def form(self, prefix: str, build: Callable[[], forms.Form], action: str) -> forms.Form:
        form = self.bound.get(prefix) or build()
        form.action = action  # type: ignore[attr-defined]
        form.open = prefix in self.bound  # type: ignore[attr-defined]
        if self.version.is_draft:
            _live(form, action)
        return form

    def element(self, e: schema.Element) -> forms.Form:
        prefix = f"element-{e.name}"
        return self.form(prefix, lambda: studio_forms.ElementForm(
            prefix=prefix, spec=self.spec, current=e.name, initial=studio_forms.ElementForm.initial_for(e)),
            self.url("element_update", e.name))

    def intent(self, t: schema.Intent) -> forms.Form:
        prefix = f"intent-{t.name}"
        initial = {"name": t.name, "description": t.description, "examples": t.examples,
                   "goal_known": t.goal.known, "goal_done": t.goal.done, "extensions": t.extensions}
        return self.form(prefix, lambda: studio_forms.IntentForm(prefix=prefix, initial=initial),
                         self.url("intent_update", t.name))

    def settings(self) -> forms.Form:
        spec = self.spec
        initial = {"title": spec.title, "description": spec.description, "privacy": spec.privacy,
                   "cost_skill": spec.costs.skill, "cost_ask": spec.costs.ask, "cost_authorize": spec.costs.authorize}
        return self.form("settings", lambda: studio_forms.SettingsForm(prefix="settings", initial=initial),
                         self.url("settings_update"))

    def skill_panel(self, skill: schema.Skill) -> SkillPanel:
        name = skill.name
        form = self.form(f"skill-{name}", lambda: studio_forms.SkillForm(prefix=f"skill-{name}", initial={
            "name": name, "description": skill.description, "endpoint": skill.endpoint,
            "max_retries": skill.max_retries, "cost": skill.cost}), self.url("skill_update", name))
        modes = [self._mode_panel(name, k, mode_name, mode)
                 for k, (mode_name, mode) in enumerate(zip(skill.mode_names(), skill.modes, strict=True))]
        new_mode = self.form(f"new-mode-{name}", lambda: studio_forms.NewModeForm(prefix=f"new-mode-{name}"),
                             self.url("mode_add", name))
        return SkillPanel(skill, form, modes, new_mode)

    def _mode_panel(self, skill: str, k: int, mode_name: str, mode: schema.Mode) -> ModePanel:
        prefix = f"mode-{skill}-{k}"
        form = self.form(prefix, lambda: studio_forms.ModeForm(
            prefix=prefix, initial={"name": mode.name or "", "inputs": mode.inputs}), self.url("mode_update", skill, k))
        outcomes = [(j, o, self._outcome(skill, k, j, o)) for j, o in enumerate(mode.outcomes)]
        new_prefix = f"new-outcome-{skill}-{k}"
        new_outcome = self.form(new_prefix, lambda: studio_forms.OutcomeForm(prefix=new_prefix),
                                self.url("outcome_add", skill, k))
        return ModePanel(k, mode_name, mode, form, outcomes, new_outcome)

    def _outcome(self, skill: str, k: int, j: int, o: schema.Outcome) -> forms.Form:
        prefix = f"outcome-{skill}-{k}-{j}"
        return self.form(prefix, lambda: studio_forms.OutcomeForm(
            prefix=prefix, initial={"name": o.name, "outputs": o.outputs}), self.url("outcome_update", skill, k, j))


def editor_context(request: HttpRequest, context: dict, failed: Edit | None = None) -> dict:
    """Every form of the editor, unbound, except the one that just failed (bound, with its errors)."""
    spec: schema.CatalogSpec = context["spec"]
    made = EditorForms(spec, context["version"], context["catalog"].slug, failed)
    return {
        "tree": element_tree(spec.elements, made.element),
        "skill_panels": [made.skill_panel(skill) for skill in spec.skills],
        "intent_forms": [(t, made.intent(t)) for t in spec.intents],
        "settings_form": made.settings(),
        "new_element": made.form("new-element", lambda: studio_forms.ElementForm(prefix="new-element", spec=spec),
                                 made.url("element_add")),
        "new_skill": made.form("new-skill", lambda: studio_forms.NewSkillForm(prefix="new-skill"),
                               made.url("skill_add")),
        "new_intent": made.form("new-intent", lambda: studio_forms.IntentForm(prefix="new-intent"),
                                made.url("intent_add")),
        # A delete button has no form of its own to show its refusal in: it goes on top.
        "failed_errors": failed.form.non_field_errors() if failed and not failed.form.prefix else [],
    }


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


def preview_context(context: dict, intent: str) -> dict:
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

