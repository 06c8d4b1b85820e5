"""The studio's actions on a learning job: re-queue one whose worker stopped, that no worker took, or that
failed (admins); cancel one."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from catalog_app.access import page_version_context
from orchestrator.jobs.views import requeue_from_page
from orchestrator.learning.models import LearningJob
from orchestrator.learning.selectors import learning_job_get
from orchestrator.learning.services import learning_job_cancel, learning_job_requeue


def _job(request: HttpRequest, slug: str, pk: int) -> LearningJob:
    catalog = page_version_context(request, slug, "review")["catalog"]
    job = learning_job_get(catalog=catalog, pk=pk)
    if job is None:
        raise Http404(f"no learning job {pk} for this catalog")
    return job


@require_POST
@login_required
def review_job_requeue_view(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    job = _job(request, slug, pk)
    requeue_from_page(request, lambda: learning_job_requeue(job=job, user=request.user),
                      f"Learning job {pk} is queued again; a worker will learn once more.")
    return redirect(f"{reverse('orchestrator:review', args=[slug])}?job={pk}")


@require_POST
@login_required
def review_job_cancel_view(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    learning_job_cancel(job=_job(request, slug, pk), user=request.user)
    return redirect(f"{reverse('orchestrator:review', args=[slug])}?job={pk}")
