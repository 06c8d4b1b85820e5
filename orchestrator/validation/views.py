"""Studio pages for plan validation and trajectory analysis (htmx, login required).

- `/catalogs/<slug>/validate/`: paste a plan, see the verdict and the coloured diff (the form
  posts with htmx and only the verdict is swapped in);
- `/validation/`: upload a batch of recorded sequences; it is analysed by a Celery job;
- `/validation/analyses/<id>/`: a progress bar polled every second until the server answers
  286 (htmx then stops polling) with the report: figures, a chart of failures per tool, diffs;
  the report downloads as JSON and as a standalone HTML page.
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HTMX_STOP_POLLING

from catalog_app.access import page_version_context, page_workspace, posted_version
from catalog_app.models import CatalogVersion, Workspace
from catalog_app.planning import version_planner
from catalog_app.selectors import (
    catalog_get,
    catalog_list,
    version_latest,
)
from catalog_app.views.common import HtmxHttpRequest, render_page
from orchestrator.engine.errors import ConcertoError, UnknownName
from orchestrator.jobs.models import JobStatus
from orchestrator.jobs.runner import QueueUnavailable
from orchestrator.jobs.views import queue_down
from orchestrator.validation.analysis_jobs import can_requeue
from orchestrator.validation.forms import AnalysisUploadForm, PlanCheckForm
from orchestrator.validation.models import TrajectoryAnalysis
from orchestrator.validation.reports import report_context, report_html
from orchestrator.validation.services import analysis_create, analysis_get, analysis_list, plan_validate

# --- plan validation ----------------------------------------------------------------------------


@require_http_methods(["GET", "POST"])
@login_required
@vary_on_headers("HX-Request")
def plan_validate_page(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    context = _version_context(request, slug)
    spec = context["spec"]
    if request.method == "POST":
        form = PlanCheckForm(request.POST, spec=spec)
        context.update(form=form, **_verdict(form, context["version"]))
        template = "orchestrator/validate_plan.html"
        return render(request, template + ("#verdict" if request.htmx else ""), context)
    intent = request.GET.get("intent") or (spec.intents[0].name if spec.intents else "")
    initial = {"intent": intent, "quality": "optimal", "plan": _planner_lines(context["version"], spec, intent)
               if request.GET.get("start") == "planner" else ""}
    context["form"] = PlanCheckForm(initial=initial, spec=spec)
    return render_page(request, "orchestrator/validate_plan.html", context)


def _verdict(form: PlanCheckForm, version: CatalogVersion) -> dict[str, Any]:
    if not form.is_valid():
        return {}
    try:
        report = plan_validate(version=version, plan=form.cleaned_data["plan"], quality=form.cleaned_data["quality"],
                               intent=form.cleaned_data["intent"], known=form.known_names())
    except ConcertoError as exc:
        return {"problem": str(exc)}
    return {"report": report}


def _planner_lines(version: CatalogVersion, spec: Any, intent: str) -> str:
    """The planner's own plan for `intent`, as a starting point to edit."""
    goal = next((i.goal for i in spec.intents if i.name == intent), None)
    if goal is None:
        return ""
    result = version_planner(version=version).plan(goal)
    return "\n".join(result.lines) if result.solved else ""


# --- trajectory analysis ------------------------------------------------------------------------


@require_GET
@login_required
def validation_index_page(request: HtmxHttpRequest) -> HttpResponse:
    workspace = page_workspace(request)
    catalogs = list(catalog_list(workspace=workspace))
    return render(request, "orchestrator/validation_index.html", {
        "catalogs": catalogs,
        "analyses": analysis_list(workspace=workspace)[:50],
        "form": AnalysisUploadForm(catalogs=catalogs),
    })


