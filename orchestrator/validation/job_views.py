"""The studio's action on an analysis whose worker died: re-queue it (workspace admins)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from catalog_app.access import page_workspace
from orchestrator.engine.errors import UnknownName
from orchestrator.validation.analysis_jobs import NotAllowed, NotStalled, analysis_requeue
from orchestrator.validation.services import analysis_get


@require_POST
@login_required
def analysis_requeue_view(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        analysis = analysis_get(workspace=page_workspace(request), pk=pk)
    except UnknownName as exc:
        raise Http404(str(exc)) from exc
    try:
        analysis_requeue(analysis=analysis, user=request.user)
    except NotAllowed as exc:
        raise PermissionDenied(str(exc)) from exc
    except NotStalled as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"Analysis {pk} is queued again; a worker will start it over.")
    return redirect("orchestrator:analysis", pk=pk)
