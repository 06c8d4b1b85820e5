"""The one way a background job runs: queued on commit, claimed by one worker, beating while it works,
finished once, taken over when its worker is gone, cancelled or re-queued on request.

- **Enqueue**: `enqueue_on_commit` hands the job to the broker once its row is committed. When the
  broker cannot be reached the publication gives up after a bounded retry (about a second) and
  raises `QueueUnavailable`, which the API answers with 503 and Retry-After; a job that was just
  created is deleted (nothing half-started stays "queued" for ever), a re-queued one is marked
  failed with the reason, so its page offers to re-queue it again.
- **Claim**: one conditional UPDATE takes a job that is queued, or running without a heartbeat for
  CONCERTO_JOB_STALE_SECONDS, and writes a new `holder`. Two deliveries of one message cannot both
  win it, and a live job is never taken from its worker.
- **Heartbeat**: progress writes (`Beat`) or, for work that reports no progress, a thread, stamp
  `heartbeat_at` under the holder; when the row is no longer this holder's (taken over, cancelled)
  the beat raises `JobLost` and the work stops without writing its result.
- **Finish**: done or failed, once, only by the holder. A user's error (`ConcertoError`) is the
  job's failure message; anything else is logged and re-raised for Celery to record.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from datetime import datetime, timedelta
from typing import Any, TypeVar

from celery import Task
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import connection, transaction
from django.db.models import F, Q
from django.utils import timezone
from kombu.exceptions import KombuError

from catalog_app.models import Workspace
from catalog_app.permissions import Action, NotAllowed, check_allowed
from orchestrator.engine.errors import ConcertoError
from orchestrator.jobs.models import Job, JobStatus

logger = logging.getLogger(__name__)

J = TypeVar("J", bound=Job)

QUEUE_DOWN = "the job queue cannot be reached: nothing was started; try again in a minute"
RETRY_AFTER_SECONDS = 30
# One retry half a second later: a broker that is down answers "refused" at once, and a request
# must not wait for it (Celery's own policy, with the result store's reconnection, took ~20 s).
PUBLISH_RETRY = {"max_retries": 1, "interval_start": 0.5, "interval_step": 0.5, "interval_max": 0.5}
PROGRESS_EVERY_SECONDS = 0.5


class QueueUnavailable(Exception):
    """The broker could not be reached: the job was not handed to any worker."""

    retry_after = RETRY_AFTER_SECONDS


class JobLost(Exception):
    """The job's row is no longer this worker's: it was taken over after a stall, or cancelled."""


class NotRequeueable(ConcertoError):
    """Only a job whose worker is gone, that no worker took, or that failed may be re-queued."""


class JobTask(Task):
    """The Celery task class of every job. A job's state lives in its row and nobody waits on a
    Celery result for it, so publishing skips the result store (whose reconnection loop is what held
    a request for 20 s when Redis was down) and gives up after `PUBLISH_RETRY`."""

    def apply_async(self, args: Any = None, kwargs: Any = None, **options: Any) -> Any:
        options.setdefault("ignore_result", True)
        options.setdefault("retry_policy", PUBLISH_RETRY)
        return super().apply_async(args, kwargs, **options)


# --- enqueue ----------------------------------------------------------------------------------------


def job_publish(task: Task, *args: Any, queue: str | None = None) -> None:
    """Hand a task to the broker now; QueueUnavailable when it cannot be reached."""
    try:
        if queue is None:
            task.delay(*args)
        else:
            task.apply_async(args, queue=queue)
    except (KombuError, OSError) as exc:
        logger.warning("could not queue %s%s: %s", task.name, args, exc)
        raise QueueUnavailable(QUEUE_DOWN) from exc


def enqueue_on_commit(job: Job, task: Task, *, keep_on_failure: bool = False, queue: str | None = None) -> None:
    """Hand `job` to a worker once the current transaction commits (a worker must find its row).

    When the broker cannot be reached, a new job's row is deleted (`keep_on_failure=False`), or kept
    and marked failed with the reason; either way QueueUnavailable reaches the caller.
    """
    model, pk = type(job), job.pk

    def publish() -> None:
        try:
            job_publish(task, pk, queue=queue)
        except QueueUnavailable:
            rows = model.objects.filter(pk=pk, status=JobStatus.QUEUED)
            if keep_on_failure:
                rows.update(status=JobStatus.FAILED, finished_at=timezone.now(), error=QUEUE_DOWN)
            else:
                rows.delete()
            raise

    transaction.on_commit(publish)


# --- claim, beat, finish ----------------------------------------------------------------------------


def claimable(now: datetime) -> Q:
    """The jobs a worker may take: queued, or running without a recent heartbeat."""
    stale_before = now - timedelta(seconds=settings.CONCERTO_JOB_STALE_SECONDS)
    never_beat = Q(heartbeat_at__isnull=True) & (Q(started_at__isnull=True) | Q(started_at__lt=stale_before))
    silent = Q(heartbeat_at__lt=stale_before) | never_beat
    return Q(status=JobStatus.QUEUED) | (Q(status=JobStatus.RUNNING) & silent)


def job_claim(model: type[J], pk: int, **reset: Any) -> str | None:
    """Take job `pk` for this worker in one conditional UPDATE; the new holder, or None when another
    worker holds it alive or it is finished. `reset` restarts the job's progress where it starts over."""
    now = timezone.now()
    holder = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"[-100:]
    claimed = model.objects.filter(pk=pk).filter(claimable(now)).update(
        status=JobStatus.RUNNING, started_at=now, heartbeat_at=now, finished_at=None, holder=holder,
        attempts=F("attempts") + 1, error="", **reset)
    return holder if claimed else None


