"""The studio's actions on an analysis: re-queue one whose worker died, that no worker took, or that failed
(admins); cancel one."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from catalog_app.access import page_workspace
from orchestrator.engine.errors import UnknownName
from orchestrator.jobs.views import requeue_from_page
from orchestrator.validation.analysis_jobs import analysis_cancel, analysis_requeue
from orchestrator.validation.services import analysis_get


@require_POST
@login_required
def analysis_requeue_view(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        analysis = analysis_get(workspace=page_workspace(request), pk=pk)
    except UnknownName as exc:
        raise Http404(str(exc)) from exc
    requeue_from_page(request, lambda: analysis_requeue(analysis=analysis, user=request.user),
                      f"Analysis {pk} is queued again; a worker will start it over.")
    return redirect("orchestrator:analysis", pk=pk)


@require_POST
@login_required
def analysis_cancel_view(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        analysis = analysis_get(workspace=page_workspace(request), pk=pk)
    except UnknownName as exc:
        raise Http404(str(exc)) from exc
    analysis_cancel(analysis=analysis, user=request.user)
    return redirect("orchestrator:analysis", pk=pk)
