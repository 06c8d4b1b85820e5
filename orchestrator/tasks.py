"""Celery tasks of the orchestrator app: each only calls a service."""

from __future__ import annotations

from celery import Task, shared_task
from django.conf import settings

from .learning_services import learning_job_execute
from .simulation_services import run_chunk, run_dispatch
from .validation_services import analysis_run


def _look_again_later(task: Task, status: str) -> str:
    """A job still "running" after its service returned is held by another worker, as far as its
    heartbeat tells. This message may be a redelivery because that worker died a moment ago (the
    heartbeat is not stale yet): dropping it would leave the job running forever, so it comes back
    once a dead worker's heartbeat would be stale, and then takes the job over or finds it done."""
    if status == "running":
        raise task.retry(countdown=settings.CONCERTO_JOB_STALE_SECONDS + 1, max_retries=None)
    return status


@shared_task(bind=True, acks_late=True)
def trajectory_analysis_run(self: Task, analysis_id: int) -> str:
    """Analyse a stored batch of trajectories. Idempotent: a finished batch is left as it is."""
    return _look_again_later(self, analysis_run(analysis_id=analysis_id).status)


# --- simulations (issue 12) ------------------------------------------------------------------------


@shared_task(bind=True, acks_late=True)
def simulation_start(self, run_id: int) -> str:
    """Fan a run out in chunks, onto the queue this task came from (the workers that serve it)."""
    queue = (self.request.delivery_info or {}).get("routing_key") or None
    return run_dispatch(run_id=run_id, send=lambda run, start, stop: simulation_chunk.apply_async(
        args=[run, start, stop], queue=queue))


@shared_task(acks_late=True)
def simulation_chunk(run_id: int, start: int, stop: int) -> int:
    """Simulate conversations [start, stop) of a run. Idempotent: stored conversations are not redone."""
    return run_chunk(run_id=run_id, start=start, stop=stop)


# --- learning (issue 13) ---------------------------------------------------------------------------


@shared_task(bind=True, acks_late=True)
def learning_job_run(self: Task, job_id: int) -> str:
    """Learn refinements for a job and queue them for review. Idempotent: a finished job is left as it is."""
    return _look_again_later(self, learning_job_execute(job_id=job_id).status)
