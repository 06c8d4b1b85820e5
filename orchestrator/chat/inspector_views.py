"""The session inspector (login required): analysts read their workspace's conversations.

What was said (masked), the goal stack, the plan, the plans given up and the skill calls; the
inspector polls every 2 seconds, so it follows a live chat.
"""

from __future__ import annotations

from uuid import UUID

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers

from catalog_app.access import page_workspace
from catalog_app.views.common import HtmxHttpRequest
from orchestrator.assistants.selectors import assistant_list
from orchestrator.chat import selectors as chat_selectors


@require_GET
@login_required
def session_list_page(request: HtmxHttpRequest) -> HttpResponse:
    assistants = [
        (assistant, chat_selectors.session_recent(assistant=assistant))
        for assistant in assistant_list(workspace=page_workspace(request))
    ]
    return render(request, "orchestrator/sessions/session_list.html", {"assistants": assistants})


@require_GET
@login_required
@vary_on_headers("HX-Request")
def session_inspector_page(request: HtmxHttpRequest, session_id: UUID) -> HttpResponse:
    session = chat_selectors.session_get(session_id=session_id, workspace=page_workspace(request))
    if session is None:
        raise Http404(f"unknown session '{session_id}'")
    debug = chat_selectors.session_debug(session=session)
    summary = chat_selectors.session_explain(session=session, kind="what")
    hows = [chat_selectors.session_explain(session=session, kind="how", element=item["element"])
            for item in summary["items"]]
    context = {"session": session, "debug": debug, "explained": {"what": summary, "how": hows}}
    template = "orchestrator/sessions/inspector.html"
    if request.htmx and not request.htmx.history_restore_request:
        template += "#inspector"  # the 2-second poll swaps the inspector, not the page
    return render(request, template, context)
