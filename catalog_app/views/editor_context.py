"""What the editor shows: a page of cards per section, forms built when opened, live validation, the previews."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from django import forms
from django.http import HttpRequest
from django.urls import reverse

from catalog_app.planning import spec_planner
from orchestrator.engine.analysis.plan_words import cost_words, step_sentence
from orchestrator.engine.catalog import spec as schema
from orchestrator.engine.catalog.lint import LintItem, lint_catalog
from orchestrator.engine.errors import ConcertoError
from orchestrator.engine.lru import Lru
from orchestrator.engine.planning.pddl import domain_text, problem_text
from orchestrator.engine.runtime.replies import Wording

from .. import forms as studio_forms
from .. import history
from ..models import CatalogVersion
from .common import ElementNode, element_tree, readable
from .edits import Edit

PAGE_SIZES = {"elements": 50, "skills": 20, "intents": 20}  # cards per page: the page stays small at any size


@dataclass
class ModePanel:
    index: int
    name: str
    mode: schema.Mode
    # The forms of the mode, its outcomes and a new outcome: built only for the one that just
    # failed (shown open, bound); the others are fetched when their card is opened.
    form: forms.Form | None = None
    outcomes: list[tuple[int, schema.Outcome, forms.Form | None]] = field(default_factory=list)
    new_outcome: forms.Form | None = None

    @property
    def open(self) -> bool:
        return self.form is not None


@dataclass
class SkillPanel:
    skill: schema.Skill
    modes: list[ModePanel]
    form: forms.Form | None = None
    new_mode: forms.Form | None = None


@dataclass
class Listing:
    """One page of a section's cards, after the analyst's search."""

    kind: str
    items: list[Any]
    total: int  # matching the search
    page: int
    pages: int
    query: str

    @property
    def numbers(self) -> list[int]:
        return list(range(1, self.pages + 1)) if self.pages <= 12 else _some_pages(self.page, self.pages)


def _some_pages(page: int, pages: int) -> list[int]:
    near = range(max(1, page - 2), min(pages, page + 2) + 1)
    return sorted({1, pages, *near})


class EditorForms:
    """Builds the editor's forms: each unbound with its card's values, except the one that just failed.

    A form knows where it posts (`action`), whether its card opens (`open`: it failed), and, on a
    draft, validates each field as it is typed. The page itself holds only the failed form and the
    "add" forms; a card's form is built when the analyst opens the card (`views.editor.card_form`).
    """

    def __init__(self, spec: schema.CatalogSpec, version: CatalogVersion, slug: str, failed: Edit | None = None):
        self.spec, self.version, self.slug = spec, version, slug
        self.bound = {failed.form.prefix: failed.form} if failed and failed.form.prefix else {}

    def url(self, name: str, *args: Any) -> str:
        return reverse(f"catalog:{name}", args=[self.slug, self.version.number, *args])

    def failed(self, *prefixes: str) -> bool:
        return any(prefix in self.bound for prefix in prefixes)

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

    def skill_form(self, skill: schema.Skill) -> forms.Form:
        name = skill.name
        return self.form(f"skill-{name}", lambda: studio_forms.SkillForm(prefix=f"skill-{name}", initial={
            "name": name, "description": skill.description, "endpoint": skill.endpoint,
            "max_retries": skill.max_retries, "cost": skill.cost, "changes_world": skill.effects == "world"}),
            self.url("skill_update", name))

    def new_mode(self, skill: schema.Skill) -> forms.Form:
        name = skill.name
        return self.form(f"new-mode-{name}", lambda: studio_forms.NewModeForm(prefix=f"new-mode-{name}"),
                         self.url("mode_add", name))

    def skill_panel(self, skill: schema.Skill) -> SkillPanel:
        """A skill's card: its forms only where one failed."""
        name = skill.name
        modes = []
        for k, (mode_name, mode) in enumerate(zip(skill.mode_names(), skill.modes, strict=True)):
            prefixes = [f"mode-{name}-{k}", f"new-outcome-{name}-{k}",
                        *(f"outcome-{name}-{k}-{j}" for j in range(len(mode.outcomes)))]
            panel = self.mode_panel(skill, k) if self.failed(*prefixes) else ModePanel(k, mode_name, mode)
            modes.append(panel)
        return SkillPanel(
            skill, modes,
            form=self.skill_form(skill) if self.failed(f"skill-{name}") else None,
            new_mode=self.new_mode(skill) if self.failed(f"new-mode-{name}") else None,
        )

    def mode_panel(self, skill: schema.Skill, k: int) -> ModePanel:
        """One mode of a skill with every form it needs: the mode's, each outcome's, a new outcome's."""
        name, mode = skill.name, skill.modes[k]
        prefix = f"mode-{name}-{k}"
        form = self.form(prefix, lambda: studio_forms.ModeForm(
            prefix=prefix, initial={"name": mode.name or "", "inputs": mode.inputs}), self.url("mode_update", name, k))
        outcomes = [(j, o, self._outcome(name, k, j, o)) for j, o in enumerate(mode.outcomes)]
        new_prefix = f"new-outcome-{name}-{k}"
        new_outcome = self.form(new_prefix, lambda: studio_forms.OutcomeForm(prefix=new_prefix),
                                self.url("outcome_add", name, k))
        return ModePanel(k, skill.mode_names()[k], mode, form, outcomes, new_outcome)

    def _outcome(self, skill: str, k: int, j: int, o: schema.Outcome) -> forms.Form:
        prefix = f"outcome-{skill}-{k}-{j}"
        return self.form(prefix, lambda: studio_forms.OutcomeForm(
            prefix=prefix, initial={"name": o.name, "outputs": o.outputs}), self.url("outcome_update", skill, k, j))


