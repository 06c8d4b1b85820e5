"""Celery tasks of the orchestrator app: each only calls a service."""

from __future__ import annotations

from celery import shared_task

from .validation_services import analysis_run


@shared_task(acks_late=True)
def trajectory_analysis_run(analysis_id: int) -> str:
    """Analyse a stored batch of trajectories. Idempotent: a finished batch is left as it is."""
    return analysis_run(analysis_id=analysis_id).status
