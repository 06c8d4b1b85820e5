"""The catalog drawn by Graphviz, with an intent's plan highlighted."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers

from catalog_app.planning import spec_planner
from orchestrator.engine.catalog import spec as schema
from orchestrator.engine.catalog.graph import (
    MAX_NODES,
    CatalogGraph,
    GraphUnavailable,
    catalog_graph,
    neighbourhood,
    node_id,
    plan_highlight,
    plan_part,
    render_svg,
)
from orchestrator.engine.catalog.suggest import did_you_mean
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
    graph = catalog_graph(spec, highlight)
    focus = request.GET.get("focus", "").strip()
    large = len(graph.nodes) > MAX_NODES
    graph, focus_error = _part_to_draw(spec, graph, focus, large)
    try:
        svg, graph_error = (render_svg(graph, spec.catalog), "") if not focus_error else ("", focus_error)
    except GraphUnavailable as exc:
        svg, graph_error = "", str(exc)
    context.update(intent=intent, result=result, svg=svg, graph_error=graph_error, focus=focus, large=large,
                   total_nodes=len(catalog_graph(spec).nodes) if large else 0, max_nodes=MAX_NODES)
    if request.htmx and request.htmx.target == "graph":
        return render(request, "catalog_app/graph.html#graph", context)
    return render_page(request, "catalog_app/graph.html", context)



def _part_to_draw(spec: schema.CatalogSpec, graph: CatalogGraph, focus: str, large: bool) -> tuple[CatalogGraph, str]:
    """All of a small catalog; of a large one, the neighbourhood of `focus`, or the plan highlighted."""
    if focus:
        kinds = {**{s.name: "skill" for s in spec.skills}, **{e.name: "element" for e in spec.elements},
                 **{t.name: "intent" for t in spec.intents}}
        if focus not in kinds:
            close = did_you_mean(focus, kinds)
            hint = f" Did you mean {' or '.join(close)}?" if close else ""
            return graph, f"There is no skill, element or intent named {focus}.{hint}"
        return neighbourhood(graph, node_id(kinds[focus], focus)), ""  # type: ignore[arg-type]
    if large and graph.highlighted:
        return plan_part(graph), ""
    if large:
        return graph, (f"This catalog is too big to draw whole ({len(graph.nodes):,} nodes; the limit is "
                       f"{MAX_NODES}). Name a skill or an element to draw its neighbourhood, or choose an "
                       "intent to draw its plan.")
    return graph, ""
