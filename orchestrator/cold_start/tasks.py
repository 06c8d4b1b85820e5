"""Celery tasks of cold-start campaigns: each only calls a service (task names kept as `orchestrator.tasks.*`)."""

from __future__ import annotations

from celery import Task, shared_task

from orchestrator.cold_start.services import round_execute
from orchestrator.jobs.redelivery import look_again_later
from orchestrator.jobs.runner import JobTask


@shared_task(bind=True, base=JobTask, acks_late=True, name="orchestrator.tasks.cold_start_round")
def cold_start_round(self: Task, round_id: int) -> str:
    """Run one round of a campaign, then queue the next on the queue this one came from (the workers that serve
    it). Idempotent: a finished round is left as it is."""
    queue = (self.request.delivery_info or {}).get("routing_key") or None
    return look_again_later(self, round_execute(round_id=round_id, queue=queue).status)
