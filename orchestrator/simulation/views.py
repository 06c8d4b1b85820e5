"""Studio pages of simulations (htmx, login required).

- `/catalogs/<slug>/simulations/`: start a run (version, scenario, orchestrator, N, seed), the
  catalog's runs, and a form to compare two of them;
- `/simulations/<id>/`: progress polled every second until the server answers 286 (htmx stops
  polling) with the figures, the result plots (SVG drawn here) and the conversations;
- `/simulations/compare/?a=<id>&b=<id>`: two runs side by side (S3 against the planner, before
  against after a change);
- `/simulations/<id>/conversations/<i>/`: one conversation in the session inspector.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HTMX_STOP_POLLING

from catalog_app.access import page_version_context, page_workspace, posted_version
from catalog_app.views.common import HtmxHttpRequest, render_page
from orchestrator.engine.errors import ConcertoError, UnknownName
from orchestrator.jobs.models import JobStatus
from orchestrator.jobs.runner import QueueUnavailable, job_can_requeue
from orchestrator.jobs.views import queue_down
from orchestrator.simulation.forms import SimulationStartForm
from orchestrator.simulation.models import SimulationRun
from orchestrator.simulation.plots import run_plots
from orchestrator.simulation.selectors import (
    conversation_debug,
    conversation_explained,
    conversation_get,
    run_conversations,
    run_get,
    run_list,
    scenario_list,
)
from orchestrator.simulation.services import run_cancel, run_create


@require_GET
@login_required
def simulation_index_page(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    context = page_version_context(request, slug, "simulate")
    return render_page(request, "orchestrator/simulations/index.html", _index_context(request, context, None))


@require_POST
@login_required
def simulation_start_view(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    context = page_version_context(request, slug, "simulate", posted_version(request))
    scenarios = [s.name for s in scenario_list(catalog=context["catalog"])]
    form = SimulationStartForm(request.POST, scenarios=scenarios)
    if form.is_valid():
        data = form.cleaned_data
        try:
            run = run_create(workspace=page_workspace(request), version=context["version"], scenario=data["scenario"],
                             conversations=data["conversations"], orchestrator=data["orchestrator"],
                             seed=data["seed"], user=request.user, explore=data["explore"])
        except ConcertoError as exc:
            for issue in exc.issues:
                form.add_error(None, str(issue))
        except QueueUnavailable as exc:
            form.add_error(None, str(exc))
            return queue_down(render(request, "orchestrator/simulations/index.html",
                                     _index_context(request, context, form)))
        else:
            return redirect("orchestrator:simulation", pk=run.pk)
    return render(request, "orchestrator/simulations/index.html", _index_context(request, context, form), status=422)


def _index_context(request: HttpRequest, context: dict[str, Any], form: SimulationStartForm | None) -> dict[str, Any]:
    catalog = context["catalog"]
    scenarios = list(scenario_list(catalog=catalog))
    if form is None:
        form = SimulationStartForm(scenarios=[s.name for s in scenarios],
                                   initial={"version": context["version"].number})
    runs = list(run_list(workspace=page_workspace(request), catalog=catalog)[:50])
    return {**context, "form": form, "scenarios": scenarios, "runs": runs,
            "finished": [r for r in runs if r.status == JobStatus.DONE]}


@require_GET
@login_required
@vary_on_headers("HX-Request")
def simulation_page(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    run = _run(request, pk)
    context: dict[str, Any] = {"run": run, "can_requeue": job_can_requeue(job=run, user=request.user,
                                                                          workspace=run.workspace)}
    if run.status == JobStatus.DONE and run.summary:
        context.update(plots=run_plots([(f"run {run.pk}", run.summary)]), conversations=run_conversations(run=run))
    if request.htmx and not request.htmx.history_restore_request:  # a poll of the progress
        return render(request, "orchestrator/simulations/run.html#status", context,
                      status=HTMX_STOP_POLLING if run.finished else 200)
    return render(request, "orchestrator/simulations/run.html", context)


@require_POST
@login_required
def simulation_cancel_view(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    run_cancel(run=_run(request, pk), user=request.user)
    return redirect("orchestrator:simulation", pk=pk)


@require_GET
@login_required
def simulation_compare_page(request: HtmxHttpRequest) -> HttpResponse:
    a, b = request.GET.get("a", ""), request.GET.get("b", "")
    if not (a.isdigit() and b.isdigit()):
        raise Http404("compare two runs: ?a=<id>&b=<id>")
    runs = [_run(request, int(a)), _run(request, int(b))]
    unfinished = [r for r in runs if r.status != JobStatus.DONE or not r.summary]
    plots = [] if unfinished else run_plots([(_label(r), r.summary or {}) for r in runs])
    return render(request, "orchestrator/simulations/compare.html",
                  {"runs": runs, "unfinished": unfinished, "plots": plots})


def _label(run: SimulationRun) -> str:
    return f"#{run.pk} {run.orchestrator} v{run.version.number}"


@require_GET
@login_required
@vary_on_headers("HX-Request")
def simulated_conversation_page(request: HtmxHttpRequest, pk: int, index: int) -> HttpResponse:
    run = _run(request, pk)
    try:
        conversation = conversation_get(run=run, index=index)
    except UnknownName as exc:
        raise Http404(str(exc)) from exc
    conversation.run = run
    context = {"run": run, "conversation": conversation, "session": conversation,
               "debug": conversation_debug(conversation=conversation),
               "explained": conversation_explained(conversation=conversation)}
    if request.htmx and not request.htmx.history_restore_request:
        # The inspector polls to follow a live chat; a simulated conversation is over: stop it.
        return render(request, "orchestrator/sessions/inspector.html#inspector", context, status=HTMX_STOP_POLLING)
    return render(request, "orchestrator/simulations/conversation.html", context)


def _run(request: HttpRequest, pk: int) -> SimulationRun:
    try:
        return run_get(workspace=page_workspace(request), pk=pk)
    except UnknownName as exc:
        raise Http404(str(exc)) from exc
