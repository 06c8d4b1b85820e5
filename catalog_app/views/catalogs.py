"""The catalog list (create, import) and the read-only pages of a version: detail, PDDL, plans."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers

from catalog_app.planning import goal_problem_pddl, version_domain_pddl, version_plans
from orchestrator.engine.catalog import spec as schema
from orchestrator.engine.errors import Issue, SpecError, UnknownName
from orchestrator.engine.planning.compile import intent_goal

from .. import forms as studio_forms
from ..access import page_version_context, page_workspace
from ..catalog_files import catalog_file_import, catalog_file_load
from ..models import Workspace
from ..selectors import (
    catalog_list,
    version_latest,
    version_live,
)
from ..services import catalog_create
from .common import HtmxHttpRequest, element_tree, htmx_redirect, render_page
from .editor_context import plan_in_words
from .versions import versions_context


@require_GET
@login_required
def catalog_list_page(request: HtmxHttpRequest) -> HttpResponse:
    return render(request, "catalog_app/catalog_list.html", _list_context(page_workspace(request)))


@require_GET
@login_required
@vary_on_headers("HX-Request")
def catalog_detail_page(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    context = page_version_context(request, slug, "detail")
    spec: schema.CatalogSpec = context["spec"]
    context["tree"] = element_tree(spec.elements)
    context["skills"] = [(skill, list(zip(skill.mode_names(), skill.modes, strict=True))) for skill in spec.skills]
    return render_page(request, "catalog_app/catalog_detail.html", context)


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
    return render_page(request, "catalog_app/version_pddl.html", context)


@require_GET
@login_required
@vary_on_headers("HX-Request")
def version_plans_page(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    context = page_version_context(request, slug, "plans")
    plans = version_plans(version=context["version"])
    spec = context["spec"]
    context["plans"] = [(t, plans[t.name], plan_in_words(spec, plans[t.name])) for t in spec.intents]
    return render_page(request, "catalog_app/version_plans.html", context)




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
            return htmx_redirect(request, reverse("catalog:edit", args=[version.catalog.slug]))
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
            file = catalog_file_load(content, None, filename, max_bytes=settings.CATALOG_MAX_BYTES)
            spec = file.spec
            expected = request.POST.get("catalog", "")
            if expected and spec.catalog != expected:
                raise SpecError([Issue("catalog", f"this file is catalog '{spec.catalog}', not '{expected}'")])
            version = catalog_file_import(workspace=workspace, file=file, user=request.user,
                                          note="imported in the studio")
        except SpecError as exc:
            issues = exc.issues
        else:
            messages.success(request, f"Imported {version.catalog.slug} as version {version.number} (draft).")
            return htmx_redirect(request, reverse("catalog:edit", args=[version.catalog.slug]))
    if request.POST.get("catalog"):
        context = versions_context(request, request.POST["catalog"])
        context.update(import_form=form, import_issues=issues)
        return render(request, "catalog_app/versions.html", context, status=422)
    return _list_with_errors(request, workspace, import_form=form, import_issues=issues)


def _list_with_errors(request: HtmxHttpRequest, workspace: Workspace, **forms_: Any) -> HttpResponse:
    return render(request, "catalog_app/catalog_list.html", _list_context(workspace, **forms_), status=422)


def _list_context(workspace: Workspace, **forms_: Any) -> dict[str, Any]:
    """The catalog list with its two forms, blank unless a failed one is given (`new_form`, `import_form`)."""
    rows = [
        {"catalog": c, "latest": version_latest(catalog=c), "live": version_live(catalog=c)}
        for c in catalog_list(workspace=workspace)
    ]
    return {"rows": rows, "new_form": studio_forms.NewCatalogForm(prefix="new"),
            "import_form": studio_forms.UploadForm(prefix="import"), **forms_}
