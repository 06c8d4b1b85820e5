"""The test chat panel beside the editor (htmx fragments, login required).

The editor page loads the panel by URL (`hx-get`: the catalog app does not import this one) and
reloads it when the catalog changes (the editor's `catalog-changed` event): a new conversation
on the edited draft. The first message stores the session; its id then travels in the form.
Messages and explanations come back as fragments appended to the panel's log.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET, require_POST

from catalog_app.access import page_version_context, page_workspace
from orchestrator.assistants.selectors import assistant_list_live_on
from orchestrator.chat.models import ChatSession
from orchestrator.chat.selectors import session_explain, session_get
from orchestrator.chat.studio_services import studio_greeting, studio_message_post
from orchestrator.engine.errors import ConcertoError
from orchestrator.modes import AssistantMode

TEMPLATE = "orchestrator/studio_chat/panel.html"


def _mode(value: str | None) -> str:
    return value if value in AssistantMode.values else AssistantMode.PLANNER


def _context(request: HttpRequest, slug: str, number: str | None) -> dict[str, Any]:
    return page_version_context(request, slug, "edit", int(number) if number and number.isdigit() else None)


@require_GET
@login_required
def chat_panel(request: HttpRequest, slug: str) -> HttpResponse:
    context = _context(request, slug, request.GET.get("version"))
    mode = _mode(request.GET.get("mode"))
    version = context["version"]
    return render(request, TEMPLATE + "#panel", {**context, "turn": studio_greeting(version=version, mode=mode),
                                                 "live": list(assistant_list_live_on(version=version)),
                                                 "mode": mode, "modes": AssistantMode.choices})


def _studio_session(request: HttpRequest, slug: str, session_id: str) -> ChatSession | None:
    """The test session the panel names (None before the first message); 404 for any other."""
    if not session_id:
        return None
    session = session_get(session_id=session_id, workspace=page_workspace(request))
    if session is None or not session.is_test or session.assistant.catalog_version.catalog.slug != slug:
        raise Http404(f"unknown test session '{session_id}'")
    return session


@require_POST
@login_required
def chat_message(request: HttpRequest, slug: str) -> HttpResponse:
    context = _context(request, slug, request.POST.get("version"))
    session = _studio_session(request, slug, request.POST.get("session", ""))
    try:
        session, turn = studio_message_post(session=session, version=context["version"],
                                            mode=_mode(request.POST.get("mode")), text=request.POST.get("text", ""))
    except ConcertoError as exc:
        return render(request, TEMPLATE + "#problem", {"problem": str(exc)})
    return render(request, TEMPLATE + "#turn-with-session", {**context, "session": session, "turn": turn})


@require_GET
@login_required
def chat_explain(request: HttpRequest, slug: str) -> HttpResponse:
    session = _studio_session(request, slug, request.GET.get("session", ""))
    if session is None:
        return render(request, TEMPLATE + "#problem", {"problem": "Say something first: nothing has happened yet."})
    kind = request.GET.get("kind", "what")
    if kind not in ("what", "how", "why"):
        raise Http404(f"unknown explanation '{kind}'")
    try:
        body = session_explain(session=session, kind=kind, element=request.GET.get("element") or None)
    except ConcertoError as exc:
        return render(request, TEMPLATE + "#problem", {"problem": str(exc)})
    return render(request, TEMPLATE + "#explanation", {"body": body})
