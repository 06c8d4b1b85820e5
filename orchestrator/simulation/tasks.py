"""Celery tasks of simulations: each only calls a service (task names kept as `orchestrator.tasks.*`)."""

from __future__ import annotations

from celery import shared_task

from orchestrator.jobs.runner import JobTask
from orchestrator.simulation.services import run_chunk, run_dispatch


@shared_task(bind=True, base=JobTask, acks_late=True, name="orchestrator.tasks.simulation_start")
def simulation_start(self, run_id: int) -> str:
    """Fan a run out in chunks, onto the queue this task came from (the workers that serve it)."""
    queue = (self.request.delivery_info or {}).get("routing_key") or None
    return run_dispatch(run_id=run_id, send=lambda run, start, stop: simulation_chunk.apply_async(
        args=[run, start, stop], queue=queue))


@shared_task(base=JobTask, acks_late=True, name="orchestrator.tasks.simulation_chunk")
def simulation_chunk(run_id: int, start: int, stop: int) -> int:
    """Simulate conversations [start, stop) of a run. Idempotent: stored conversations are not redone."""
    return run_chunk(run_id=run_id, start=start, stop=stop)
