"""What every studio page uses: the htmx request type, page rendering, redirects, lookups that 404."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django import forms
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django_htmx.middleware import HtmxDetails

from orchestrator.engine.catalog import spec as schema
from orchestrator.engine.errors import UnknownName

from ..access import page_workspace
from ..models import Catalog
from ..selectors import catalog_get

CHANGED = "catalog-changed"  # the htmx event that tells the previews to refresh


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


@dataclass
class ElementNode:
    element: schema.Element
    children: list[ElementNode] = field(default_factory=list)
    form: forms.Form | None = None
    depth: int = 0  # in a flat list of the tree (the editor's pages): how far down the tree it is
    asked: str = ""  # how the assistant asks for it, as the user will read it
    named: str = ""  # how a sentence names it

    @property
    def name(self) -> str:  # a node is found, searched and paged by its element's name
        return self.element.name

    @property
    def description(self) -> str:
        return self.element.description

# --- helpers --------------------------------------------------------------------------------------


def readable(text: str) -> SafeString:
    """A message with its `names` shown as code: the engine's messages mark names with backquotes."""
    return mark_safe(re.sub(r"`([^`]+)`", r"<code>\1</code>", escape(text)))  # noqa: S308 - escaped first


def render_page(request: HtmxHttpRequest, template: str, context: dict, status: int = 200) -> HttpResponse:
    # A history restore asks for the whole page: htmx had nothing cached to show.
    if request.htmx and not request.htmx.history_restore_request:
        template += "#page"
    return render(request, template, context, status=status)


def htmx_redirect(request: HtmxHttpRequest, url: str) -> HttpResponse:
    """A redirect that htmx follows as a full page load, and a browser as usual."""
    if request.htmx:
        response = HttpResponse(status=204)
        response["HX-Redirect"] = url
        return response
    return redirect(url)


def catalog_or_404(request: HttpRequest, slug: str) -> Catalog:
    try:
        return catalog_get(workspace=page_workspace(request), slug=slug)
    except UnknownName as exc:
        raise Http404(str(exc)) from exc


def index_or_404(items: tuple[Any, ...], name: str, kind: str) -> int:
    for i, item in enumerate(items):
        if item.name == name:
            return i
    raise Http404(f"unknown {kind} '{name}'")


def element_tree(
    elements: tuple[schema.Element, ...], form_for: Callable[[schema.Element], forms.Form] | None = None
) -> list[ElementNode]:
    """The type tree as nested nodes, siblings in authored order, each with its form if asked."""
    nodes = {e.name: ElementNode(e, form=form_for(e) if form_for else None) for e in elements}
    roots = []
    for e in elements:
        (nodes[e.parent].children if e.parent in nodes else roots).append(nodes[e.name])
    return roots