def _matches(item: Any, query: str) -> bool:
    text = query.casefold()
    return text in item.name.casefold() or text in (getattr(item, "description", "") or "").casefold()


def listing(kind: str, items: list[Any], query: str = "", page: int = 1, showing: str = "") -> Listing:
    """The page of `items` to show: those matching `query`, the page holding `showing` if named."""
    query = query.strip()
    matching = [item for item in items if _matches(item, query)] if query else list(items)
    size = PAGE_SIZES[kind]
    pages = max(1, -(-len(matching) // size))
    if showing:
        names = [item.name for item in matching]
        if showing in names:
            page = names.index(showing) // size + 1
    page = min(max(1, page), pages)
    return Listing(kind, matching[(page - 1) * size:page * size], len(matching), page, pages, query)


def element_listing(
    spec: schema.CatalogSpec, made: EditorForms | None, query: str = "", page: int = 1, showing: str = ""
) -> Listing:
    """Elements by page, in the type tree's order, each with its depth; a search lists the matches alone.

    The tree is flattened before paging: a page of roots could hold a whole large subtree.
    """
    nodes = list(_depth_first(element_tree(spec.elements))) if not query.strip() else [
        ElementNode(e) for e in spec.elements]
    found = listing("elements", nodes, query, page, showing)
    words = Wording(spec)
    for node in found.items:  # only the page shown is worded
        node.asked = words.question(node.name) if node.element.askable else ""
        node.named = f"To continue I need to share {words.element(node.name)} with ..."
        if made and made.failed(f"element-{node.name}"):
            node.form = made.element(node.element)
    return found


def _depth_first(nodes: list[ElementNode], depth: int = 0) -> Iterator[ElementNode]:
    for node in nodes:
        yield ElementNode(node.element, depth=min(depth, 8))  # deeper still is drawn at 8
        yield from _depth_first(node.children, depth + 1)


def _page_number(text: str) -> int:
    return int(text) if text.isdigit() else 1


def editor_context(request: HttpRequest, context: dict, failed: Edit | None = None, showing: str = "") -> dict:
    """The editor's cards, a page of each section, with only the form that just failed built (bound).

    `showing` is the anchor of a card to keep in view (`skill-lookup`, `element-email`): its section
    shows the page that holds it, whatever the page asked for.
    """
    spec: schema.CatalogSpec = context["spec"]
    made = EditorForms(spec, context["version"], context["catalog"].slug, failed)
    kind, _, name = showing.partition("-")
    get = request.GET
    skills = listing("skills", list(spec.skills), get.get("skills_q", ""), _page_number(get.get("skills_page", "")),
                     name if kind == "skill" else "")
    skills.items = [made.skill_panel(skill) for skill in skills.items]
    intents = listing("intents", list(spec.intents), get.get("intents_q", ""),
                      _page_number(get.get("intents_page", "")), name if kind == "intent" else "")
    intents.items = [(t, made.intent(t) if made.failed(f"intent-{t.name}") else None) for t in intents.items]
    version = context["version"]
    undo_label, redo_label = history.draft_steps(version=version) if version.is_draft else ("", "")
    return {
        "undo_label": undo_label,
        "redo_label": redo_label,
        "elements": element_listing(spec, made, get.get("elements_q", ""), _page_number(get.get("elements_page", "")),
                                    name if kind == "element" else ""),
        "skills": skills,
        "intents": intents,
        "settings_form": made.settings(),
        "new_element": made.form("new-element", lambda: studio_forms.ElementForm(prefix="new-element", spec=spec),
                                 made.url("element_add")),
        "new_skill": made.form("new-skill", lambda: studio_forms.NewSkillForm(prefix="new-skill"),
                               made.url("skill_add")),
        "new_intent": made.form("new-intent", lambda: studio_forms.IntentForm(prefix="new-intent"),
                                made.url("intent_add")),
        # A delete button has no form of its own to show its refusal in: it goes in its card.
        "failed_errors": failed.form.non_field_errors() if failed and not failed.form.prefix else [],
        "failed_anchor": failed.card if failed and not failed.form.prefix else "",
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


LINT_SHOWN = 30  # lint items listed at first; a large catalog can have hundreds


def preview_context(context: dict, intent: str, all_lint: bool = False) -> dict:
    """Plans and lint of the version shown, all from the one spec read for this request.

    Reading the version again for each part could mix two states of a draft that is being
    edited at the same moment; one spec and its (cached) planner cannot disagree. The PDDL texts
    (megabytes for a large catalog) are fetched when their panel is opened (`pddl_context`).
    """
    spec: schema.CatalogSpec = context["spec"]
    plans, plan_error, lint = _worked_out(context["version"], spec)
    intent = intent if intent in {t.name for t in spec.intents} else (spec.intents[0].name if spec.intents else "")
    shown = lint if all_lint else lint[:LINT_SHOWN]
    return {
        "plans": [(t, plans.get(t.name), plan_in_words(spec, plans.get(t.name))) for t in spec.intents],
        "plan_error": plan_error,
        "lint": [(item, _lint_anchor(spec, item), readable(item.message)) for item in shown],
        "lint_total": len(lint),
        "problem_intent": intent,
        "preview_ready": True,
        "preview_url": _preview_url(context),
    }


# Plans and lint of a version's state, by (version, revision): at thousands of skills they take
# seconds, and every preview refresh and every "show all" would redo them.
_previews: Lru[tuple[dict[str, Any], str, list[LintItem]]] = Lru(16)


def _worked_out(version: CatalogVersion, spec: schema.CatalogSpec) -> tuple[dict[str, Any], str, list[LintItem]]:
    def build() -> tuple[dict[str, Any], str, list[LintItem]]:
        try:
            planner = spec_planner(spec)
            return {t.name: planner.plan(t.goal) for t in spec.intents}, "", lint_catalog(spec)
        except ConcertoError as exc:
            return {}, str(exc), lint_catalog(spec)

    return _previews.get_or_build((version.pk, version.created_at.isoformat(), version.revision), build)


def plan_in_words(spec: schema.CatalogSpec, result: Any) -> dict[str, Any]:
    """A found plan's steps as sentences, and what its cost is made of."""
    if not getattr(result, "solved", False):
        return {}
    return {"sentences": [step_sentence(spec, step) for step in result.steps], "cost": cost_words(result.steps)}


def preview_pending(context: dict, intent: str) -> dict:
    """What the page needs to fetch its previews: they are worked out in a request of their own."""
    return {"preview_ready": False, "problem_intent": intent, "preview_url": _preview_url(context)}


def _preview_url(context: dict) -> str:
    return f"{reverse('catalog:preview', args=[context['catalog'].slug])}?version={context['version'].number}"


def pddl_context(context: dict, part: str, intent: str) -> dict:
    """The domain, or the problem of one intent, as the planner reads it."""
    spec: schema.CatalogSpec = context["spec"]
    try:
        planner = spec_planner(spec)
    except ConcertoError as exc:
        return {"pddl": "", "pddl_error": str(exc)}
    if part == "domain":
        return {"pddl": context["version"].compiled_domain or domain_text(planner.domain), "pddl_error": ""}
    if intent not in {t.name for t in spec.intents}:
        return {"pddl": "", "pddl_error": f"no intent named {intent!r}"}
    return {"pddl": problem_text(planner.domain, spec.intent(intent).goal, name=intent), "pddl_error": ""}


def _lint_anchor(spec: schema.CatalogSpec, item: LintItem) -> str:
    """The id of the card to fix a lint item in: `skill-credit_check`, `element-ssn`, `intent-apply_loan`."""
    match = re.match(r"(elements|skills|intents)\[(\d+)\]", item.path)
    if not match:
        return "settings"
    kind, index = match.group(1), int(match.group(2))
    items = {"elements": spec.elements, "skills": spec.skills, "intents": spec.intents}[kind]
    return f"{kind[:-1]}-{items[index].name}"

