"""The catalog drawn by Graphviz, with an intent's plan highlighted."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers

from catalog_app.planning import spec_planner
from orchestrator.engine.catalog import spec as schema
from orchestrator.engine.catalog.graph import GraphUnavailable, catalog_graph, plan_highlight, render_svg
from orchestrator.engine.errors import UnknownName
from orchestrator.engine.planning.compile import intent_goal
from orchestrator.engine.planning.planner import Unsolvable

from ..access import page_version_context
from .common import HtmxHttpRequest, render_page


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
    return render_page(request, "catalog_app/graph.html", context)

