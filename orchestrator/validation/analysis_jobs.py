"""Cancelling an analysis, and re-queueing one whose worker died, that failed or that no worker took (admins).

The job runner (`orchestrator.jobs.runner`) tells a live job from one whose worker is gone; this
module names the analysis's workspace and task for it.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser

from catalog_app.permissions import Action, Actor, check_allowed
from orchestrator.jobs.runner import NotAllowed, job_can_requeue, job_cancel, job_check_requeue, job_requeue
from orchestrator.jobs.runner import NotRequeueable as NotStalled
from orchestrator.validation.models import TrajectoryAnalysis

__all__ = ["NotAllowed", "NotStalled", "analysis_cancel", "analysis_check_requeue", "analysis_requeue", "can_requeue"]


def analysis_check_requeue(*, analysis: TrajectoryAnalysis, user: AbstractBaseUser) -> None:
    job_check_requeue(job=analysis, user=user, workspace=analysis.workspace, noun="analysis")


def can_requeue(*, analysis: TrajectoryAnalysis, user: AbstractBaseUser) -> bool:
    return job_can_requeue(job=analysis, user=user, workspace=analysis.workspace)


def analysis_requeue(*, analysis: TrajectoryAnalysis, user: AbstractBaseUser) -> TrajectoryAnalysis:
    """Put the analysis back in the queue; a worker starts it over once this commits."""
    from orchestrator.validation.tasks import trajectory_analysis_run  # the task module imports the services

    return job_requeue(job=analysis, user=user, workspace=analysis.workspace, task=trajectory_analysis_run,
                       noun="analysis", reset={"done": 0})


def analysis_cancel(*, analysis: TrajectoryAnalysis, user: Actor) -> TrajectoryAnalysis:
    """Stop an analysis: a queued one never starts, a running one stops at its next progress, writing no report."""
    check_allowed(user, analysis.workspace, Action.ANALYSIS_RUN)  # who may start one may stop it
    return job_cancel(analysis)
