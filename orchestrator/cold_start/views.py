"""Studio pages of cold-start campaigns (htmx, login required).

- `/catalogs/<slug>/cold-start/`: start a campaign (scenario, N a round, rounds, review or sandbox, a
  reference catalog) and the catalog's campaigns;
- `/cold-start/<id>/`: its rounds, polled every second while one is queued or running (286 stops the
  polling), the plot of success per round beside the reference, and what to do next: review the
  proposals (a link to the review queue), then continue on the draft the review made.
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
from catalog_app.models import Catalog
from catalog_app.permissions import Action, is_allowed
from catalog_app.views.common import HtmxHttpRequest, render_page
from orchestrator.cold_start.forms import CampaignStartForm
from orchestrator.cold_start.models import CampaignState, ColdStartCampaign
from orchestrator.cold_start.selectors import campaign_get, campaign_list, campaign_plot, campaign_rounds
from orchestrator.cold_start.services import campaign_cancel, campaign_continue, campaign_create
from orchestrator.engine.errors import ConcertoError, UnknownName
from orchestrator.jobs.runner import QueueUnavailable
from orchestrator.jobs.views import queue_down
from orchestrator.learning.sandbox import version_latest_reviewed
from orchestrator.simulation.selectors import scenario_list

TEMPLATE = "orchestrator/cold_start/index.html"


@require_GET
@login_required
def cold_start_index_page(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    context = page_version_context(request, slug, "cold-start")
    return render_page(request, TEMPLATE, _index_context(request, context, None))


@require_POST
@login_required
def cold_start_start_view(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    context = page_version_context(request, slug, "cold-start", posted_version(request))
    form = _form(request, context, request.POST)
    if form.is_valid():
        data = form.cleaned_data
        try:
            campaign = campaign_create(
                catalog=context["catalog"], user=request.user, scenario=data["scenario"], version=context["version"],
                conversations=data["conversations"], seed=data["seed"], max_rounds=data["max_rounds"],
                mode=data["mode"], confidence=data["confidence"], first_orchestrator=data["first_orchestrator"],
                reference=data["reference"] or "")
        except ConcertoError as exc:
            for issue in exc.issues:
                form.add_error(issue.path if issue.path in form.fields else None, issue.message)
        except QueueUnavailable as exc:
            form.add_error(None, str(exc))
            return queue_down(render(request, TEMPLATE, _index_context(request, context, form)))
        else:
            return redirect("orchestrator:cold_start", pk=campaign.pk)
    return render(request, TEMPLATE, _index_context(request, context, form), status=422)


def _form(request: HttpRequest, context: dict[str, Any], data: Any = None) -> CampaignStartForm:
    catalog = context["catalog"]
    scenarios = [s.name for s in scenario_list(catalog=catalog)]
    others = list(Catalog.objects.filter(workspace=catalog.workspace).exclude(pk=catalog.pk)
                  .values_list("slug", flat=True))
    previous = campaign_list(workspace=page_workspace(request), catalog=catalog).exclude(reference="").first()
    initial = {"version": context["version"].number, "reference": previous.reference if previous else ""}
    return CampaignStartForm(data, scenarios=scenarios, catalogs=others, initial=initial)


def _index_context(request: HttpRequest, context: dict[str, Any], form: CampaignStartForm | None) -> dict[str, Any]:
    catalog = context["catalog"]
    return {**context, "form": form or _form(request, context),
            "has_scenarios": scenario_list(catalog=catalog).exists(),
            "can_sandbox": is_allowed(request.user, catalog.workspace, Action.COLD_START_SANDBOX),
            "campaigns": list(campaign_list(workspace=page_workspace(request), catalog=catalog)[:50])}


@require_GET
@login_required
@vary_on_headers("HX-Request")
def cold_start_page(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    campaign = _campaign(request, pk)
    context = _page_context(request, campaign)
    if request.htmx and not request.htmx.history_restore_request:  # a poll of the progress
        return render(request, "orchestrator/cold_start/campaign.html#status", context,
                      status=200 if context["busy"] else HTMX_STOP_POLLING)
    return render(request, "orchestrator/cold_start/campaign.html", context)


def _page_context(request: HtmxHttpRequest, campaign: ColdStartCampaign) -> dict[str, Any]:
    rounds = campaign_rounds(campaign=campaign)
    latest = version_latest_reviewed(catalog=campaign.catalog)
    last = rounds[-1] if rounds else None
    return {"campaign": campaign, "rounds": rounds, "busy": any(not r.finished for r in rounds),
            "plot": campaign_plot(campaign=campaign, rounds=rounds), "catalog": campaign.catalog, "latest": latest,
            "can_continue": (campaign.state == CampaignState.REVIEW and last is not None and latest is not None
                             and latest.number > last.version.number),
            "can_run": is_allowed(request.user, campaign.catalog.workspace, Action.COLD_START_RUN)}


@require_POST
@login_required
def cold_start_continue_view(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    campaign = _campaign(request, pk)
    try:
        campaign_continue(campaign=campaign, user=request.user)
    except ConcertoError as exc:
        return render(request, "orchestrator/cold_start/campaign.html",
                      {**_page_context(request, campaign), "busy": False, "error": str(exc)}, status=422)
    except QueueUnavailable as exc:
        return queue_down(HttpResponse(str(exc)))
    return redirect("orchestrator:cold_start", pk=pk)


@require_POST
@login_required
def cold_start_cancel_view(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    campaign_cancel(campaign=_campaign(request, pk), user=request.user)
    return redirect("orchestrator:cold_start", pk=pk)


def _campaign(request: HttpRequest, pk: int) -> ColdStartCampaign:
    try:
        return campaign_get(workspace=page_workspace(request), pk=pk)
    except UnknownName as exc:
        raise Http404(str(exc)) from exc
