"""What a job's Celery task does when its job is still held by another worker."""

from __future__ import annotations

from celery import Task
from django.conf import settings


def look_again_later(task: Task, status: str) -> str:
    """A job still "running" after its service returned is held by another worker, as far as its
    heartbeat tells. This message may be a redelivery because that worker died a moment ago (the
    heartbeat is not stale yet): dropping it would leave the job running forever, so it comes back
    once a dead worker's heartbeat would be stale, and then takes the job over or finds it done."""
    if status == "running":
        raise task.retry(countdown=settings.CONCERTO_JOB_STALE_SECONDS + 1, max_retries=None)
    return status
