"""Studio pages of cold-start learning (login required; admins decide, analysts read).

- `/catalogs/<slug>/review/`: the review queue: pending refinements grouped by skill, element or
  intent, each with its evidence (links to the conversations in the inspector), the diff of the
  spec it would make and its effect on plans; learn from a finished run, live sessions and/or an
  uploaded file of tool-call trajectories, in a Celery job whose status the page polls
  (`/catalogs/<slug>/review/jobs/<id>/`, every second until the answer 286);
  accept (optionally edited) or reject one or many; the new draft and its diff after accepting;
- `/catalogs/<slug>/promotion/`: what promoting a version to the planner needs, with the figures
  (compiles, plannable intents, the threshold and the latest planner run); set the threshold,
  promote and switch an assistant from S3 to the planner.
"""

from __future__ import annotations

import json

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HTMX_STOP_POLLING

from catalog_app.access import page_version_context, page_workspace
from catalog_app.permissions import Action, check_allowed, is_allowed
from catalog_app.selectors import version_get, version_spec
from orchestrator.assistants.models import Assistant
from orchestrator.assistants.promotion import assistant_promote_to_planner, policy_set, promotion_report
from orchestrator.engine.catalog.diff import diff_catalogs
from orchestrator.engine.errors import ConcertoError
from orchestrator.engine.learning.refinements import apply_refinements
from orchestrator.jobs.models import JobStatus
from orchestrator.jobs.runner import QueueUnavailable, job_can_requeue
from orchestrator.learning.forms import ChangeInvalid, change_fields, change_from_post
from orchestrator.learning.models import RefinementStatus
from orchestrator.learning.selectors import evidence_links, learning_job_get, refinement_groups, refinement_list
from orchestrator.learning.services import learning_job_create, refinements_decide
from orchestrator.modes import AssistantMode
from orchestrator.simulation.models import SimulationRun
from orchestrator.validation.forms import json_upload


@require_GET
@login_required
def review_page(request: HttpRequest, slug: str) -> HttpResponse:
    context = page_version_context(request, slug, "review")
    catalog = context["catalog"]
    groups = []
    for subject, rows in refinement_groups(catalog=catalog):
        items = []
        for row in rows:
            base = version_spec(version=row.version)
            try:
                diff = [str(c) for c in diff_catalogs(base, apply_refinements(base, [row.change]))]
            except ConcertoError as exc:
                diff = [f"does not fit version {row.version.number} any more: {exc}"]
            items.append({"row": row, "diff": diff, "links": evidence_links(row),
                          "fields": change_fields(row.change), "change_json": json.dumps(row.change, indent=1)})
        groups.append({"subject": subject, "items": items})
    draft_number = request.GET.get("draft", "")
    draft_diff: list[str] = []
    if draft_number.isdigit():
        draft = version_get(catalog=catalog, number=int(draft_number))
        source = catalog.versions.filter(number__lt=draft.number).order_by("-number").first()
        if source is not None:
            draft_diff = [str(c) for c in diff_catalogs(version_spec(version=source), version_spec(version=draft))]
    runs = SimulationRun.objects.filter(version__catalog=catalog, status=JobStatus.DONE).select_related(
        "version").order_by("-pk")[:30]
    decided = refinement_list(catalog=catalog, status=None).exclude(status=RefinementStatus.PENDING)[:50]
    job_id = request.GET.get("job", "")
    job = learning_job_get(catalog=catalog, pk=int(job_id)) if job_id.isdigit() else None
    return render(request, "orchestrator/review/queue.html", {
        **context, "groups": groups, "runs": runs,
        "is_admin": is_allowed(request.user, catalog.workspace, Action.REFINEMENT_DECIDE),
        "draft_number": draft_number, "draft_diff": draft_diff, "decided": decided, "job": job,
        "can_requeue": job is not None and job_can_requeue(job=job, user=request.user, workspace=catalog.workspace)})


