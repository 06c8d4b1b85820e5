"""What every job's API answer adds to its feature's fields, and how a re-queue's refusals are answered."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, TypeVar

from ninja import Schema
from ninja.errors import HttpError
from pydantic import Field

from orchestrator.jobs.models import Job
from orchestrator.jobs.runner import NotAllowed, NotRequeueable

T = TypeVar("T")


class JobStateOut(Schema):
    heartbeat_at: datetime | None = Field(description="the worker's last sign of life while it runs")
    attempts: int = Field(description="how many times a worker took the job (more than 1: taken over or re-queued)")
    waiting: str | None = Field(description="why an unfinished job is not moving (no worker took it, its worker "
                                            "stopped), or null")
    requeueable: bool = Field(description="whether an admin may put it back in the queue now")


def job_state(job: Job) -> dict[str, Any]:
    return {"heartbeat_at": job.heartbeat_at, "attempts": job.attempts, "waiting": job.waiting,
            "requeueable": job.requeueable}


def requeue_answer(requeue: Callable[[], T]) -> T:
    """Run a re-queue for the API: 403 for a member who is not an admin, 409 for a job that is alive or done."""
    try:
        return requeue()
    except NotAllowed as exc:
        raise HttpError(403, str(exc)) from exc
    except NotRequeueable as exc:
        raise HttpError(409, str(exc)) from exc
