"""Analysis jobs whose worker died: telling them from live ones, and putting them back in the queue.

A worker writes a heartbeat with its progress (`services._progress_writer`). A job that
is "running" with no heartbeat for CONCERTO_JOB_STALE_SECONDS has lost its worker: the broker
redelivers its message after the visibility timeout (CELERY_BROKER_TRANSPORT_OPTIONS), and a
workspace admin may re-queue it at once from its page. A running job with a recent heartbeat is
never taken from its worker, so a message delivered twice runs once.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Q

from catalog_app.permissions import Action, check_allowed
from catalog_app.permissions import NotAllowed as NotAllowed  # the job views import it from here
from orchestrator.engine.errors import ConcertoError
from orchestrator.validation.models import AnalysisStatus, TrajectoryAnalysis


class NotStalled(ConcertoError):
    """Only a job whose worker is gone may be re-queued."""


def claimable(now: datetime) -> Q:
    """The jobs a worker may take: queued, failed, or running without a recent heartbeat."""
    stale_before = now - timedelta(seconds=settings.CONCERTO_JOB_STALE_SECONDS)
    never_beat = Q(heartbeat_at__isnull=True) & (Q(started_at__isnull=True) | Q(started_at__lt=stale_before))
    silent = Q(heartbeat_at__lt=stale_before) | never_beat
    return Q(status__in=(AnalysisStatus.QUEUED, AnalysisStatus.FAILED)) | (Q(status=AnalysisStatus.RUNNING) & silent)


def analysis_check_requeue(*, analysis: TrajectoryAnalysis, user: AbstractBaseUser) -> None:
    check_allowed(user, analysis.workspace, Action.ANALYSIS_REQUEUE)
    if not analysis.stalled:
        raise NotStalled(f"analysis {analysis.pk} is {analysis.status} and its worker is alive; nothing to re-queue")


def can_requeue(*, analysis: TrajectoryAnalysis, user: AbstractBaseUser) -> bool:
    try:
        analysis_check_requeue(analysis=analysis, user=user)
    except (ConcertoError, NotAllowed):
        return False
    return True


@transaction.atomic
def analysis_requeue(*, analysis: TrajectoryAnalysis, user: AbstractBaseUser) -> TrajectoryAnalysis:
    """Put a stalled job back in the queue; a worker takes it once this commits."""
    locked = TrajectoryAnalysis.objects.select_for_update().defer("samples", "tools").get(pk=analysis.pk)
    analysis_check_requeue(analysis=locked, user=user)
    locked.status, locked.done, locked.heartbeat_at, locked.error = AnalysisStatus.QUEUED, 0, None, ""
    locked.save(update_fields=["status", "done", "heartbeat_at", "error"])
    from orchestrator.validation.tasks import trajectory_analysis_run  # the task module imports the services

    transaction.on_commit(lambda: trajectory_analysis_run.delay(locked.pk))
    return locked

