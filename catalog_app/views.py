"""Studio pages for reading a catalog: list, detail, PDDL and plans (htmx, login required).

A page asked for by htmx renders only its `page` fragment (or the fragment the request targets),
so a version switch or an intent choice swaps part of the page instead of reloading it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers
from django_htmx.middleware import HtmxDetails

from orchestrator.engine import spec as schema
from orchestrator.engine.compile import intent_goal
from orchestrator.engine.errors import UnknownName
from orchestrator.planning import goal_problem_pddl, version_domain_pddl, version_plans

from .models import Catalog, CatalogVersion, Workspace
from .selectors import (
    catalog_get,
    catalog_list,
    version_get,
    version_latest,
    version_list,
    version_live,
    version_spec,
    workspace_for_user,
)


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


@dataclass
class ElementNode:
    element: schema.Element
    children: list[ElementNode] = field(default_factory=list)


@require_GET
@login_required
def catalog_list_page(request: HtmxHttpRequest) -> HttpResponse:
    rows = [
        {"catalog": c, "latest": version_latest(catalog=c), "live": version_live(catalog=c)}
        for c in catalog_list(workspace=_workspace(request))
    ]
    return render(request, "catalog_app/catalog_list.html", {"rows": rows})


@require_GET
@login_required
@vary_on_headers("HX-Request")
def catalog_detail_page(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    context = _version_context(request, slug, "detail")
    spec: schema.CatalogSpec = context["spec"]
    context["tree"] = _element_tree(spec.elements)
    context["skills"] = [(skill, list(zip(skill.mode_names(), skill.modes, strict=True))) for skill in spec.skills]
    return _render(request, "catalog_app/catalog_detail.html", context)


@require_GET
@login_required
@vary_on_headers("HX-Request", "HX-Target")
def version_pddl_page(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    context = _version_context(request, slug, "pddl")
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
    context = _version_context(request, slug, "plans")
    plans = version_plans(version=context["version"])
    context["plans"] = [(intent, plans[intent.name]) for intent in context["spec"].intents]
    return _render(request, "catalog_app/version_plans.html", context)


# --- helpers ------------------------------------------------------------------------------------


def _render(request: HtmxHttpRequest, template: str, context: dict) -> HttpResponse:
    # A history restore asks for the whole page: htmx had nothing cached to show.
    if request.htmx and not request.htmx.history_restore_request:
        template += "#page"
    return render(request, template, context)


def _workspace(request: HttpRequest) -> Workspace:
    workspace = workspace_for_user(user=request.user)
    if workspace is None:
        raise PermissionDenied("you are not a member of any workspace")
    return workspace


def _version_context(request: HttpRequest, slug: str, tab: str) -> dict:
    """The catalog, its versions and the version asked for (`?version=N`, else the latest)."""
    try:
        catalog: Catalog = catalog_get(workspace=_workspace(request), slug=slug)
        number = request.GET.get("version", "")
        if number and not number.isdigit():
            raise UnknownName(f"version of catalog '{slug}'", number)
        version: CatalogVersion | None = (
            version_get(catalog=catalog, number=int(number)) if number else version_latest(catalog=catalog)
        )
    except UnknownName as exc:
        raise Http404(str(exc)) from exc
    if version is None:
        raise Http404(f"catalog '{slug}' has no versions")
    return {
        "catalog": catalog,
        "version": version,
        "versions": version_list(catalog=catalog),
        "live": version_live(catalog=catalog),
        "spec": version_spec(version=version),
        "tab": tab,
    }


def _element_tree(elements: tuple[schema.Element, ...]) -> list[ElementNode]:
    """The type tree as nested nodes, siblings in authored order."""
    nodes = {e.name: ElementNode(e) for e in elements}
    roots = []
    for e in elements:
        (nodes[e.parent].children if e.parent in nodes else roots).append(nodes[e.name])
    return roots
