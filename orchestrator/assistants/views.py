"""The Assistants screen of a catalog (login required): publish it, see which version is live,
switch versions (admins), disable and enable, rotate the key, change the allowed origins.

Every action is a plain POST that redirects back to the screen with a message (the page works
without JavaScript); the services check what may be done, the role included: their NotAllowed
is Django's PermissionDenied, so an analyst's POST gets the studio's 403 page and changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.templatetags.static import static
from django.views.decorators.http import require_GET, require_POST

from catalog_app.access import page_version_context, page_workspace
from catalog_app.models import Catalog
from catalog_app.permissions import Action, check_allowed, is_allowed
from catalog_app.selectors import catalog_get
from orchestrator.assistants.forms import OriginsForm, PublishForm
from orchestrator.assistants.models import Assistant
from orchestrator.assistants.selectors import assistant_list_for_catalog, version_promoted_list
from orchestrator.assistants.services import (
    assistant_publish,
    assistant_rotate_key,
    assistant_set_enabled,
    assistant_set_origins,
    assistant_set_version,
)
from orchestrator.engine.errors import ConcertoError, UnknownName

TEMPLATE = "orchestrator/assistants.html"


def _context(request: HttpRequest, slug: str, form: PublishForm | None = None) -> dict[str, Any]:
    context = page_version_context(request, slug, "assistants")
    catalog = context["catalog"]
    promoted = version_promoted_list(catalog=catalog)
    context.update(
        assistants=list(assistant_list_for_catalog(catalog=catalog)),
        promoted=list(promoted),
        form=form or PublishForm(versions=promoted, initial={"name": context["spec"].title}),
        is_admin=is_allowed(request.user, catalog.workspace, Action.ASSISTANT_PUBLISH),
        widget_url=request.build_absolute_uri(static("concerto/widget.js")),
    )
    return context


@require_GET
@login_required
def assistants_page(request: HttpRequest, slug: str) -> HttpResponse:
    return render(request, TEMPLATE, _context(request, slug))


@require_POST
@login_required
def assistant_publish_view(request: HttpRequest, slug: str) -> HttpResponse:
    catalog = _catalog(request, slug)
    # Also checked by the service; checked first here so that an analyst's POST is a 403 whatever its form holds.
    check_allowed(request.user, catalog.workspace, Action.ASSISTANT_PUBLISH)
    form = PublishForm(request.POST, versions=version_promoted_list(catalog=catalog))
    if form.is_valid():
        data = form.cleaned_data
        try:
            assistant, created = assistant_publish(user=request.user, catalog=catalog, key=data["key"],
                                                   version=data["version"], mode=data["mode"],
                                                   allowed_origins=form.origin_list(), name=data["name"])
        except ConcertoError as exc:
            for issue in exc.issues:
                field = issue.path if issue.path in form.fields else None
                form.add_error(field, issue.message)
        else:
            verb = "is published" if created else "is updated"
            messages.success(request, f"Assistant '{assistant.key}' {verb}: it runs version "
                                      f"{assistant.catalog_version.number}.")
            return redirect("orchestrator:assistants", slug=slug)
    return render(request, TEMPLATE, _context(request, slug, form=form), status=422)


@require_POST
@login_required
def assistant_action_view(request: HttpRequest, slug: str, key: str, action: str) -> HttpResponse:
    catalog = _catalog(request, slug)
    assistant = assistant_list_for_catalog(catalog=catalog).filter(key=key).first()
    if assistant is None:
        raise Http404(f"unknown assistant '{key}'")
    try:
        text = _act(request, catalog, assistant, action)
    except ConcertoError as exc:
        messages.error(request, str(exc) if not exc.issues else "; ".join(i.message for i in exc.issues))
    else:
        messages.success(request, text)
    return redirect("orchestrator:assistants", slug=slug)


def _switch_version(request: HttpRequest, catalog: Catalog, assistant: Assistant) -> str:
    number = request.POST.get("version", "")
    version = version_promoted_list(catalog=catalog).filter(number=number if number.isdigit() else -1).first()
    if version is None:
        raise UnknownName("promoted version", number)
    assistant_set_version(user=request.user, assistant=assistant, version=version)
    return f"Assistant '{assistant.key}' now runs version {version.number}."


def _disable(request: HttpRequest, catalog: Catalog, assistant: Assistant) -> str:
    assistant_set_enabled(user=request.user, assistant=assistant, enabled=False)
    return f"Assistant '{assistant.key}' is disabled."


def _enable(request: HttpRequest, catalog: Catalog, assistant: Assistant) -> str:
    assistant_set_enabled(user=request.user, assistant=assistant, enabled=True)
    return f"Assistant '{assistant.key}' is enabled."


def _rotate(request: HttpRequest, catalog: Catalog, assistant: Assistant) -> str:
    old = assistant.key
    assistant_rotate_key(user=request.user, assistant=assistant)
    return f"The key '{old}' no longer works; the assistant's key is now '{assistant.key}'."


def _origins(request: HttpRequest, catalog: Catalog, assistant: Assistant) -> str:
    form = OriginsForm(request.POST)
    form.is_valid()
    assistant_set_origins(user=request.user, assistant=assistant, allowed_origins=form.origin_list())
    return f"Assistant '{assistant.key}' may be embedded on: {', '.join(assistant.allowed_origins) or 'no site'}."


# The `<action>` of the action URL; each says what it did. The role walk test tries every one.
ACTIONS: dict[str, Callable[[HttpRequest, Catalog, Assistant], str]] = {
    "version": _switch_version, "disable": _disable, "enable": _enable, "rotate": _rotate, "origins": _origins,
}


def _act(request: HttpRequest, catalog: Catalog, assistant: Assistant, action: str) -> str:
    if action not in ACTIONS:
        raise Http404(f"unknown action '{action}'")
    return ACTIONS[action](request, catalog, assistant)


def _catalog(request: HttpRequest, slug: str) -> Catalog:
    try:
        return catalog_get(workspace=page_workspace(request), slug=slug)
    except UnknownName as exc:
        raise Http404(str(exc)) from exc
