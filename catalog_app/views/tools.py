"""Import skills from an OpenAPI document or function specs: upload, review, then add."""

from __future__ import annotations

from functools import partial

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.urls import reverse
from django.views.decorators.http import require_http_methods
from django.views.decorators.vary import vary_on_headers

from orchestrator.engine.catalog.toolspec import Proposal, load_tools, propose
from orchestrator.engine.errors import ConcertoError, SpecError

from .. import editing
from .. import forms as studio_forms
from ..access import page_version_context
from .common import HtmxHttpRequest, htmx_redirect, render_page


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
    return render_page(request, "catalog_app/tools.html", context, status=status)


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
        editing.version_edit(version=context["version"], change=change, label="Skills imported from tool specs",
                             user=request.user)
    except ConcertoError as exc:
        context.update(issues=exc.issues, document=text)
    else:
        count = len(request.POST.getlist("skills"))
        messages.success(request, f"Added {count} skill{'s' if count != 1 else ''} from the tool specs.")
        return htmx_redirect(request, reverse("catalog:edit", args=[context["catalog"].slug]) + "#skills")
    if proposal is not None:  # the document read: show the review again, with the refusal on top
        _review(context, proposal, text)
    else:
        context["proposal"] = None
    return render_page(request, "catalog_app/tools.html", context, status=422)


def _review(context: dict, proposal: Proposal, text: str) -> None:
    context.update(proposal=proposal, document=text,
                   new_elements=[(e, proposal.suggestions.get(e.name, [])) for e in proposal.elements])

