"""Celery tasks of trajectory analysis: each only calls a service.

Task names stay `orchestrator.tasks.*`, as before the features had packages: a message queued by an
older worker still finds its task.
"""

from __future__ import annotations

from celery import Task, shared_task

from orchestrator.jobs.redelivery import look_again_later
from orchestrator.jobs.runner import JobTask
from orchestrator.validation.services import analysis_run


@shared_task(bind=True, base=JobTask, acks_late=True, name="orchestrator.tasks.trajectory_analysis_run")
def trajectory_analysis_run(self: Task, analysis_id: int) -> str:
    """Analyse a stored batch of trajectories. Idempotent: a finished batch is left as it is."""
    return look_again_later(self, analysis_run(analysis_id=analysis_id).status)
