"""Celery tasks of learning: each only calls a service (task names kept as `orchestrator.tasks.*`)."""

from __future__ import annotations

from celery import Task, shared_task

from orchestrator.jobs.redelivery import look_again_later
from orchestrator.jobs.runner import JobTask
from orchestrator.learning.services import learning_job_execute


@shared_task(bind=True, base=JobTask, acks_late=True, name="orchestrator.tasks.learning_job_run")
def learning_job_run(self: Task, job_id: int) -> str:
    """Learn refinements for a job and queue them for review. Idempotent: a finished job is left as it is."""
    return look_again_later(self, learning_job_execute(job_id=job_id).status)