@require_POST
@login_required
def analysis_create_view(request: HtmxHttpRequest) -> HttpResponse:
    workspace = page_workspace(request)
    catalogs = list(catalog_list(workspace=workspace))
    form = AnalysisUploadForm(request.POST, request.FILES, catalogs=catalogs)
    if form.is_valid():
        data = form.cleaned_data
        try:
            version = _latest(workspace, data["catalog"]) if data["catalog"] else None
            analysis = analysis_create(
                workspace=workspace, samples=data["samples"], tools=data["tools"], version=version,
                name=data["name"] or _upload_name(request), user=request.user,
            )
        except ConcertoError as exc:
            form.add_error(None, str(exc))
        except QueueUnavailable as exc:
            form.add_error(None, str(exc))
            context = {"catalogs": catalogs, "analyses": analysis_list(workspace=workspace)[:50], "form": form}
            return queue_down(render(request, "orchestrator/validation_index.html", context))
        else:
            return redirect("orchestrator:analysis", pk=analysis.pk)
    context = {"catalogs": catalogs, "analyses": analysis_list(workspace=workspace)[:50], "form": form}
    return render(request, "orchestrator/validation_index.html", context, status=422)


def _upload_name(request: HttpRequest) -> str:
    upload = request.FILES.get("samples")
    return upload.name if upload else ""


@require_GET
@login_required
@vary_on_headers("HX-Request")
def analysis_page(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    analysis = _analysis(request, pk)
    context = {"analysis": analysis, "can_requeue": can_requeue(analysis=analysis, user=request.user),
               **_report_context(analysis)}
    if request.htmx:  # a poll of the progress bar
        status = HTMX_STOP_POLLING if analysis.finished else 200
        return render(request, "orchestrator/analysis.html#status", context, status=status)
    return render(request, "orchestrator/analysis.html", context)


@require_GET
@login_required
def analysis_report_json(request: HttpRequest, pk: int) -> HttpResponse:
    analysis = _finished(request, pk)
    response = HttpResponse(json.dumps(analysis.report, indent=2, ensure_ascii=False),
                            content_type="application/json")
    response["Content-Disposition"] = f'attachment; filename="trajectory-analysis-{pk}.json"'
    return response


@require_GET
@login_required
def analysis_report_html(request: HttpRequest, pk: int) -> HttpResponse:
    analysis = _finished(request, pk)
    title = f"Trajectory analysis #{analysis.pk}" + (f": {analysis.name}" if analysis.name else "")
    response = HttpResponse(report_html(report=analysis.report, title=title, source=_source(analysis),
                                        finished_at=analysis.finished_at))
    response["Content-Disposition"] = f'attachment; filename="trajectory-analysis-{pk}.html"'
    return response


def _report_context(analysis: TrajectoryAnalysis) -> dict[str, Any]:
    if analysis.status != JobStatus.DONE or not analysis.report:
        return {"report": None}
    return report_context(analysis.report)


def _source(analysis: TrajectoryAnalysis) -> str:
    version = analysis.version
    if version is None:
        return "the tool specs that came with the batch"
    return f"the skills of catalog {version.catalog.slug} v{version.number}"


# --- helpers ------------------------------------------------------------------------------------



def _latest(workspace: Workspace, slug: str) -> CatalogVersion:
    catalog = catalog_get(workspace=workspace, slug=slug)
    version = version_latest(catalog=catalog)
    if version is None:
        raise ConcertoError(f"catalog '{slug}' has no versions")
    return version


def _version_context(request: HttpRequest, slug: str) -> dict[str, Any]:
    """The catalog and the version asked for (a posted `version`, `?version=N`, else the latest)."""
    return page_version_context(request, slug, "validate", posted_version(request))


def _analysis(request: HttpRequest, pk: int) -> TrajectoryAnalysis:
    try:
        return analysis_get(workspace=page_workspace(request), pk=pk)
    except UnknownName as exc:
        raise Http404(str(exc)) from exc


def _finished(request: HttpRequest, pk: int) -> TrajectoryAnalysis:
    analysis = _analysis(request, pk)
    if analysis.status != JobStatus.DONE:
        raise Http404(f"analysis {pk} has no report yet ({analysis.status})")
    return analysis