@require_GET
@login_required
def review_job_view(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """The learning job's status, polled by the review page until the job is finished."""
    catalog = page_version_context(request, slug, "review")["catalog"]
    job = learning_job_get(catalog=catalog, pk=pk)
    if job is None:
        raise Http404(f"no learning job {pk} for this catalog")
    can_requeue = job_can_requeue(job=job, user=request.user, workspace=catalog.workspace)
    response = render(request, "orchestrator/review/queue.html#job-status",
                      {"catalog": catalog, "job": job, "can_requeue": can_requeue},
                      status=HTMX_STOP_POLLING if job.finished else 200)
    if job.status == JobStatus.DONE and job.proposed and request.headers.get("HX-Request"):
        # The queue below was drawn before the job had proposed anything ("Nothing to review"): the
        # page is drawn again, queue and status together, rather than the status alone.
        response["HX-Refresh"] = "true"
    return response


@require_POST
@login_required
def review_learn_view(request: HttpRequest, slug: str) -> HttpResponse:
    """Queue a learning job (a worker learns; the page shows its status), or say at once what is wrong."""
    catalog = page_version_context(request, slug, "review")["catalog"]
    run_id = request.POST.get("run", "")
    run = None
    if run_id.isdigit():
        run = SimulationRun.objects.filter(pk=int(run_id), workspace=page_workspace(request)).first()
    upload = request.FILES.get("trajectories")
    try:
        trajectories = json_upload(upload, "the trajectories file") if upload is not None else None
        job = learning_job_create(catalog=catalog, user=request.user, run=run,
                                  sessions=request.POST.get("sessions") == "on", trajectories=trajectories,
                                  trajectories_name=upload.name if upload is not None else "")
    except forms.ValidationError as exc:
        messages.error(request, " ".join(exc.messages))
    except (ConcertoError, QueueUnavailable) as exc:
        messages.error(request, str(exc))
    else:
        return redirect(f"{reverse('orchestrator:review', args=[slug])}?job={job.pk}")
    return redirect("orchestrator:review", slug=slug)


@require_POST
@login_required
def review_decide_view(request: HttpRequest, slug: str) -> HttpResponse:
    catalog = page_version_context(request, slug, "review")["catalog"]
    check_allowed(request.user, catalog.workspace, Action.REFINEMENT_DECIDE)  # before reading the edits
    ids = [int(x) for x in request.POST.getlist("ids") if x.isdigit()]
    action = request.POST.get("action")
    edits = {}
    stored = {row.pk: row.change for row in refinement_list(catalog=catalog, status=None).filter(pk__in=ids)}
    for pk in ids:
        try:
            edited = change_from_post(stored.get(pk, {}), request.POST, pk)
        except ChangeInvalid as exc:
            messages.error(request, f"refinement {pk}: {exc}")
            return redirect("orchestrator:review", slug=slug)
        if edited is not None and action == "accept":
            edits[pk] = edited
    try:
        if action == "accept":
            decision = refinements_decide(catalog=catalog, user=request.user, accept=ids, edits=edits)
        else:
            decision = refinements_decide(catalog=catalog, user=request.user, reject=ids)
    except ConcertoError as exc:  # a refusal of the role is a NotAllowed, Django's 403, not caught here
        messages.error(request, str(exc))
        return redirect("orchestrator:review", slug=slug)
    if decision.draft is not None:
        messages.success(request, f"Accepted {len(decision.accepted)}: draft v{decision.draft.number} created.")
        return redirect(f"{reverse('orchestrator:review', args=[slug])}?draft={decision.draft.number}")
    messages.success(request, f"Rejected {len(decision.rejected)}.")
    return redirect("orchestrator:review", slug=slug)


@require_GET
@login_required
def promotion_page(request: HttpRequest, slug: str) -> HttpResponse:
    context = page_version_context(request, slug, "promotion")
    catalog, version = context["catalog"], context["version"]
    report = promotion_report(version=version, spec=context["spec"])
    assistants = Assistant.objects.filter(catalog_version__catalog=catalog).select_related("catalog_version")
    s3_runs = SimulationRun.objects.filter(version__catalog=catalog, orchestrator=AssistantMode.S3,
                                           status=JobStatus.DONE).order_by("-pk")[:1]
    return render(request, "orchestrator/review/promotion.html", {
        **context, "report": report, "assistants": assistants, "s3_run": s3_runs[0] if s3_runs else None,
        "is_admin": is_allowed(request.user, catalog.workspace, Action.PLANNER_SWITCH)})


@require_POST
@login_required
def promotion_threshold_view(request: HttpRequest, slug: str) -> HttpResponse:
    context = page_version_context(request, slug, "promotion")
    text = request.POST.get("threshold", "").strip()
    try:
        threshold = float(text) / 100 if text else None
        policy_set(catalog=context["catalog"], threshold=threshold, user=request.user)
    except (ValueError, ConcertoError) as exc:
        messages.error(request, f"threshold: {exc}")
    return redirect(f"{reverse('orchestrator:promotion', args=[slug])}?version={context['version'].number}")


@require_POST
@login_required
def promotion_switch_view(request: HttpRequest, slug: str) -> HttpResponse:
    number = request.POST.get("version", "")
    context = page_version_context(request, slug, "promotion", int(number) if number.isdigit() else None)
    assistant = Assistant.objects.filter(catalog_version__catalog=context["catalog"],
                                         key=request.POST.get("assistant", "")).first()
    if assistant is None:
        messages.error(request, "choose an assistant of this catalog")
    else:
        try:
            assistant_promote_to_planner(assistant=assistant, version=context["version"], user=request.user)
        except ConcertoError as exc:
            messages.error(request, str(exc))
        else:
            messages.success(request, f"Version {context['version'].number} is promoted; assistant "
                                      f"{assistant.key} now runs it with the planner orchestrator.")
    return redirect(f"{reverse('orchestrator:promotion', args=[slug])}?version={context['version'].number}")