def job_beat(model: type[Job], pk: int, holder: str, **progress: Any) -> None:
    """Stamp the heartbeat (and any progress) of a job this worker holds; JobLost when it no longer does."""
    if not model.objects.filter(pk=pk, holder=holder, status=JobStatus.RUNNING).update(
            heartbeat_at=timezone.now(), **progress):
        raise JobLost(f"{model.__name__} {pk} is no longer held by {holder}")


class Beat:
    """A job's progress callback: writes `done` and the heartbeat at most every PROGRESS_EVERY_SECONDS
    (a row update per unit would cost more than the work) and always for the last unit."""

    def __init__(self, model: type[Job], pk: int, holder: str) -> None:
        self.model, self.pk, self.holder = model, pk, holder
        self._last = 0.0

    def __call__(self, done: int, total: int | None = None) -> None:
        now = time.monotonic()
        if now - self._last >= PROGRESS_EVERY_SECONDS or (total is not None and done >= total):
            self._last = now
            job_beat(self.model, self.pk, self.holder, done=done)

    def check(self) -> None:
        """JobLost unless this worker still holds the job (and stamp the heartbeat)."""
        job_beat(self.model, self.pk, self.holder)


@contextmanager
def beating(model: type[Job], pk: int, holder: str, every: float) -> Iterator[None]:
    """Stamp the heartbeat every `every` seconds from a thread while the block runs, for work that
    reports no progress of its own. The thread has its own database connection and closes it."""
    stop = threading.Event()

    def beat() -> None:
        try:
            while not stop.wait(every):
                try:
                    job_beat(model, pk, holder)
                except JobLost:
                    return  # the finish (or the work's own check) sees it too
                except Exception:
                    logger.exception("heartbeat of %s %s failed", model.__name__, pk)
        finally:
            connection.close()

    thread = threading.Thread(target=beat, name=f"heartbeat-{model.__name__}-{pk}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def job_finish(model: type[Job], pk: int, holder: str, status: str, **fields: Any) -> bool:
    """Write the job's end, once, if this worker still holds it; whether it did."""
    now = timezone.now()
    return bool(model.objects.filter(pk=pk, holder=holder, status=JobStatus.RUNNING).update(
        status=status, finished_at=now, heartbeat_at=now, **fields))


def job_light(model: type[J], pk: int) -> J:
    """The job's row without its heavy columns (loaded on access, when a caller really wants them)."""
    return model.objects.defer(*model.heavy_fields).get(pk=pk)


def job_run(model: type[J], pk: int, work: Callable[[J, Beat], dict[str, Any] | None], *,
            failure: str = "the job failed", reset: dict[str, Any] | None = None,
            beat_every: float | None = None) -> J:
    """Claim job `pk` and run `work(job, beat)`, which returns the columns to write when it is done.

    Safe to call again for the same job (a redelivered message): a finished job, or one whose
    worker is alive, is returned as it is. With `beat_every`, a thread keeps the heartbeat while
    `work` runs (for work without progress to report).
    """
    holder = job_claim(model, pk, **(reset or {}))
    if holder is None:
        return job_light(model, pk)
    job = model.objects.get(pk=pk)
    beat = Beat(model, pk, holder)
    try:
        with beating(model, pk, holder, beat_every) if beat_every else nullcontext():
            fields = work(job, beat) or {}
    except JobLost:
        logger.info("%s %s was taken over or cancelled; this worker leaves it", model.__name__, pk)
    except ConcertoError as exc:  # the input changed meaning since it was checked (a version edited...)
        job_finish(model, pk, holder, JobStatus.FAILED, error=str(exc)[:5000])
    except Exception as exc:
        logger.exception("%s %s failed", model.__name__, pk)
        job_finish(model, pk, holder, JobStatus.FAILED, error=f"{failure}: {type(exc).__name__}: {exc}"[:5000])
        raise
    else:
        job_finish(model, pk, holder, JobStatus.DONE, **fields)
    return job_light(model, pk)


def heartbeat_interval() -> float:
    """How often a beating thread writes: several times per stale period, so one slow write is no stall."""
    return max(1.0, settings.CONCERTO_JOB_STALE_SECONDS / 4)


# --- cancel and re-queue ----------------------------------------------------------------------------


def job_cancel(job: J) -> J:
    """Stop a queued or running job: a worker that holds it stops at its next heartbeat, writing nothing."""
    type(job).objects.filter(pk=job.pk, status__in=[JobStatus.QUEUED, JobStatus.RUNNING]).update(
        status=JobStatus.CANCELLED, finished_at=timezone.now())
    return job_light(type(job), job.pk)


def job_check_requeue(*, job: Job, user: AbstractBaseUser, workspace: Workspace, noun: str = "job") -> None:
    check_allowed(user, workspace, Action.JOB_REQUEUE)
    if not job.requeueable:
        alive = "; its worker is alive" if job.status == JobStatus.RUNNING else ""
        raise NotRequeueable(f"{noun} {job.pk} is {job.status}{alive}: nothing to re-queue")


def job_can_requeue(*, job: Job, user: AbstractBaseUser, workspace: Workspace) -> bool:
    try:
        job_check_requeue(job=job, user=user, workspace=workspace)
    except (ConcertoError, NotAllowed):
        return False
    return True


@transaction.atomic
def job_requeue(*, job: J, user: AbstractBaseUser, workspace: Workspace, task: Task, noun: str = "job",
                reset: dict[str, Any] | None = None) -> J:
    """Put a stalled, unclaimed or failed job back in the queue (admins); a worker takes it once this
    commits. A broker that cannot be reached leaves it failed with the reason (QueueUnavailable)."""
    model = type(job)
    locked = model.objects.select_for_update().defer(*model.heavy_fields).get(pk=job.pk)
    job_check_requeue(job=locked, user=user, workspace=workspace, noun=noun)
    model.objects.filter(pk=job.pk).update(status=JobStatus.QUEUED, queued_at=timezone.now(), heartbeat_at=None,
                                           finished_at=None, holder="", error="", **(reset or {}))
    enqueue_on_commit(locked, task, keep_on_failure=True)
    return job_light(model, job.pk)
