"""The editor page and its edits: one POST per change, validation as the analyst types."""

from __future__ import annotations

import re
from functools import partial
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import trigger_client_event

from orchestrator.engine.catalog import spec as schema
from orchestrator.engine.catalog.lint import unreachable_intents
from orchestrator.engine.catalog.suggest import did_you_mean, normalize, search_elements
from orchestrator.engine.errors import ConcertoError

from .. import editing, history
from .. import forms as studio_forms
from ..access import page_version_context
from .common import CHANGED, HtmxHttpRequest, index_or_404, readable, render_page
from .editor_context import (
    EditorForms,
    editor_context,
    element_listing,
    listing,
    pddl_context,
    preview_context,
    preview_pending,
)
from .edits import EDITS, Edit, place_issues, unconfirmed_new_elements


@require_GET
@login_required
@vary_on_headers("HX-Request")
def editor_page(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    context = page_version_context(request, slug, "edit")
    context.update(editor_context(request, context), **preview_pending(context, request.GET.get("intent", "")))
    return render_page(request, "catalog_app/editor.html", context)


@require_GET
@login_required
def preview_fragment(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    """The previews beside the editor: plans and problems to fix; `?part=domain|problem` for the PDDL texts."""
    context = page_version_context(request, slug, "edit")
    part = request.GET.get("part", "")
    if part in ("domain", "problem"):
        context.update(pddl_context(context, part, request.GET.get("intent", "")))
        return render(request, "catalog_app/editor.html#pddl-text", context)
    context.update(preview_context(context, request.GET.get("intent", ""), all_lint="lint" in request.GET))
    return render(request, "catalog_app/editor.html#preview", context)


@require_GET
@login_required
def card_form(request: HtmxHttpRequest, slug: str, number: int, card: str, name: str, mode: int = 0) -> HttpResponse:
    """The forms of one card, fetched when the analyst opens it: the page never holds them all."""
    context = page_version_context(request, slug, "edit", number)
    spec: schema.CatalogSpec = context["spec"]
    if not context["version"].is_draft:
        raise Http404("a promoted version has no forms")
    made = EditorForms(spec, context["version"], slug)
    if card == "element":
        element = spec.elements[index_or_404(spec.elements, name, "element")]
        context.update(node={"element": element, "form": made.element(element)})
    elif card == "intent":
        intent = spec.intents[index_or_404(spec.intents, name, "intent")]
        context.update(intent=intent, form=made.intent(intent))
    else:
        skill = spec.skills[index_or_404(spec.skills, name, "skill")]
        context["panel"] = {"skill": skill, "form": made.skill_form(skill), "new_mode": made.new_mode(skill),
                            "modes": skill.modes}
        if card == "mode":
            if mode >= len(skill.modes):
                raise Http404(f"skill '{name}' has no mode {mode + 1}")
            context["mode"] = made.mode_panel(skill, mode)
    return render(request, f"catalog_app/editor.html#{card}-forms", context)


@require_GET
@login_required
def section_fragment(request: HtmxHttpRequest, slug: str, number: int, kind: str) -> HttpResponse:
    """One page of a section's cards, for its search box and page links."""
    if kind not in ("elements", "skills", "intents"):
        raise Http404(f"no section '{kind}'")
    context = page_version_context(request, slug, "edit", number)
    spec: schema.CatalogSpec = context["spec"]
    made = EditorForms(spec, context["version"], slug)
    query, page = request.GET.get(f"{kind}_q", ""), request.GET.get(f"{kind}_page", "")
    number_ = int(page) if page.isdigit() else 1
    if kind == "elements":
        context["elements"] = element_listing(spec, made, query, number_)
    elif kind == "skills":
        context["skills"] = found = listing("skills", list(spec.skills), query, number_)
        found.items = [made.skill_panel(skill) for skill in found.items]
    else:
        context["intents"] = found = listing("intents", list(spec.intents), query, number_)
        found.items = [(t, None) for t in found.items]
    return render(request, f"catalog_app/editor.html#{kind}-list", context)


@require_POST
@login_required
def studio_edit(request: HtmxHttpRequest, slug: str, number: int, op: str, **target: Any) -> HttpResponse:
    context = page_version_context(request, slug, "edit", number)
    seen = _seen_revision(request)
    validating = "_validate" in request.POST
    try:
        edit = EDITS[op](request, context["spec"], **target)
    except Http404:
        if validating or seen is None or seen == context["version"].revision:
            raise
        return _conflict(request, context, seen)  # what the form was about was renamed or deleted meanwhile
    if validating:
        return _feedback(request, context, edit, request.POST["_validate"])
    if not context["version"].is_draft:
        messages.error(request, f"Version {context['version'].number} is promoted and cannot change: "
                                "create a draft from it to edit.")
    elif edit.form.is_valid() and not unconfirmed_new_elements(
            edit, context["spec"], request.POST.get(f"{edit.form.prefix}-create_elements", "")):
        before = context["spec"]
        try:
            after = editing.version_edit(version=context["version"], label=_plain(edit.done), user=request.user,
                                         revision=seen,
                                         change=partial(edit.change, **edit.fixed, **edit.form.spec_values()))
        except editing.DraftChanged:
            return _conflict(request, context, seen or 0)
        except ConcertoError as exc:
            place_issues(edit, exc.issues)
        else:
            messages.success(request, readable(edit.done))
            _warn_broken(request, before, after)
            return _after_edit(request, slug, number, _saved_card(edit))
    context.update(editor_context(request, context, edit, showing=edit.card or edit.anchor))
    if request.htmx:
        return render(request, "catalog_app/editor.html#editor", context, status=422)
    context.update(preview_context(context, ""))
    return render(request, "catalog_app/editor.html", context, status=422)


@require_POST
@login_required
def undo_view(request: HtmxHttpRequest, slug: str, number: int, redo: bool = False) -> HttpResponse:
    """Take back the draft's last edit (or make again the last one taken back)."""
    context = page_version_context(request, slug, "edit", number)
    seen = _seen_revision(request)
    if seen is not None and seen != context["version"].revision:
        return _conflict(request, context, seen)
    try:
        version, label = (history.draft_redo if redo else history.draft_undo)(version=context["version"],
                                                                               user=request.user)
    except ConcertoError as exc:
        messages.error(request, readable(f"{exc}."))
        return _after_edit(request, slug, number, "editor")
    messages.success(request, f"{'Redone' if redo else 'Undone'}: {label or 'an edit'}")
    return _after_edit(request, slug, version.number, "editor")


def _seen_revision(request: HttpRequest) -> int | None:
    """The draft's revision the submitted form was built from (None for a client that does not say)."""
    text = request.POST.get("_revision", "")
    return int(text) if text.isdigit() else None


def _plain(text: str) -> str:
    return text.replace("`", "")


def _conflict(request: HtmxHttpRequest, context: dict, seen: int) -> HttpResponse:
    """The draft changed since the form was opened: say what changed, keep what was typed, offer both ways on.

    Nothing is saved. The analyst sees the draft as it is now, the changes made since the form was
    built, the values they typed, and a button that submits those values again against the
    current draft (or a reload, which drops them).
    """
    version = context["version"]
    changes = history.draft_changes_since(version=version, revision=seen)
    typed = [(key.split("-")[-1].replace("_", " "), value) for key, value in request.POST.items()
             if key not in ("csrfmiddlewaretoken", "_revision") and not key.endswith("create_elements") and value]
    fields = [(key, value) for key, values in request.POST.lists() for value in values
              if key not in ("csrfmiddlewaretoken", "_revision")]
    context.update(editor_context(request, context), conflict={
        "changes": changes, "typed": typed, "fields": fields, "action": request.path, "seen": seen})
    if request.htmx:
        return render(request, "catalog_app/editor.html#editor", context, status=409)
    context.update(preview_pending(context, ""))
    return render(request, "catalog_app/editor.html", context, status=409)


def _saved_card(edit: Edit) -> str:
    """The card of what was just saved, under its new name if it was added or renamed."""
    whole = re.fullmatch(r"(elements|skills|intents)\[\d+\]", edit.where)
    name = edit.form.cleaned_data.get("name")
    return f"{whole.group(1)[:-1]}-{name}" if whole and name else edit.anchor


def _after_edit(request: HtmxHttpRequest, slug: str, number: int, anchor: str) -> HttpResponse:
    """The editor of the version just edited (not the latest one: an older draft may be open)."""
    if not request.htmx:
        return redirect(f"{reverse('catalog:edit', args=[slug])}#{anchor}")
    context = page_version_context(request, slug, "edit", number)
    context.update(editor_context(request, context, showing=anchor))
    response = render(request, "catalog_app/editor.html#editor", context)
    # After the swap: the form that asked is gone by then, and htmx then announces it from <body>.
    # The focus goes back to the card just saved (static/js/editor.js), not the top of the page.
    trigger_client_event(response, "studio-focus", {"id": anchor}, after="settle")
    return trigger_client_event(response, CHANGED, after="settle")


def _warn_broken(request: HttpRequest, before: schema.CatalogSpec, after: schema.CatalogSpec) -> None:
    """Say at once when a change leaves an intent without a plan, and why."""
    was = {i.subject for i in unreachable_intents(before)}
    for item in unreachable_intents(after):
        if item.subject not in was:
            messages.warning(request, readable(f"This change broke an intent. {item.message}"))



def _feedback(request: HtmxHttpRequest, context: dict, edit: Edit, name: str) -> HttpResponse:
    """Errors and hints for one field, from the form and from a dry run of the change."""
    form = edit.form
    if name not in form.fields:
        raise Http404(f"no field '{name}'")
    if form.is_valid():
        try:
            editing.edit_check(context["spec"], partial(edit.change, **edit.fixed, **form.spec_values()))
        except ConcertoError as exc:
            place_issues(edit, exc.issues)
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
    if isinstance(edit.form.fields[name], studio_forms.ReferenceField):  # one existing name, searched
        text = value.strip()
        if not text or text in candidates:
            return [], []
        close = did_you_mean(text, candidates)
        hints = [{"token": text, "choices": close}] if close else []
        return hints, [c for c in _completions(text, candidates) if c not in close]
    if not isinstance(edit.form.fields[name], studio_forms.NamesField):  # a new thing's own name
        text = value.strip()
        close = did_you_mean(text, candidates)
        hints = [{"token": text, "choices": close, "existing": True}] if close else []
        if text and normalize(text) != text:  # `Credit Score` -> offer `credit_score`
            hints.append({"token": text, "choices": [normalize(text)], "existing": False})
        return hints, []
    tokens = [t for t in re.split(r"[\s,]+", value) if t]
    last = "" if not tokens or value[-1:] in (",", " ") else tokens[-1]
    hints = [{"token": t, "choices": did_you_mean(t, candidates), "new": t != last}
             for t in tokens if t not in candidates]
    # A finished word with nothing close is said to be new; the save asks to confirm it.
    hints = [h for h in hints if h["choices"] or h["new"]]
    offered = {c for h in hints for c in h["choices"]}
    matches = [c for c in _completions(last, candidates) if c not in tokens and c not in offered] if last else []
    return hints, matches[:8]


def _completions(text: str, names: list[str]) -> list[str]:
    pool = [schema.Element(name=n) for n in names]
    return [e.name for e in search_elements(text, pool, limit=8)]

