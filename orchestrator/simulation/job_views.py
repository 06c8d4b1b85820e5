"""The studio's action on a run whose chunks' worker stopped, that no worker took, or that failed: re-queue it."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from catalog_app.access import page_workspace
from orchestrator.engine.errors import UnknownName
from orchestrator.jobs.views import requeue_from_page
from orchestrator.simulation.selectors import run_get
from orchestrator.simulation.services import run_requeue


@require_POST
@login_required
def simulation_requeue_view(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        run = run_get(workspace=page_workspace(request), pk=pk)
    except UnknownName as exc:
        raise Http404(str(exc)) from exc
    requeue_from_page(request, lambda: run_requeue(run=run, user=request.user),
                      f"Simulation {pk} is queued again; a worker will compute the conversations it lacks.")
    return redirect("orchestrator:simulation", pk=pk)
